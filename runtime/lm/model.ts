// A causal language model of any family rlx reads (Llama, Qwen2, Qwen3, GPT-2) as Graph ops,
// written once: the block serves training over whole rows and decoding with a key/value cache
// alike, as transformers' attention serves prefill and decode. Families differ only in what
// LmConfig says: the norm (RMSNorm or LayerNorm), positions (rotary or a learned table), the MLP
// (SwiGLU or GELU), biases, Qwen3's per-head q/k norms, grouped-query attention, tied heads.
//
// Weights keep their Hugging Face names (weights.ts lists them), with every linear weight held
// [in, out] (y = x @ W + b) as everywhere in runtime/: nn.Linear's [out, in] is transposed on
// loading and back on export; GPT-2's Conv1D is [in, out] already.
//
// Inputs, for a batch of B rows, T new positions each, after P cached ones (P = 0 in training):
// - `tokens` int64 [B, T];
// - `positions` int64 [B, T]: each token's position in its own row, which starts after its left
//   padding (rotary angles and GPT-2's position table read it);
// - `mask` float32 [B, T, P + T]: added to the attention scores, 0 where a query may see a key
//   and MASKED where not (the future, and each row's padding). The caller builds it (lm/rows.ts),
//   so one graph serves any padding.
import type { Graph, Tensor } from '../tensor/index.js';
import { applyRotary, fusedRmsNorm, fusedRotary, fusedSkipRmsNorm, groupQueryAttention, rmsNorm, rotaryCaches, rotaryTables, swiglu, type GroupQueryStep } from '../tensor/layers.js';
import type { LmConfig } from '../../hf/config.js';
import { inverseFrequencies } from '../../hf/rope.js';
import { layerWeightNames, modelWeightNames, type LinearNames } from '../../hf/weights.js';

/** What the mask adds where a key is hidden: far below any score, finite so a row with nothing visible stays finite. */
export const MASKED = -1e9;

export type Weights = Readonly<Record<string, Tensor>>;

export interface LmInputs {
  readonly tokens: Tensor;
  readonly positions: Tensor;
  /** [B, T, S]: added to the scores of each query over each key (MASKED: not seen). Unused with `groupQuery`. */
  readonly mask?: Tensor;
  /** Per layer, the cached keys and values [B, KV, P, D]: decoding. Absent in training. */
  readonly past?: readonly { readonly key: Tensor; readonly value: Tensor }[];
  /**
   * How layer `layer`'s new keys and values [B, KV, T, D] join `past` (default: appended, a
   * Concat on the length axis). The chunked decoder writes them in place into a cache of fixed
   * capacity instead (lm/chunked-cache.ts); `mask` then spans that capacity.
   */
  readonly joinCache?: (layer: number, past: { readonly key: Tensor; readonly value: Tensor }, key: Tensor, value: Tensor) => { key: Tensor; value: Tensor };
  /**
   * One new position a row (T = 1) attended by onnxruntime's GroupQueryAttention over `past`, a
   * cache of fixed capacity written in place (tensor/layers.ts): the chunked decoder's later steps,
   * with `fusedOps`. `mask` and `joinCache` are then unused.
   */
  readonly groupQuery?: GroupQueryStep;
}

export interface LmOutputs {
  /** Next-token logits [B, T, V]. */
  readonly logits: Tensor;
  /** Per layer, the keys and values of all P + T positions [B, KV, P + T, D]. */
  readonly present: readonly { readonly key: Tensor; readonly value: Tensor }[];
}

/** A LoRA adapter on a linear layer (Hu et al. 2021): y += scale * (x @ A) @ B, A [in, r], B [r, out]. */
export interface LoraWeights {
  readonly scale: number;
  /** By base weight name (e.g. model.layers.0.self_attn.q_proj.weight): the adapter's A and B names in the weights. */
  readonly adapters: ReadonlyMap<string, { readonly a: string; readonly b: string }>;
}

