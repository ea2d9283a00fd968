// The weights of each family by their Hugging Face names (each family's definition names them,
// hf/families/), with the shape each must have in runtime/ (linear weights [in, out]) and whether
// the stored tensor is nn.Linear's [out, in] (transposed on loading and on export). One list
// serves loading (runtime/lm/load.ts), the model (model.ts), random initialisation, export and
// the memory estimate.
import type { LmConfig } from './config.js';
import { definitionOf } from './families/index.js';

export interface LinearNames {
  readonly weight: string;
  readonly bias?: string;
}

export interface LayerWeightNames {
  readonly attentionNorm: { readonly weight: string; readonly bias?: string };
  /** Separate projections (Llama, Qwen) or GPT-2's fused c_attn. */
  readonly q?: LinearNames;
  readonly k?: LinearNames;
  readonly v?: LinearNames;
  readonly qkv?: LinearNames;
  readonly qNorm?: string;
  readonly kNorm?: string;
  readonly out: LinearNames;
  readonly mlpNorm: { readonly weight: string; readonly bias?: string };
  readonly gate?: LinearNames;
  readonly up: LinearNames;
  readonly down: LinearNames;
}

export interface ModelWeightNames {
  readonly embed: string;
  readonly positionTable?: string;
  readonly finalNorm: { readonly weight: string; readonly bias?: string };
  /** The untied LM head. */
  readonly head?: string;
}

/** The weights outside the blocks: the family's names (hf/families/). */
export function modelWeightNames(c: LmConfig): ModelWeightNames {
  return definitionOf(c).modelWeightNames(c);
}

/** Block `l`'s weights: the family's names (hf/families/). */
export function layerWeightNames(c: LmConfig, l: number): LayerWeightNames {
  return definitionOf(c).layerWeightNames(c, l);
}

/** One weight the model reads: its name, its shape in runtime/, and how it is stored in a checkpoint. */
export interface WeightSpec {
  readonly name: string;
  /** Shape as the graph reads it (linear weights [in, out]). */
  readonly shape: readonly number[];
  /** Stored as nn.Linear's [out, in]: transposed on loading and on export. */
  readonly transposed: boolean;
  /** What it is, for initialisation: a norm's scale starts at 1, biases at 0. */
  readonly role: 'embedding' | 'linear' | 'bias' | 'norm' | 'normBias';
}

/** Every weight of the model, in a fixed order (embedding, layers, final norm, head). */
export function weightSpecs(c: LmConfig): WeightSpec[] {
  const specs: WeightSpec[] = [];
  const C = c.width;
  const torchLinear = definitionOf(c).linearStoredTransposed;
  const addLinear = (l: LinearNames, inDim: number, outDim: number) => {
    specs.push({ name: l.weight, shape: [inDim, outDim], transposed: torchLinear, role: 'linear' });
    if (l.bias) specs.push({ name: l.bias, shape: [outDim], transposed: false, role: 'bias' });
  };
  const addNorm = (n: { weight: string; bias?: string }, size: number) => {
    specs.push({ name: n.weight, shape: [size], transposed: false, role: 'norm' });
    if (n.bias) specs.push({ name: n.bias, shape: [size], transposed: false, role: 'normBias' });
  };
  const names = modelWeightNames(c);
  specs.push({ name: names.embed, shape: [c.vocab, C], transposed: false, role: 'embedding' });
  if (names.positionTable) specs.push({ name: names.positionTable, shape: [c.context, C], transposed: false, role: 'embedding' });
  const [q, kv] = [c.heads * c.headDim, c.kvHeads * c.headDim];
  for (let l = 0; l < c.layers; l++) {
    const n = layerWeightNames(c, l);
    addNorm(n.attentionNorm, C);
    if (n.qkv) addLinear(n.qkv, C, 3 * q);
    else {
      addLinear(n.q!, C, q);
      addLinear(n.k!, C, kv);
      addLinear(n.v!, C, kv);
    }
    if (n.qNorm) specs.push({ name: n.qNorm, shape: [c.headDim], transposed: false, role: 'norm' });
    if (n.kNorm) specs.push({ name: n.kNorm, shape: [c.headDim], transposed: false, role: 'norm' });
    addLinear(n.out, q, C);
    addNorm(n.mlpNorm, C);
    if (n.gate) addLinear(n.gate, C, c.mlpWidth);
    addLinear(n.up, C, c.mlpWidth);
    addLinear(n.down, c.mlpWidth, C);
  }
  addNorm(names.finalNorm, C);
  // The head is stored [V, C] like the embedding (nn.Linear(C, V)); the graph reads it [C, V].
  if (names.head) specs.push({ name: names.head, shape: [C, c.vocab], transposed: true, role: 'linear' });
  return specs;
}

/** [rows, cols] -> [cols, rows]. */
export function transpose2d<T extends Float32Array | Uint16Array>(data: T, rows: number, cols: number): T {
  const out = (data instanceof Float32Array ? new Float32Array(data.length) : new Uint16Array(data.length)) as T;
  // Blocked so that both sides stay in cache for large matrices.
  const BLOCK = 64;
  for (let r0 = 0; r0 < rows; r0 += BLOCK) {
    for (let c0 = 0; c0 < cols; c0 += BLOCK) {
      const rEnd = Math.min(r0 + BLOCK, rows);
      const cEnd = Math.min(c0 + BLOCK, cols);
      for (let r = r0; r < rEnd; r++) for (let k = c0; k < cEnd; k++) out[k * rows + r] = data[r * cols + k]!;
    }
  }
  return out;
}
