// The decoder-only transformer (GPT-2's layout, Radford et al. 2019) as Graph ops: token and
// learned position embeddings, `layers` pre-LayerNorm blocks (causal multi-head
// self-attention, then a GELU MLP, each added to the residual stream), a final LayerNorm and
// an LM head tied to the token embeddings. Two graphs share the weights:
//
// - `sequenceLogits`: next-token logits at every position of fixed-width token rows, for
//   training (every gradient comes from the tensor layer's autodiff);
// - `generationStep`: one new token per row with the keys and values of the earlier
//   positions as inputs and the extended ones as outputs: the exported model, which
//   `rlx eval` steps. sampler.ts computes the same step in JS.
//
// Weights are named as in GPT-2's checkpoints (`h.0.attn.qkv.weight`), laid out [in, out]
// (y = x @ W + b) as everywhere in runtime/.
import type { Rng } from '../../../shared/random.js';
import { Graph, type Tensor, WeightStore } from '../../tensor/index.js';
import { normal } from '../../tensor/init.js';
import { BOS, PAD } from '../../text/tokenizer.js';

/** GPT-2's initialiser scale. */
const INIT_STD = 0.02;
/** LayerNormalization's epsilon, here and in the JS sampler. */
export const LN_EPSILON = 1e-5;

/** The dimensions of one model: settings plus the vocabulary size. */
export interface ModelShape {
  readonly layers: number;
  /** C */
  readonly width: number;
  /** H */
  readonly heads: number;
  /** Rows of the position table. */
  readonly context: number;
  /** V */
  readonly vocab: number;
}

export const headWidth = (m: ModelShape): number => m.width / m.heads;

/**
 * Adds the model's weights to `store`: normal(0, 0.02), the projections into the residual
 * stream scaled by 1/sqrt(2 layers) (GPT-2: each block adds two of them), biases 0,
 * LayerNorm scales 1.
 */
export function addModelWeights(store: WeightStore, m: ModelShape, rng: Rng): void {
  const random = () => rng.uniform();
  const C = m.width;
  const gaussian = (std: number) => (n: number) => normal(random, n, std);
  const residualStd = INIT_STD / Math.sqrt(2 * m.layers);
  store.add('wte', [m.vocab, C], gaussian(INIT_STD));
  store.add('wpe', [m.context, C], gaussian(INIT_STD));
  const layerNorm = (name: string) => {
    store.add(`${name}.scale`, [C], (n) => new Float32Array(n).fill(1));
    store.add(`${name}.bias`, [C]);
  };
  const linear = (name: string, inDim: number, outDim: number, std: number) => {
    store.add(`${name}.weight`, [inDim, outDim], gaussian(std));
    store.add(`${name}.bias`, [outDim]);
  };
  for (let l = 0; l < m.layers; l++) {
    layerNorm(`h.${l}.ln1`);
    linear(`h.${l}.attn.qkv`, C, 3 * C, INIT_STD);
    linear(`h.${l}.attn.out`, C, C, residualStd);
    layerNorm(`h.${l}.ln2`);
    linear(`h.${l}.mlp.up`, C, 4 * C, INIT_STD);
    linear(`h.${l}.mlp.down`, 4 * C, C, residualStd);
  }
  layerNorm('lnf');
}

type Weights = Readonly<Record<string, Tensor>>;

const norm = (g: Graph, x: Tensor, w: Weights, name: string) => g.layerNorm(x, w[`${name}.scale`]!, w[`${name}.bias`]!, LN_EPSILON);
const dense = (g: Graph, x: Tensor, w: Weights, name: string) => g.linear(x, w[`${name}.weight`]!, w[`${name}.bias`]!);

/** The block's MLP and the residual additions around attention and MLP. */
function block(g: Graph, x: Tensor, w: Weights, l: number, attention: (h: Tensor) => Tensor): Tensor {
  const mixed = g.add(x, dense(g, attention(norm(g, x, w, `h.${l}.ln1`)), w, `h.${l}.attn.out`));
  const up = g.gelu(dense(g, norm(g, mixed, w, `h.${l}.ln2`), w, `h.${l}.mlp.up`));
  return g.add(mixed, dense(g, up, w, `h.${l}.mlp.down`));
}

/** What is added to the logits: -1e9 for <pad> and <bos>, which a completion never contains. */
export function logitBias(vocab: number): number[] {
  return Array.from({ length: vocab }, (_, id) => (id === PAD || id === BOS ? NEVER : 0));
}
export const NEVER = -1e9;

/**
 * Final LayerNorm and the LM head (the transposed token embeddings). The model never writes
 * <pad> or <bos>: a completion is characters and one <eos>, so a PAD slot always means "after
 * the end", in sampling and in training alike.
 */
function head(g: Graph, x: Tensor, w: Weights, m: ModelShape): Tensor {
  const logits = g.matmul(norm(g, x, w, 'lnf'), g.transpose(w.wte!));
  return g.add(logits, g.const(logitBias(m.vocab), { dtype: logits.dtype }));
}