export interface LmOptions {
  readonly lora?: LoraWeights;
  /** Logits of the last position only ([B, 1, V]): decoding needs no more, and at a large vocabulary a prompt's logits at every position would take gigabytes. */
  readonly lastPositionOnly?: boolean;
  /** Added to the logits [V]: the character-level policy's MASKED on tokens a completion never contains. */
  readonly logitBias?: readonly number[];
  /**
   * Attention's reshapes without a -1 (T written out where it is static, else an Unsqueeze and
   * 0s, or a Squeeze: the same values, other ops), so that onnxruntime's shape inference names
   * every dim. A dim it cannot
   * name makes the tensor unmatchable in its allocation planner, which compares each new tensor
   * with every freed one: set-up grows with the square of such tensors. The chunked decoder
   * (K x layers attention blocks) sets it; other graphs keep their ops as they were.
   */
  readonly namedDims?: boolean;
  /**
   * RMSNorm (with the residual add before it) and the rotary embedding as onnxruntime's fused
   * kernels (tensor/layers.ts: one dispatch each on a GPU, where the primitives take six and seven), for graphs only run
   * forward: these ops have no gradient rule. The rotation reads tables of `fusedOps.positions`
   * positions, so every position fed must lie below it. `attention`: the chunked decoder's later
   * steps attend by GroupQueryAttention (LmInputs.groupQuery). The chunked decoder sets it.
   */
  readonly fusedOps?: { readonly positions: number; readonly attention?: boolean };
}

/** The model over `inputs`; `w` holds every weight of modelWeightNames(c) (and the adapters of `options.lora`). */
export function causalLm(g: Graph, w: Weights, c: LmConfig, inputs: LmInputs, options: LmOptions = {}): LmOutputs {
  const lm = lmBuilder(g, w, c, inputs, options);
  const stream = lm.embed();
  const present: { key: Tensor; value: Tensor }[] = [];
  for (let l = 0; l < c.layers; l++) present.push(lm.block(l, stream));
  return { logits: lm.head(stream), present };
}

/**
 * The residual stream between blocks: x, plus what the last block added to it where the next
 * norm's fused kernel makes the sum (SkipSimplifiedLayerNormalization: one dispatch for the add
 * and the norm); without fused RMSNorms `added` is always undefined, the sum made at once.
 */
export interface ResidualStream {
  x: Tensor;
  added?: Tensor;
}

/**
 * The model in pieces over `inputs`: the embedding, one decoder block at a time, the head. The
 * whole model (causalLm) chains them; training with recomputed activations (segmented-step.ts)
 * builds one block alone, over a fed residual stream, and the head alone over the last block's.
 */
