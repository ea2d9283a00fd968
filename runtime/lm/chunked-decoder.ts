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
import { Graph, Session, type Feed, type Tensor } from '../tensor/index.js';
import type { LmConfig } from './config.js';
import { DECODER_IO, emptyDecodeState, type DecodeState, type DecoderOptions } from './decoder.js';
import { causalLm, type LmOptions, type Weights } from './model.js';
import { attentionMask, rowPositions } from './rows.js';

/** Rows from which generate() decodes in chunks on a GPU provider: below it the one-step decoder's traffic is small. */
export const CHUNKED_DECODE_MIN_ROWS = 8;
/**
 * Decode steps unrolled into one chunk, by default. The graph holds K copies of the model's
 * nodes, and onnxruntime's session set-up grows about with the square of the nodes whose
 * shapes hold a dim it cannot name (the cache's length after each Concat), graph
 * optimisations off as well: a chain of 4000 Slice/Concat/Add nodes over a symbolic dim took
 * 27.7 s to load, 0.6 s with static dims. Measured on a loaded 2-core host: a 2-layer model
 * 0.3-0.7 s at K = 8 and 1-2 s at K = 16, a 24-layer one 64 s at K = 8 (12 layers: 12 s). At 8
 * the cache already crosses 8 times less often than one step per run.
 */
export const CHUNK_STEPS = 8;

export type ChunkMode = 'greedy' | 'sample';

/** The chunked graph's own inputs and outputs; the cache keeps DECODER_IO's names. */
export const CHUNK_IO = {
  ...DECODER_IO,
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

/**
 * K decode steps into `g`. Inputs: `tokens` [B, T] (the chunk's new tokens), `positions`
 * [B, T + K - 1] and `mask` [B, T + K - 1, P + T + K - 1] of every position the chunk feeds
 * (rows.ts), the cache [B, KV, P, D]; outputs the chosen tokens and their log-probs [B, K] and
 * the cache [B, KV, P + T + K - 1, D]. T and P are symbolic: one graph serves the prompt's chunk
 * and every later one.
 */
export function chunkedDecoderGraph(g: Graph, config: LmConfig, weights: Weights, steps: number, mode: ChunkMode, options: LmOptions = {}): Record<string, Tensor> {
  if (!Number.isInteger(steps) || steps < 1) throw new Error(`chunked decoder: steps must be a positive integer (got ${steps})`);
  const { kvHeads: KV, headDim: D, vocab: V } = config;
  const tokens = g.input(IO.tokens, 'int64', ['B', 'T']);
  const positions = g.input(IO.positions, 'int64', ['B', 'W']);
  const mask = g.input(IO.mask, 'float32', ['B', 'W', 'S']);
  let past = Array.from({ length: config.layers }, (_, l) => ({
    key: g.input(IO.pastKey(l), 'float32', ['B', KV, 'P', D]),
    value: g.input(IO.pastValue(l), 'float32', ['B', KV, 'P', D]),
  }));
  const sampling = mode === 'sample' ? { uniforms: g.input(IO.uniforms, 'float32', [steps, 'B']), inverseTemperature: g.input(IO.inverseTemperature, 'float32', [1]) } : undefined;
  // An end `later` positions before the end of the chunk's axis (none: to the end).
  const endBefore = (later: number) => (later === 0 ? undefined : -later);
  const chosen: Tensor[] = [];
  const logProbs: Tensor[] = [];
  let input = tokens;
  for (let i = 0; i < steps; i++) {
    // Step 0 feeds the chunk's T tokens (their rows of positions and mask), step i > 0 the one
    // chosen at step i - 1, at the chunk's row T + i - 1; each sees the keys up to its own.
    const rows = i === 0 ? { from: 0, end: endBefore(steps - 1) } : { from: -(steps - i), end: endBefore(steps - i - 1) };
    const stepPositions = g.slice(positions, 1, rows.from, rows.end);
    const stepMask = g.slice(g.slice(mask, 1, rows.from, rows.end), 2, 0, endBefore(steps - i - 1));
    const { logits, present } = causalLm(g, weights, config, { tokens: input, positions: stepPositions, mask: stepMask, past }, { ...options, lastPositionOnly: true });
    const flat = g.reshape(logits, [-1, V]); // [B, V]
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
    outputs[IO.presentKey(l)] = p.key;
    outputs[IO.presentValue(l)] = p.value;
  });
  return outputs;
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

/** The tokens a chunk chose: row r's step k at r * steps + k. */
export interface Chunk {
  readonly tokens: Int32Array;
  readonly logProbs: Float32Array;
  readonly steps: number;
}

/** How a chunk chooses its tokens. */
export type ChunkChoice = { readonly mode: 'greedy' } | { readonly mode: 'sample'; readonly temperature: number; readonly uniform: () => number };

export class ChunkedDecoder {
  constructor(
    private readonly session: Session,
    readonly config: LmConfig,
    readonly steps: number,
    readonly mode: ChunkMode,
  ) {}

  /** The session over `steps` unrolled steps, with the one-step decoder's weights (baked, fed, LoRA, logit bias). */
  static async create(config: LmConfig, options: DecoderOptions, steps: number, mode: ChunkMode): Promise<ChunkedDecoder> {
    const g = new Graph();
    const declared = { ...(options.frozen?.declare(g) ?? {}), ...options.weights.declare(g) };
    const rename = options.weightName;
    const weights = rename ? Object.fromEntries(Object.entries(declared).map(([name, t]) => [rename(name), t])) : declared;
    const outputs = chunkedDecoderGraph(g, config, weights, steps, mode, { lora: options.lora, logitBias: options.logitBias });
    const session = await Session.create(g, outputs, { weights: options.weights, bake: options.frozen, providers: options.providers, intraOpNumThreads: options.threads });
    return new ChunkedDecoder(session, config, steps, mode);
  }

  /** A fresh state for rows starting at `starts` (their left padding). */
  begin(starts: Int32Array): DecodeState {
    return emptyDecodeState(this.config, starts);
  }

  /**
   * Feeds `tokens` [rows, count] at the next `count` positions of `state` (a state of
   * LmDecoder.begin) and decodes `steps` tokens after them; the cache grows by count + steps - 1.
   */
  async feed(state: DecodeState, tokens: Int32Array, count: number, choice: ChunkChoice): Promise<Chunk> {
    if (choice.mode !== this.mode) throw new Error(`chunked decoder: built to ${this.mode}, asked to ${choice.mode}`);
    const rows = state.starts.length;
    const K = this.steps;
    const from = state.length;
    const width = count + K - 1;
    const feeds: Record<string, Feed> = {
      [IO.tokens]: { data: BigInt64Array.from(tokens, (t) => BigInt(t)), dims: [rows, count] },
      [IO.positions]: { data: rowPositions(state.starts, from, width), dims: [rows, width] },
      [IO.mask]: { data: attentionMask(state.starts, from, width), dims: [rows, width, from + width] },
      ...state.cache,
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
    for (let l = 0; l < this.config.layers; l++) {
      state.cache[IO.pastKey(l)] = { data: out[IO.presentKey(l)]!.data as Float32Array, dims };
      state.cache[IO.pastValue(l)] = { data: out[IO.presentValue(l)]!.data as Float32Array, dims };
    }
    state.length = from + width;
    const chosen = out[IO.chosen]!.data as BigInt64Array;
    return { tokens: Int32Array.from(chosen, (t) => Number(t)), logProbs: out[IO.chosenLogProbs]!.data as Float32Array, steps: K };
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
