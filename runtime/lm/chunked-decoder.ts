// Decoding K tokens per session run, for GPUs: onnxruntime-node cannot keep a tensor on the
// device between runs, so the one-step decoder (decoder.ts) sends the whole key/value cache to
// the device and back for every token (at Qwen2.5-0.5B's shape, batch 64, gigabytes a run).
// This graph unrolls K decode steps: step 0 takes the chunk's new tokens (the whole prompt on
// the first chunk, then the last token chosen), each step appends its keys and values to the
// cache inside the graph and chooses the next token there, and the cache crosses once per chunk.
//
// The token is chosen in the graph: greedy by ArgMax (ties: the lowest id, as lm/sampling.ts's
// argMax), sampled by inverse transform, the first token whose cumulative softmax(logits / T)
// exceeds u * total for one uniform u per row and step fed from the host's seeded Rng: an exact
// draw from softmax(logits / T), as lm/sampling.ts's draw() makes on the host. (Gumbel-max
// would need a noise tensor [K, B, V]: at the 0.5B shape, 311M host draws and 1.2 GB a run.)
// The draws differ from the one-step path's (the same distribution, other uniforms, float32
// sums on the device), so a sampled run on a GPU is not the CPU's run token for token; greedy is.
//
// Rows that have ended keep generating (their tokens are dropped by the caller): every row of
// a chunk runs K steps.
//
// RMSNorm (with the residual add before it) and the rotary embedding are written as onnxruntime's
// fused kernels (LmOptions.fusedOps, tensor/layers.ts): one dispatch each where the primitives
// take six and seven; and with the
// fixed cache every step after the first attends by GroupQueryAttention, which writes its keys
// into the cache in place and attends over it in one kernel (the first, the prompt's, may feed
// several positions a row, which onnxruntime's kernel takes for a batch of one only). A decode
// step of Qwen2 then launches less than half the kernels, and a small batch's step on a GPU is
// mostly launches. The one-step decoder keeps the primitives (its graph is also the exported
// policy's model, plain ONNX); the two agree to float32 rounding, and greedy writes the same tokens.
//
// With `precision: 'fp16'` (the rollouts of a LoRA run in fp16 on a GPU: rollout-device.ts) the
// session is written by mixed-precision.ts's lowering: float16 products, the frozen base baked as
// float16 where only products read it (half its bytes). The softmax, log-softmax and the draw's
// cumulative sum stay float32 (its rules). The key/value cache crosses as float16 (cacheType,
// DecoderOptions.cacheType: half the bytes a chunk): cast to float32 as it comes in, read by the
// attention products through float16 casts (GroupQueryAttention computes in float16 too, and
// writes it so), and cast to float16 as it goes out. As every read of it is such a cast, WebGPU
// gives the float32 cache's tokens and log-probs bit for bit. The host holds its bits (DecodeState, Uint16Array), which
// the one-step decoder refuses: a batch begins with this decoder's begin() (docs/gpu.md
// "Generation on a GPU").
import { Graph, Session, type Feed, type Precision, type Tensor } from '../tensor/index.js';
import type { SessionOptions } from '../tensor/session.js';
import type { LmConfig } from '../../hf/config.js';
import { cacheTypeOf, DECODER_IO, emptyDecodeState, type CachedTensor, type CacheType, type DecodeState, type DecoderOptions } from './decoder.js';
import { FIXED_CACHE_IO, fixedCacheFeeds, groupQueryFeeds } from './chunked-cache.js';
import { causalLm, type LmInputs, type LmOptions, type Weights } from './model.js';
import { attentionMask, rowPositions } from './rows.js';

/** Rows from which generate() decodes in chunks on a GPU provider: below it the one-step decoder's traffic is small. */
export const CHUNKED_DECODE_MIN_ROWS = 8;
/**
 * Decode steps unrolled into one chunk, by default: the graph holds K copies of the model's
 * nodes, and at 8 the cache already crosses 8 times less often than one step per run. Session
 * set-up (bench/chunked-load.ts, docs/gpu.md) grows with K and the layers.
 */
