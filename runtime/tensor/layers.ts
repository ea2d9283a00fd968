// The layers of pretrained language models built from graph primitives, written once and shared
// by every family in runtime/lm (Llama, Qwen2, Qwen3 use RMSNorm, SiLU and rotary embeddings;
// GPT-2 the graph's own layerNorm and gelu). Each is differentiable through the primitives'
// rules; each computes what transformers' float32 eager code computes, in the same order.
import type { Graph } from './graph.js';
import type { Tensor } from './tensor.js';

/** RMSNorm over the last axis: x / sqrt(mean(x^2) + epsilon) * weight (Zhang & Sennrich 2019; LlamaRMSNorm). */
export function rmsNorm(g: Graph, x: Tensor, weight: Tensor, epsilon: number): Tensor {
  const meanSquare = g.reduceMean(g.mul(x, x), { axes: [-1], keepdims: true });
  return g.mul(g.div(x, g.sqrt(g.add(meanSquare, epsilon))), weight);
}

/** SiLU (swish): x * sigmoid(x). */
export function silu(g: Graph, x: Tensor): Tensor {
  return g.mul(x, g.sigmoid(x));
}

/** SwiGLU's inner product (Shazeer 2020): silu(gate) * up. */
export function swiglu(g: Graph, gate: Tensor, up: Tensor): Tensor {
  return g.mul(silu(g, gate), up);
}

/**
 * Rotary embedding tables (Su et al. 2021) at int64 `positions` [B, T]: cos and sin [B, 1, T, D]
 * for `inverseFrequencies` [D/2], in the "rotate half" layout transformers uses (the angle of
 * channel i and of channel i + D/2 is the same). Computed in float32 in the graph, as
 * transformers computes them, so long positions round as they do there.
 */
export function rotaryTables(g: Graph, positions: Tensor, inverseFrequencies: Float32Array): { cos: Tensor; sin: Tensor } {
  const [B, T] = positions.shape;
  const half = inverseFrequencies.length;
  const angles = g.mul(g.unsqueeze(g.cast(positions, 'float32'), [-1]), g.const(inverseFrequencies, { dtype: 'float32', shape: [half] })); // [B, T, D/2]
  const both = g.concat([angles, angles], -1); // [B, T, D]
  const table = (op: 'Cos' | 'Sin') => g.unsqueeze(g.custom(op, [both], { dtype: 'float32', shape: [B!, T!, 2 * half] }), [1]);
  return { cos: table('Cos'), sin: table('Sin') };
}

/** x [B, H, T, D] rotated by the tables of rotaryTables: x cos + rotate_half(x) sin. */
export function applyRotary(g: Graph, x: Tensor, tables: { cos: Tensor; sin: Tensor }): Tensor {
  const D = x.shape[x.rank - 1] as number;
  const rotated = g.concat([g.neg(g.slice(x, -1, D / 2, D)), g.slice(x, -1, 0, D / 2)], -1);
  return g.add(g.mul(x, tables.cos), g.mul(rotated, tables.sin));
}