export function lmBuilder(g: Graph, w: Weights, c: LmConfig, inputs: LmInputs, options: LmOptions = {}) {
  const lora = options.lora;
  const names = modelWeightNames(c);
  const weight = (name: string): Tensor => w[name] ?? missing(name);
  const linear = (x: Tensor, l: LinearNames): Tensor => {
    const y = g.linear(x, weight(l.weight), l.bias ? weight(l.bias) : undefined);
    const adapter = lora?.adapters.get(l.weight);
    if (!adapter) return y;
    return g.add(y, g.mul(g.matmul(g.matmul(x, weight(adapter.a)), weight(adapter.b)), lora!.scale));
  };
  const fused = options.fusedOps;
  const rms = (x: Tensor, w: Tensor) => (fused ? fusedRmsNorm : rmsNorm)(g, x, w, c.norm.epsilon);
  const norm = (x: Tensor, n: { weight: string; bias?: string }): Tensor =>
    c.norm.kind === 'rms' ? rms(x, weight(n.weight)) : g.layerNorm(x, weight(n.weight), weight(n.bias!), c.norm.epsilon);

  const { tokens, positions } = inputs;
  // The fused rotation reads tables of every position; the primitives compute this run's.
  let rotate: ((x: Tensor) => Tensor) | undefined;
  let rotate3d: ((x: Tensor, heads: number) => Tensor) | undefined;
  if (c.rope && fused) {
    const caches = rotaryCaches(g, inverseFrequencies(c), fused.positions);
    rotate = (x) => fusedRotary(g, x, positions, caches);
    rotate3d = (x, heads) => fusedRotary(g, x, positions, caches, heads);
  } else if (c.rope) {
    const tables = rotaryTables(g, positions, inverseFrequencies(c));
    rotate = (x) => applyRotary(g, x, tables);
  }
  // [B, T, P + T] -> [B, 1, 1, T, P + T]: broadcast over key/value heads and each one's query group.
  const mask = inputs.mask ? g.unsqueeze(inputs.mask, [1, 2]) : undefined;

  const [H, KV, D] = [c.heads, c.kvHeads, c.headDim];
  const G = H / KV;
  type LayerNames = ReturnType<typeof layerWeightNames>;
  type Attended = { readonly merged: Tensor; readonly joined: { key: Tensor; value: Tensor } };
  // The primitives' attention: q, k, v [B, T, heads * D] split into heads, rotated, the new keys
  // joined to the cache; returns the heads merged back [B, T, H * D] and the cache joined.
  const attention = (l: number, n: LayerNames, q: Tensor, k: Tensor, v: Tensor): Attended => {
    // [B, T, heads * D] -> [B, heads, T, D], with Qwen3's norm over each head's channels first.
    const heads = (y: Tensor, count: number, headNorm?: string) => {
      const split = g.reshape(y, [0, 0, count, D]);
      return g.transpose(headNorm ? rms(split, weight(headNorm)) : split, [0, 2, 1, 3]);
    };
    q = heads(q, H, n.qNorm);
    k = heads(k, KV, n.kNorm);
    v = heads(v, KV);
    if (rotate) {
      q = rotate(q);
      k = rotate(k);
    }
    const past = inputs.past?.[l];
    const joined = !past ? { key: k, value: v } : inputs.joinCache ? inputs.joinCache(l, past, k, v) : { key: g.concat([past.key, k], 2), value: g.concat([past.value, v], 2) }; // [B, KV, P + T, D]
    const [keys, values] = [joined.key, joined.value];
    // Grouped-query attention without repeating keys: queries [B, KV, G, T, D] against keys
    // [B, KV, 1, D, S], broadcast over the group.
    // [B, H, T, D] -> [B, KV, G, T, D]. With named dims: T written out where it is static (one
    // decode step), else via [B, 1, H, T, D], whose T and D the 0s copy.
    const T = q.shape[2]!;
    const named = options.namedDims ? (typeof T === 'number' ? 'static' : 'symbolic') : undefined;
    const grouped = named === 'static' ? g.reshape(q, [0, KV, G, T as number, D]) : named === 'symbolic' ? g.reshape(g.unsqueeze(q, [1]), [0, KV, G, 0, 0]) : g.reshape(q, [0, KV, G, -1, D]);
    if (!mask) throw new Error('causalLm: attention needs a mask (only groupQuery steps go without)');
    const scores = g.add(g.mul(g.matmul(grouped, g.transpose(g.unsqueeze(keys, [2]), [0, 1, 2, 4, 3])), 1 / Math.sqrt(D)), mask);
    const mixed = g.matmul(g.softmax(scores), g.unsqueeze(values, [2])); // [B, KV, G, T, D]
    // [B, KV, G, T, D] -> [B, H, T, D]; with named dims as above (via [B, 1, H, T, D]).
    const byHead =
      named === 'static'
        ? g.reshape(mixed, [0, H, T as number, D])
        : named === 'symbolic'
          ? g.custom('Squeeze', [g.reshape(mixed, [0, 1, H, 0, 0]), g.const([1], { dtype: 'int64' })], { dtype: mixed.dtype, shape: [mixed.shape[0]!, H, T, D] })
          : g.reshape(mixed, [0, H, -1, D]);
    return { merged: g.reshape(g.transpose(byHead, [0, 2, 1, 3]), [0, 0, H * D]), joined };
  };
  // One new position a row by GroupQueryAttention (inputs.groupQuery): q, k, v stay [B, 1, heads * D]
  // as it reads them, no transposes, each rotated in that layout; it writes the cache in place.
  const groupedAttention = (l: number, n: LayerNames, step: GroupQueryStep, q: Tensor, k: Tensor, v: Tensor): Attended => {
    const past = inputs.past?.[l];
    if (!past || !fused) throw new Error('causalLm: groupQuery needs a cache and fusedOps');
    const perHead = (y: Tensor, count: number, headNorm?: string) => (headNorm ? g.reshape(rms(g.reshape(y, [0, 0, count, D]), weight(headNorm)), [0, 0, count * D]) : y);
    q = perHead(q, H, n.qNorm);
    k = perHead(k, KV, n.kNorm);
    if (rotate3d) {
      q = rotate3d(q, H);
      k = rotate3d(k, KV);
    }
    const attended = groupQueryAttention(g, q, k, v, past, step, H, KV);
    return { merged: attended.output, joined: { key: attended.key, value: attended.value } };
  };

  const addToStream = (stream: ResidualStream, delta: Tensor) => {
    if (fused && c.norm.kind === 'rms') stream.added = delta;
    else stream.x = g.add(stream.x, delta);
  };
  const normOfStream = (stream: ResidualStream, n: { weight: string; bias?: string }): Tensor => {
    if (!stream.added) return norm(stream.x, n);
    const { normed, sum } = fusedSkipRmsNorm(g, stream.x, stream.added, weight(n.weight), c.norm.epsilon);
    stream.x = sum;
    stream.added = undefined;
    return normed;
  };
  return {
    /** The residual stream's start [B, T, C]: the tokens' embeddings (and GPT-2's position table's rows). */
    embed(): ResidualStream {
      let x = g.gather(weight(names.embed), tokens);
      if (names.positionTable) x = g.add(x, g.gather(weight(names.positionTable), positions));
      return { x };
    },
    /** Decoder block `l` over `stream` (advanced in place); returns its keys and values over the cache. */
    block(l: number, stream: ResidualStream): { key: Tensor; value: Tensor } {
      const n = layerWeightNames(c, l);
      const h = normOfStream(stream, n.attentionNorm);
      const [q, k, v] = projections(g, h, n, c, weight, linear, lora);
      const { merged, joined } = inputs.groupQuery ? groupedAttention(l, n, inputs.groupQuery, q, k, v) : attention(l, n, q, k, v);
      addToStream(stream, linear(merged, n.out));
      const m = normOfStream(stream, n.mlpNorm);
      const inner = c.mlp === 'swiglu' ? swiglu(g, linear(m, n.gate!), linear(m, n.up)) : g.gelu(linear(m, n.up));
      addToStream(stream, linear(inner, n.down));
      return joined;
    },
    /** The final norm and the head over `stream`: next-token logits [B, T, V] (or [B, 1, V], lastPositionOnly). */
    head(stream: ResidualStream): Tensor {
      if (options.lastPositionOnly) {
        stream.x = g.slice(stream.x, 1, -1);
        if (stream.added) stream.added = g.slice(stream.added, 1, -1);
      }
      const x = normOfStream(stream, names.finalNorm);
      const logits = names.head ? g.matmul(x, weight(names.head)) : g.matmul(x, g.transpose(weight(names.embed)));
      return options.logitBias ? g.add(logits, g.const(options.logitBias, { dtype: logits.dtype })) : logits;
    },
  };
}