export const CHUNK_STEPS = 8;

export type ChunkMode = 'greedy' | 'sample';

/**
 * How the graph holds the key/value cache: `fixed`, a cache of fixed capacity written in place
 * (chunked-cache.ts: every dim static or named); `appended`, grown by a Concat at each step (its
 * length dim unnamed after each, and session set-up grows about with the square of such nodes).
 * `appended` is kept for bench/chunked-load.ts's comparison.
 */
export type ChunkCache = 'fixed' | 'appended';

/** The chunked graph's own inputs and outputs; the cache keeps DECODER_IO's names. */
export const CHUNK_IO = {
  ...DECODER_IO,
  ...FIXED_CACHE_IO,
  /** float32 [K, B]: the uniforms of the draws (sample mode). */
  uniforms: 'uniforms',
  /** float32 [1]: 1 / temperature (sample mode). */
  inverseTemperature: 'inverse_temperature',
  /** int64 [B, K]: the token chosen at each step. */
  chosen: 'chosen_tokens',
  /** float32 [B, K]: log softmax(logits)[chosen] at each step, at temperature 1. */
  chosenLogProbs: 'chosen_log_probs',
} as const;
const IO = CHUNK_IO;
/** The largest uniform fed: float32 rounding of u * total keeps it below the total. */
const BELOW_ONE = 1 - 2 ** -23;

/** One step's inputs: its positions and mask, and how its keys and values join the cache (or GroupQueryAttention's inputs). */
interface StepInputs {
  readonly positions: Tensor;
  readonly mask?: Tensor;
  readonly joinCache?: LmInputs['joinCache'];
  readonly groupQuery?: LmInputs['groupQuery'];
}

/**
 * K decode steps into `g`. Inputs: `tokens` [B, T] (the chunk's new tokens) and the cache
 * [B, KV, P, D] of `cacheType` (float16: cast to float32 as it comes in, and the cache going out
 * cast to float16, so the graph between computes as with a float32 cache); the chunk's
 * positions and masks as `cache` lays them out:
 * - fixed: step 0's `positions` [B, T] and `mask` [B, T, C] over the capacity C = P + T + K - 1,
 *   where step 0's join puts each position (`cache_slots`), and the later steps' positions,
 *   masks and write positions (chunked-cache.ts);
 * - appended: `positions` [B, T + K - 1] and `mask` [B, T + K - 1, P + T + K - 1] of every
 *   position the chunk feeds (rows.ts).
 * Outputs the chosen tokens and their log-probs [B, K] and the cache [B, KV, P + T + K - 1, D].
 * T and P (and C) are symbolic: one graph serves the prompt's chunk and every later one.
 */
