// The `transformer` policy's model: a GPT-2 (runtime/lm/, model_type gpt2) of the spec's
// layers, width, heads and context over the task's characters, randomly initialised as GPT-2
// is (lm/init.ts). What is particular to the character level lives here:
//
// - weight names: the policy's WeightStore (and so its checkpoints) keeps the short names it
//   has always had (`h.0.attn.qkv.weight`); the model reads them under GPT-2's Hugging Face
//   names (`transformer.h.0.attn.c_attn.weight`), mapped one to one by `gpt2Name`;
// - positions and attention: the model reads the left padding of the token layout as ordinary
//   tokens (layout.ts), so every row's positions count from 0 and only the future is masked;
// - the logits: <pad> and <bos> are never written (logitBias).
import type { Rng } from '../../../shared/random.js';
import type { Graph, Tensor, WeightStore } from '../../tensor/index.js';
import { gpt2Dims, type Gpt2Dims, type LmConfig } from '../../../hf/config.js';
import { gpt2InitialWeights } from '../../lm/init.js';
import { causalLm, MASKED, type Weights } from '../../lm/model.js';
import { BOS, PAD } from './char-tokenizer.js';

/** The dimensions of one model: settings plus the vocabulary size. */
export type ModelShape = Gpt2Dims;

/** The model's LmConfig. */
export const lmConfig = (m: ModelShape): LmConfig => gpt2Dims(m);

/**
 * GPT-2's Hugging Face name of a weight of the policy's store (`wte` ->
 * `transformer.wte.weight`, `h.0.ln1.scale` -> `transformer.h.0.ln_1.weight`, ...).
 */
export function gpt2Name(name: string): string {
  const layer = /^h\.(\d+)\.(.+)$/.exec(name);
  if (layer) return `transformer.h.${layer[1]}.${LAYER_NAMES[layer[2]!] ?? unknownWeight(name)}`;
  return TOP_NAMES[name] ?? unknownWeight(name);
}

/** The store's name of a GPT-2 weight: gpt2Name's inverse. */
export function storeName(hfName: string): string {
  const layer = /^transformer\.h\.(\d+)\.(.+)$/.exec(hfName);
  if (layer) return `h.${layer[1]}.${LAYER_NAMES_BACK[layer[2]!] ?? unknownWeight(hfName)}`;
  return TOP_NAMES_BACK[hfName] ?? unknownWeight(hfName);
}

const TOP_NAMES: Readonly<Record<string, string>> = {
  wte: 'transformer.wte.weight',
  wpe: 'transformer.wpe.weight',
  'lnf.scale': 'transformer.ln_f.weight',
  'lnf.bias': 'transformer.ln_f.bias',
};
const LAYER_NAMES: Readonly<Record<string, string>> = {
  'ln1.scale': 'ln_1.weight',
  'ln1.bias': 'ln_1.bias',
  'attn.qkv.weight': 'attn.c_attn.weight',
  'attn.qkv.bias': 'attn.c_attn.bias',
  'attn.out.weight': 'attn.c_proj.weight',
  'attn.out.bias': 'attn.c_proj.bias',
  'ln2.scale': 'ln_2.weight',
  'ln2.bias': 'ln_2.bias',
  'mlp.up.weight': 'mlp.c_fc.weight',
  'mlp.up.bias': 'mlp.c_fc.bias',
  'mlp.down.weight': 'mlp.c_proj.weight',
  'mlp.down.bias': 'mlp.c_proj.bias',
};
const invert = (r: Readonly<Record<string, string>>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [v, k]));
const TOP_NAMES_BACK = invert(TOP_NAMES);
const LAYER_NAMES_BACK = invert(LAYER_NAMES);

function unknownWeight(name: string): never {
  throw new Error(`the transformer policy has no weight '${name}' (a bug: model.ts maps every GPT-2 weight)`);
}

/** Adds the model's weights to `store`, drawn as GPT-2 draws them (lm/init.ts), under the store's names. */
export function addModelWeights(store: WeightStore, m: ModelShape, rng: Rng): void {
  for (const { spec, data } of gpt2InitialWeights(lmConfig(m), rng)) store.add(storeName(spec.name), spec.shape, data);
}

/** The store's declared weights under GPT-2's names, as causalLm reads them. */
export function gpt2Weights(w: Readonly<Record<string, Tensor>>): Weights {
  return Object.fromEntries(Object.entries(w).map(([name, t]) => [gpt2Name(name), t]));
}

/** What is added to the logits: MASKED for <pad> and <bos>, which a completion never contains. */
export function logitBias(vocab: number): number[] {
  return Array.from({ length: vocab }, (_, id) => (id === PAD || id === BOS ? MASKED : 0));
}

/**
 * Next-token logits [B, T, V] at every position of `tokens`, int64 [B, T] with T a number;
 * T <= context. Position t sees positions 0..t (the causal mask is a [1, T, T] constant).
 * `w`: the store's declared weights (store names).
 */
export function sequenceLogits(g: Graph, w: Readonly<Record<string, Tensor>>, m: ModelShape, tokens: Tensor): Tensor {
  const T = tokens.shape[1];
  if (typeof T !== 'number' || T > m.context) throw new Error(`sequenceLogits: token rows must have a fixed width of at most context ${m.context}, got ${tokens.describe()}`);
  // Positions [T], broadcast over the rows by the addition to the token embeddings: the same
  // values as [1, T], but the gradient of the position table then sums the rows as it always
  // has (with [1, T] the sum goes another way, and results moved in the last bits).
  const positions = g.const([...Array(T).keys()], { dtype: 'int64' });
  const mask = g.const(
    Array.from({ length: T * T }, (_, i) => (i % T <= Math.floor(i / T) ? 0 : MASKED)),
    { dtype: w.wte!.dtype, shape: [1, T, T] }, // float64 when gradients are checked
  );
  return causalLm(g, gpt2Weights(w), lmConfig(m), { tokens, positions, mask }, { logitBias: logitBias(m.vocab) }).logits;
}