/**
 * Next-token logits [B, T, V] at every position of `tokens`, int64 [B, T] with T a number
 * (the causal mask is a [T, T] constant); T <= context. Position t sees positions 0..t.
 */
export function sequenceLogits(g: Graph, w: Weights, m: ModelShape, tokens: Tensor): Tensor {
  const T = tokens.shape[1];
  if (typeof T !== 'number' || T > m.context) throw new Error(`sequenceLogits: token rows must have a fixed width of at most context ${m.context}, got ${tokens.describe()}`);
  const [C, H, D] = [m.width, m.heads, headWidth(m)];
  const splitHeads = (x: Tensor) => g.transpose(g.reshape(x, [0, 0, H, D]), [0, 2, 1, 3]); // [B, T, C] -> [B, H, T, D]
  const mergeHeads = (x: Tensor) => g.reshape(g.transpose(x, [0, 2, 1, 3]), [0, 0, C]);
  const causal = g.const(
    Array.from({ length: T * T }, (_, i) => (i % T <= Math.floor(i / T) ? 1 : 0)),
    { dtype: 'bool', shape: [T, T] },
  );
  const attention = (l: number) => (h: Tensor) => {
    // q, k and v from slices of the qkv weight rather than of its [B, T, 3C] output: the
    // gradient of an output slice is a zero-padded [B, T, 3C] tensor per slice, summed; of a
    // weight slice, a padded [C, 3C] one (in an SFT step at batch 256, ~5% less time).
    const part = (name: string, i: number) => g.slice(w[`h.${l}.attn.qkv.${name}`]!, -1, i * C, (i + 1) * C);
    const [q, k, v] = [0, 1, 2].map((i) => splitHeads(g.linear(h, part('weight', i), part('bias', i))));
    const scores = g.mul(g.matmul(q!, g.transpose(k!, [0, 1, 3, 2])), 1 / Math.sqrt(D));
    return mergeHeads(g.matmul(g.softmax(g.where(causal, scores, -1e9)), v!));
  };
  const positions = g.const([...Array(T).keys()], { dtype: 'int64' });
  let x = g.add(g.gather(w.wte!, tokens), g.gather(w.wpe!, positions));
  for (let l = 0; l < m.layers; l++) x = block(g, x, w, l, attention(l));
  return head(g, x, w, m);
}

/** Input and output names of the generation step (the exported model's interface). */
export const STEP_IO = {
  token: 'token',
  position: 'position',
  pastKey: (l: number) => `past_key.${l}`,
  pastValue: (l: number) => `past_value.${l}`,
  logits: 'logits',
  presentKey: (l: number) => `present_key.${l}`,
  presentValue: (l: number) => `present_value.${l}`,
} as const;

/**
 * One generation step. Inputs: `token` int64 [B] (each row's token at this position),
 * `position` int64 [1] (the same for every row: prompts are left-padded to one width), and
 * per layer `past_key.l`, `past_value.l` float32 [B, H, P, D] (P = position; zero-length at
 * the first step). Outputs: `logits` [B, V] for the next token, and `present_key.l`,
 * `present_value.l` [B, H, P + 1, D]. The single query attends to every key, so no mask.
 */
export function generationStep(g: Graph, w: Weights, m: ModelShape): Record<string, Tensor> {
  const [C, H, D] = [m.width, m.heads, headWidth(m)];
  const token = g.input(STEP_IO.token, 'int64', ['B']);
  const position = g.input(STEP_IO.position, 'int64', [1]);
  const outputs: Record<string, Tensor> = {};
  const attention = (l: number) => (h: Tensor) => {
    const qkv = dense(g, h, w, `h.${l}.attn.qkv`);
    const [q, k, v] = [0, 1, 2].map((i) => g.reshape(g.slice(qkv, -1, i * C, (i + 1) * C), [0, H, 1, D])); // [B, H, 1, D]
    const keys = g.concat([g.input(STEP_IO.pastKey(l), 'float32', ['B', H, 'P', D]), k!], 2);
    const values = g.concat([g.input(STEP_IO.pastValue(l), 'float32', ['B', H, 'P', D]), v!], 2);
    outputs[STEP_IO.presentKey(l)] = keys;
    outputs[STEP_IO.presentValue(l)] = values;
    const scores = g.mul(g.matmul(q!, g.transpose(keys, [0, 1, 3, 2])), 1 / Math.sqrt(D)); // [B, H, 1, P + 1]
    return g.reshape(g.matmul(g.softmax(scores), values), [0, C]);
  };
  let x = g.add(g.gather(w.wte!, token), g.gather(w.wpe!, position)); // [B, C] + [1, C]
  for (let l = 0; l < m.layers; l++) x = block(g, x, w, l, attention(l));
  outputs[STEP_IO.logits] = head(g, x, w, m);
  return outputs;
}