export function chunkedDecoderGraph(g: Graph, config: LmConfig, weights: Weights, steps: number, mode: ChunkMode, options: LmOptions = {}, cache: ChunkCache = 'fixed', cacheType: CacheType = 'float32'): Record<string, Tensor> {
  if (!Number.isInteger(steps) || steps < 1) throw new Error(`chunked decoder: steps must be a positive integer (got ${steps})`);
  const { kvHeads: KV, headDim: D, vocab: V } = config;
  const tokens = g.input(IO.tokens, 'int64', ['B', 'T']);
  const cacheInput = (name: string) => g.cast(g.input(name, cacheType, ['B', KV, 'P', D]), 'float32');
  let past = Array.from({ length: config.layers }, (_, l) => ({ key: cacheInput(IO.pastKey(l)), value: cacheInput(IO.pastValue(l)) }));
  // With fused ops the later steps of the fixed cache attend by GroupQueryAttention, which writes the cache itself.
  const stepInputs = cache === 'fixed' ? fixedStepInputs(g, steps, KV, options.fusedOps?.attention === true) : appendedStepInputs(g, steps);
  const sampling = mode === 'sample' ? { uniforms: g.input(IO.uniforms, 'float32', [steps, 'B']), inverseTemperature: g.input(IO.inverseTemperature, 'float32', [1]) } : undefined;
  const chosen: Tensor[] = [];
  const logProbs: Tensor[] = [];
  let input = tokens;
  for (let i = 0; i < steps; i++) {
    // Step 0 feeds the chunk's T tokens, step i > 0 the one chosen at step i - 1; each sees the
    // keys up to its own.
    const { positions, mask, joinCache, groupQuery } = stepInputs(i);
    const { logits, present } = causalLm(g, weights, config, { tokens: input, positions, mask, past, joinCache, groupQuery }, { ...options, lastPositionOnly: true, namedDims: true });
    // Squeezed, not reshaped to [-1, V]: onnxruntime names no dim a -1 makes, and every node
    // after would hold an unnamed batch dim (see chunked-cache.ts).
    const flat = g.custom('Squeeze', [logits, g.const([1], { dtype: 'int64' })], { dtype: logits.dtype, shape: [logits.shape[0]!, V] }); // [B, V]
    const token = sampling ? drawn(g, flat, g.slice(sampling.uniforms, 0, i, i + 1), sampling.inverseTemperature, V) : g.argMax(flat, -1);
    chosen.push(g.unsqueeze(token, [1]));
    logProbs.push(g.unsqueeze(g.gatherLast(g.logSoftmax(flat), token), [1]));
    past = present.map((p) => ({ key: p.key, value: p.value }));
    input = g.unsqueeze(token, [1]);
  }
  const outputs: Record<string, Tensor> = {
    [IO.chosen]: steps === 1 ? chosen[0]! : g.concat(chosen, 1),
    [IO.chosenLogProbs]: steps === 1 ? logProbs[0]! : g.concat(logProbs, 1),
  };
  past.forEach((p, l) => {
    outputs[IO.presentKey(l)] = g.cast(p.key, cacheType);
    outputs[IO.presentValue(l)] = g.cast(p.value, cacheType);
  });
  return outputs;
}

/**
 * The fixed cache's steps (chunked-cache.ts). Step i > 0 takes its rows of the step inputs by a
 * Gather at a constant index, whose output keeps the named dims (a Slice of a symbolic dim
 * would give an unnamed one). The writes copy values (a Gather, a ScatterND): the cache holds
 * the very values computed.
 */
function fixedStepInputs(g: Graph, steps: number, KV: number, grouped: boolean): (i: number) => StepInputs {
  const positions = g.input(IO.positions, 'int64', ['B', 'T']);
  const mask = g.input(IO.mask, 'float32', ['B', 'T', 'C']);
  const slots = g.input(IO.cacheSlots, 'int64', ['C']);
  const later = steps > 1 ? { positions: g.input(IO.stepPositions, 'int64', [steps - 1, 'B']), mask: grouped ? undefined : g.input(IO.stepMask, 'float32', [steps - 1, 'B', 'C']) } : undefined;
  // [B, KV, P, D] and step 0's [B, KV, T, D] -> [B, KV, C, D]: joined (the one unnamed dim of a
  // layer, P + T), then each position of the capacity gathered from the join.
  const spread = (past: Tensor, t: Tensor) => g.custom('Gather', [g.concat([past, t], 2), slots], { dtype: t.dtype, shape: [t.shape[0]!, t.shape[1]!, 'C', t.shape[3]!], attrs: { axis: 2 } });
  const prompt: StepInputs = { positions, mask, joinCache: (_l, past, key, value) => ({ key: spread(past.key, key), value: spread(past.value, value) }) };
  return (i) => {
    if (i === 0) return prompt;
    const at = g.const(i - 1, { dtype: 'int64' });
    const stepPositions = g.unsqueeze(g.gather(later!.positions, at), [1]); // [B, 1]
    if (grouped) {
      // Each step's attended length is a dim of its own name: the bias's, and so the scores'.
      const groupQuery = { seqlens: g.input(IO.stepSeqlens(i), 'int32', ['B']), total: g.input(IO.stepTotal(i), 'int32', [1]), bias: g.input(IO.stepBias(i), 'float32', ['B', 1, 1, `S${i}`]) };
      return { positions: stepPositions, groupQuery };
    }
    const slots = g.input(IO.stepSlots(i), 'int64', ['B', KV, 1, 3]);
    // The step's [B, KV, 1, D] keys written at its position of [B, KV, C, D].
    const write = (past: Tensor, t: Tensor) => g.custom('ScatterND', [past, slots, t], { dtype: past.dtype, shape: past.shape });
    return {
      positions: stepPositions,
      mask: g.unsqueeze(g.gather(later!.mask!, at), [1]), // [B, 1, C]
      joinCache: (_l, past, key, value) => ({ key: write(past.key, key), value: write(past.value, value) }),
    };
  };
}