/**
 * q, k and v [B, T, heads * D]: three projections, or GPT-2's fused c_attn. The fused one is
 * applied as three linears over slices of its weight rather than sliced after: the gradient of
 * an output slice is a zero-padded [B, T, 3C] tensor per slice, summed; of a weight slice, a
 * padded [C, 3C] one (in an SFT step at batch 256, ~5% less time).
 */
function projections(
  g: Graph,
  h: Tensor,
  n: ReturnType<typeof layerWeightNames>,
  c: LmConfig,
  weight: (name: string) => Tensor,
  linear: (x: Tensor, l: LinearNames) => Tensor,
  lora: LoraWeights | undefined,
): [Tensor, Tensor, Tensor] {
  if (n.q && n.k && n.v) return [linear(h, n.q), linear(h, n.k), linear(h, n.v)];
  const fused = n.qkv!;
  const C = c.heads * c.headDim;
  const part = (t: Tensor, i: number) => g.slice(t, -1, i * C, (i + 1) * C);
  const adapter = lora?.adapters.get(fused.weight);
  const down = adapter ? g.matmul(h, weight(adapter.a)) : undefined; // [B, T, r], shared by q, k and v
  return [0, 1, 2].map((i) => {
    const y = g.linear(h, part(weight(fused.weight), i), fused.bias ? part(weight(fused.bias), i) : undefined);
    return adapter ? g.add(y, g.mul(g.matmul(down!, part(weight(adapter.b), i)), lora!.scale)) : y;
  }) as [Tensor, Tensor, Tensor];
}

function missing(name: string): never {
  throw new Error(`causalLm: no weight '${name}' was declared (a bug: weights.ts names every weight the model reads)`);
}
