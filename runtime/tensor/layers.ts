// The layers of pretrained language models built from graph primitives, written once and shared
// by every family in runtime/lm (Llama, Qwen2, Qwen3 use RMSNorm, SiLU and rotary embeddings;
// GPT-2 the graph's own layerNorm and gelu). Each is differentiable through the primitives'
// rules; each computes what transformers' float32 eager code computes, in the same order.
import { ORT_DOMAIN, type Graph } from './graph.js';
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

// Fused forms of the same layers, for graphs that are only run forward (the chunked decoder): one
// onnxruntime kernel each where the primitives above take six (RMSNorm) or seven (a rotation). On
// a GPU every kernel is a dispatch, and a decode step of a small batch is mostly dispatches.
// Neither has a gradient rule; both compute in float32 what the primitives compute, in another
// order (within a few float32 ulps).

/** RMSNorm as onnxruntime's SimplifiedLayerNormalization (an op of its own, in the default domain): x / sqrt(mean(x^2) + epsilon) * weight over the last axis. */
export function fusedRmsNorm(g: Graph, x: Tensor, weight: Tensor, epsilon: number): Tensor {
  return g.custom('SimplifiedLayerNormalization', [x, weight], { dtype: x.dtype, shape: x.shape, attrs: { axis: -1, epsilon } });
}

/**
 * The residual add and the RMSNorm after it in one kernel, onnxruntime's
 * SkipSimplifiedLayerNormalization (com.microsoft): `sum` = x + skip, `normed` = fusedRmsNorm(sum).
 * x and skip are [B, T, C] or [N, C] (the kernel takes no other rank).
 */
export function fusedSkipRmsNorm(g: Graph, x: Tensor, skip: Tensor, weight: Tensor, epsilon: number): { normed: Tensor; sum: Tensor } {
  // Outputs: the norm, its mean and inverse deviation (unread), the sum.
  const stat = { dtype: x.dtype, shape: [...x.shape.slice(0, -1), 1] };
  const [normed, , , sum] = g.customOutputs('SkipSimplifiedLayerNormalization', [x, skip, weight], [{ dtype: x.dtype, shape: x.shape }, stat, stat, { dtype: x.dtype, shape: x.shape }], { attrs: { epsilon }, domain: ORT_DOMAIN });
  return { normed: normed!, sum: sum! };
}

/**
 * rotaryTables' values for every position below `positions`, as onnxruntime's RotaryEmbedding
 * reads them: cos and sin [positions, D/2] (the "rotate half" layout repeats them for the second
 * half). Each angle is the float32 product position x frequency, as transformers and
 * rotaryTables compute it, its cosine and sine rounded to float32. Made once per graph for the
 * same frequencies and length: a graph of K decode steps holds one pair.
 */
export function rotaryCaches(g: Graph, inverseFrequencies: Float32Array, positions: number): { cos: Tensor; sin: Tensor } {
  return g.memo(`rotaryCaches:${positions}:${inverseFrequencies.join(',')}`, () => buildRotaryCaches(g, inverseFrequencies, positions));
}

function buildRotaryCaches(g: Graph, inverseFrequencies: Float32Array, positions: number): { cos: Tensor; sin: Tensor } {
  const half = inverseFrequencies.length;
  const cos = new Float32Array(positions * half);
  const sin = new Float32Array(positions * half);
  for (let p = 0; p < positions; p++) {
    for (let i = 0; i < half; i++) {
      const angle = Math.fround(p * inverseFrequencies[i]!);
      cos[p * half + i] = Math.cos(angle);
      sin[p * half + i] = Math.sin(angle);
    }
  }
  return { cos: g.const(cos, { dtype: 'float32', shape: [positions, half] }), sin: g.const(sin, { dtype: 'float32', shape: [positions, half] }) };
}

/**
 * x [B, H, T, D], or [B, T, H * D] with `heads` H, rotated at int64 `positions` [B, T] by
 * onnxruntime's RotaryEmbedding over rotaryCaches' tables: applyRotary's result (on the heads'
 * layout). Positions must lie below the tables' length.
 */
export function fusedRotary(g: Graph, x: Tensor, positions: Tensor, caches: { cos: Tensor; sin: Tensor }, heads?: number): Tensor {
  if (x.rank === 3 && heads === undefined) throw new Error('fusedRotary: a [B, T, H * D] input needs its number of heads');
  return g.custom('RotaryEmbedding', [x, positions, caches.cos, caches.sin], { dtype: x.dtype, shape: x.shape, attrs: { interleaved: 0, ...(x.rank === 3 ? { num_heads: heads! } : {}) }, domain: ORT_DOMAIN });
}

/** One decode step's inputs of groupQueryAttention, per row: where its new key goes and which keys it sees. */
export interface GroupQueryStep {
  /** int32 [B]: the cache slot the step writes (its keys so far, less one). */
  readonly seqlens: Tensor;
  /** int32 [1]: the slots the step attends to (the slot it writes, plus one). */
  readonly total: Tensor;
  /** float32 [B, 1, 1, total]: added to each row's scores (MASKED on its left padding). */
  readonly bias: Tensor;
}

/**
 * Attention of one new position per row as onnxruntime's GroupQueryAttention: q [B, 1, H * D]
 * against the cache `past` [B, KV, C, D] with the step's k and v [B, 1, KV * D] written at slot
 * `step.seqlens` (in place: the cache keeps its capacity C), over the slots below `step.total`,
 * `step.bias` added; softmax(q k^T / sqrt(D) + bias) v, each query head reading key/value head
 * h / (H / KV). Returns the attention [B, 1, H * D] and the cache written. One kernel where the
 * primitives take a dozen (the write, the transposes, two products, the scale, the mask, the softmax).
 * onnxruntime runs it for one new position a row when rows carry a cache (more need a batch of one).
 * A model must read all three outputs: onnxruntime's CPU kernel attends over the caches it writes,
 * and without an output to write one into it reads garbage.
 */
export function groupQueryAttention(g: Graph, q: Tensor, k: Tensor, v: Tensor, past: { key: Tensor; value: Tensor }, step: GroupQueryStep, heads: number, kvHeads: number): { output: Tensor; key: Tensor; value: Tensor } {
  const none = g.absent();
  const [output, key, value] = g.customOutputs(
    'GroupQueryAttention',
    [q, k, v, past.key, past.value, step.seqlens, step.total, none, none, none, step.bias],
    [{ dtype: q.dtype, shape: q.shape }, { dtype: past.key.dtype, shape: past.key.shape }, { dtype: past.value.dtype, shape: past.value.shape }],
    { attrs: { num_heads: heads, kv_num_heads: kvHeads }, domain: ORT_DOMAIN },
  );
  return { output: output!, key: key!, value: value! };
}