/** The appended cache's steps: step i's rows of `positions` and `mask`, sliced (chunk rows T + i - 1 for i > 0). */
function appendedStepInputs(g: Graph, steps: number): (i: number) => StepInputs {
  const positions = g.input(IO.positions, 'int64', ['B', 'W']);
  const mask = g.input(IO.mask, 'float32', ['B', 'W', 'S']);
  // An end `later` positions before the end of the chunk's axis (none: to the end).
  const endBefore = (later: number) => (later === 0 ? undefined : -later);
  return (i) => {
    const rows = i === 0 ? { from: 0, end: endBefore(steps - 1) } : { from: -(steps - i), end: endBefore(steps - i - 1) };
    return { positions: g.slice(positions, 1, rows.from, rows.end), mask: g.slice(g.slice(mask, 1, rows.from, rows.end), 2, 0, endBefore(steps - i - 1)) };
  };
}

/**
 * Per row, the first token k whose cumulative sum of exp((logits - max) / T) exceeds u times the
 * total (u [1, B]): token k with probability softmax(logits / T)[k]. Counting the tokens at or
 * below the threshold finds it without a search; the count is capped at V - 1 (rounding).
 */
function drawn(g: Graph, logits: Tensor, uniforms: Tensor, inverseTemperature: Tensor, V: number): Tensor {
  const probabilities = g.softmax(g.mul(logits, inverseTemperature)); // [B, V]
  const cumulative = g.custom('CumSum', [probabilities, g.const(1, { dtype: 'int64' })], { dtype: 'float32', shape: probabilities.shape });
  const threshold = g.mul(g.transpose(uniforms, [1, 0]), g.slice(cumulative, 1, -1)); // [B, 1]
  // Counted in float32 (exact below 2^24 tokens): integer reductions are not on every provider.
  const below = g.reduceSum(g.cast(g.lessOrEqual(cumulative, threshold), 'float32'), { axes: [-1] });
  return g.cast(g.min(below, V - 1), 'int64');
}

/**
 * Whether a chunked decoder of `options` attends in its later steps by GroupQueryAttention: with
 * fused ops and the fixed cache, on the CPU and WebGPU providers. GroupQueryAttention's attention
 * bias was checked there only: on cuda the later steps keep the primitives' attention (no CUDA
 * machine here to check it on).
 */
export function attendsByGroupQuery(options: Pick<ChunkedDecoderOptions, 'fusedOps' | 'cache' | 'providers'>): boolean {
  return options.fusedOps !== false && (options.cache ?? 'fixed') === 'fixed' && !(options.providers ?? []).includes('cuda');
}

/** The cache's element type unless asked: float16 in fp16 (the products read it through float16 casts anyway), float32 in fp32. */
export function defaultCacheType(precision: Precision): CacheType {
  return precision === 'fp16' ? 'float16' : 'float32';
}

/** The tokens a chunk chose: row r's step k at r * steps + k. */
export interface Chunk {
  readonly tokens: Int32Array;
  readonly logProbs: Float32Array;
  readonly steps: number;
}

/** How a chunk chooses its tokens. */
export type ChunkChoice = { readonly mode: 'greedy' } | { readonly mode: 'sample'; readonly temperature: number; readonly uniform: () => number };

/** The one-step decoder's options; onnxruntime's graph optimisation level and the cache's layout (bench/chunked-load.ts compares them). */
export interface ChunkedDecoderOptions extends DecoderOptions {
  readonly graphOptimizationLevel?: SessionOptions['graphOptimizationLevel'];
  /** Default 'fixed'. */
  readonly cache?: ChunkCache;
  /**
   * RMSNorm, the rotary embedding and (attendsByGroupQuery) the later steps' attention as
   * onnxruntime's fused kernels (LmOptions.fusedOps): less than half the kernels a decode step.
   * Default true; false writes the primitives (bench/gpu-lm.ts compares the two).
   */
  readonly fusedOps?: boolean;
}

export class ChunkedDecoder {
  constructor(
    private readonly session: Session,
    readonly config: LmConfig,
    readonly steps: number,
    readonly mode: ChunkMode,
    readonly cache: ChunkCache = 'fixed',
    readonly precision: Precision = 'fp32',
    readonly cacheType: CacheType = 'float32',
    /** With fused ops, the positions the rotation's tables hold: every position fed lies below. */
    readonly positions?: number,
    /** Whether the later steps attend by GroupQueryAttention (fed its lengths and biases). */
    readonly groupQuery = false,
  ) {}

  /** The session over `steps` unrolled steps, with the one-step decoder's weights (baked, fed, LoRA, logit bias). */
  static async create(config: LmConfig, options: ChunkedDecoderOptions, steps: number, mode: ChunkMode): Promise<ChunkedDecoder> {
    const g = new Graph();
    const declared = { ...(options.frozen?.declare(g) ?? {}), ...options.weights.declare(g) };
    const rename = options.weightName;
    const weights = rename ? Object.fromEntries(Object.entries(declared).map(([name, t]) => [rename(name), t])) : declared;
    const cache = options.cache ?? 'fixed';
    // The fused rotation's tables cover the model's context and a last chunk's steps past it.
    const positions = options.fusedOps === false ? undefined : config.context + steps;
    const attention = attendsByGroupQuery(options);
    const lmOptions: LmOptions = { lora: options.lora, logitBias: options.logitBias, ...(positions !== undefined ? { fusedOps: { positions, attention } } : {}) };
    const precision = options.precision ?? 'fp32';
    const cacheType = options.cacheType ?? defaultCacheType(precision);
    const outputs = chunkedDecoderGraph(g, config, weights, steps, mode, lmOptions, cache, cacheType);
    const session = await Session.create(g, outputs, { weights: options.weights, bake: options.frozen, providers: options.providers, intraOpNumThreads: options.threads, graphOptimizationLevel: options.graphOptimizationLevel, precision });
    return new ChunkedDecoder(session, config, steps, mode, cache, precision, cacheType, positions, attention);
  }

  /** The bytes of the model its session loaded, baked weights included (bench/gpu-lm.ts prints them). */
  get modelBytes(): number {
    const { bytes, externalData } = this.session.model;
    return bytes.length + (externalData?.chunks.reduce((a, c) => a + c.bytes.length, 0) ?? 0);
  }

  /** A fresh state for rows starting at `starts` (their left padding), its cache of this decoder's cacheType. */
  begin(starts: Int32Array): DecodeState {
    return emptyDecodeState(this.config, starts, this.cacheType);
  }

  /**
   * Feeds `tokens` [rows, count] at the next `count` positions of `state` (a state of this
   * decoder's begin(), or LmDecoder.begin's where the cache is float32) and decodes `steps`
   * tokens after them; the cache grows by count + steps - 1.
   */
  async feed(state: DecodeState, tokens: Int32Array, count: number, choice: ChunkChoice): Promise<Chunk> {
    if (choice.mode !== this.mode) throw new Error(`chunked decoder: built to ${this.mode}, asked to ${choice.mode}`);
    const held = cacheTypeOf(state);
    if (held !== this.cacheType) throw new Error(`chunked decoder: feeds its key/value cache as ${this.cacheType}, the state's is ${held}: begin the batch with this decoder's begin()`);
    const rows = state.starts.length;
    const K = this.steps;
    const from = state.length;
    const width = count + K - 1;
    if (this.positions !== undefined && from + width > this.positions) {
      throw new Error(`chunked decoder: a chunk would reach position ${from + width - 1}, past the ${this.positions} positions this ${this.config.family} decoder holds (the model's context ${this.config.context} and one chunk)`);
    }
    const feeds: Record<string, Feed> = {
      [IO.tokens]: { data: BigInt64Array.from(tokens, (t) => BigInt(t)), dims: [rows, count] },
      ...(this.cache === 'fixed' ? this.fixedFeeds(state, count) : this.appendedFeeds(state, width)),
    };
    if (choice.mode === 'sample') {
      // Step-major, as the graph reads them: step k's uniforms for rows 0..B-1. Kept below
      // 1 - 2^-23 (a uniform near 1 would round to 1 in float32): u * total then stays below the
      // total, so tokens past the last possible one (probability 0, a logit bias's) are never drawn.
      feeds[IO.uniforms] = { data: Float32Array.from({ length: K * rows }, () => Math.min(choice.uniform(), BELOW_ONE)), dims: [K, rows] };
      feeds[IO.inverseTemperature] = { data: Float32Array.of(1 / choice.temperature), dims: [1] };
    }
    const out = await this.session.runTensors(feeds);
    const dims = [rows, this.config.kvHeads, from + width, this.config.headDim];
    // The session's output type is the cache's (Float32Array or the float16 bits' Uint16Array).
    const cached = (name: string) => ({ data: out[name]!.data, dims }) as CachedTensor;
    for (let l = 0; l < this.config.layers; l++) {
      state.cache[IO.pastKey(l)] = cached(IO.presentKey(l));
      state.cache[IO.pastValue(l)] = cached(IO.presentValue(l));
    }
    state.length = from + width;
    const chosen = out[IO.chosen]!.data as BigInt64Array;
    return { tokens: Int32Array.from(chosen, (t) => Number(t)), logProbs: out[IO.chosenLogProbs]!.data as Float32Array, steps: K };
  }

  /** The appended cache's feeds: positions and mask of the chunk's width, the cache as it is. */
  private appendedFeeds(state: DecodeState, width: number): Record<string, Feed> {
    const from = state.length;
    return {
      [IO.positions]: { data: rowPositions(state.starts, from, width), dims: [state.starts.length, width] },
      [IO.mask]: { data: attentionMask(state.starts, from, width), dims: [state.starts.length, width, from + width] },
      ...state.cache,
    };
  }

  /** The fixed cache's feeds (chunked-cache.ts), the cache as it is. */
  private fixedFeeds(state: DecodeState, count: number): Record<string, Feed> {
    const rows = state.starts.length;
    const K = this.steps;
    const capacity = state.length + count + K - 1;
    const f = fixedCacheFeeds(state.starts, state.length, count, K, capacity, this.config.kvHeads, !this.groupQuery);
    const feeds: Record<string, Feed> = {
      [IO.positions]: { data: f.positions, dims: [rows, count] },
      [IO.mask]: { data: f.mask, dims: [rows, count, capacity] },
      [IO.cacheSlots]: { data: f.cacheSlots, dims: [capacity] },
      ...state.cache,
    };
    if (K === 1) return feeds;
    feeds[IO.stepPositions] = { data: f.stepPositions!, dims: [K - 1, rows] };
    if (this.groupQuery) {
      // The later steps attend by GroupQueryAttention (chunkedDecoderGraph).
      const q = groupQueryFeeds(state.starts, state.length, count, K);
      for (let i = 1; i < K; i++) {
        feeds[IO.stepSeqlens(i)] = { data: q.seqlens[i - 1]!, dims: [rows] };
        feeds[IO.stepTotal(i)] = { data: q.totals[i - 1]!, dims: [1] };
        feeds[IO.stepBias(i)] = { data: q.biases[i - 1]!, dims: [rows, 1, 1, q.totals[i - 1]![0]!] };
      }
      return feeds;
    }
    feeds[IO.stepMask] = { data: f.stepMask!, dims: [K - 1, rows, capacity] };
    f.stepSlots!.forEach((slots, i) => (feeds[IO.stepSlots(i + 1)] = { data: slots, dims: [rows, this.config.kvHeads, 1, 3] }));
    return feeds;
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
