// Decoding a language model with onnxruntime: model.ts's graph over T new positions after P
// cached ones, compiled once with T and P symbolic, so the same session takes a whole prompt at
// once (prefill: T = prompt width, P = 0) and then one token per step (T = 1), feeding the keys
// and values it returned back in. Only the last position's logits leave the session: at a
// vocabulary of 150k a prompt's logits at every position would be gigabytes.
//
// The same graph, with its weights baked in, is the character-level policy's exported model
// (policies/transformer/): `rlx eval` steps that file with an LmDecoder over a plain
// onnxruntime session, so training, evaluation and the exported file decode one way.
import { Graph, Session, type ExecutionProvider, type Precision, type Tensor, type WeightStore } from '../tensor/index.js';
import type { LmConfig } from '../../hf/config.js';
import { causalLm, type LmOptions, type Weights } from './model.js';
import { attentionMask, rowPositions, type PaddedRows } from './rows.js';

/** The decoding graph's input and output names (an exported token model's interface). */
export const DECODER_IO = {
  tokens: 'tokens',
  positions: 'positions',
  mask: 'mask',
  pastKey: (l: number) => `past_key.${l}`,
  pastValue: (l: number) => `past_value.${l}`,
  logits: 'logits',
  presentKey: (l: number) => `present_key.${l}`,
  presentValue: (l: number) => `present_value.${l}`,
} as const;
const IO = DECODER_IO;

export interface DecoderOptions {
  /** Weights fed at every run (read live: an optimiser step is seen by the next decode). */
  readonly weights: WeightStore;
  /** Weights baked into the session as initializers: frozen base weights under LoRA. */
  readonly frozen?: WeightStore;
  readonly lora?: LmOptions['lora'];
  /** The model's (Hugging Face) name of a weight of `weights` and `frozen`, where the stores name them otherwise. */
  readonly weightName?: (stored: string) => string;
  /** Added to the logits (see LmOptions). */
  readonly logitBias?: readonly number[];
  readonly providers?: readonly ExecutionProvider[];
  readonly threads?: number;
  /**
   * The chunked companions' products (chunked-decoder.ts): 'fp16' writes them with float16
   * products (mixed-precision.ts), the frozen base baked as float16 where only products read it.
   * The one-step session is float32 whatever this says. Default 'fp32'.
   */
  readonly precision?: Precision;
  /**
   * The element type in which the chunked companions feed and fetch the key/value cache:
   * default float16 where `precision` is 'fp16' (half the bytes crossing per chunk; the graph
   * computes on its float32 casts), float32 otherwise. The one-step session's is float32
   * whatever this says.
   */
  readonly cacheType?: CacheType;
}

/** The element type of a decode state's key/value cache on the host: float16 as its bits (Uint16Array). */
export type CacheType = 'float32' | 'float16';

/** One layer's keys or values [B, KV, P, D]. */
export type CachedTensor = { data: Float32Array; dims: number[] } | { data: Uint16Array; dims: number[] };

/** A batch being decoded: its rows' starts and the cache so far. */
export interface DecodeState {
  readonly starts: Int32Array;
  /** Positions decoded so far (the cache's length P). */
  length: number;
  /** Float32 (the one-step decoder's); float16 bits only from a chunked decoder that feeds its cache so (ChunkedDecoder.begin). */
  cache: Record<string, CachedTensor>;
}

/** The element type of `state`'s cache. */
export function cacheTypeOf(state: DecodeState): CacheType {
  const first = Object.values(state.cache)[0];
  return first?.data instanceof Uint16Array ? 'float16' : 'float32';
}

/** Arrays with their dims (int64 tokens and positions, float32 mask and cache), as a session is fed. */
export type DecoderFeeds = Record<string, { readonly data: Float32Array | BigInt64Array; readonly dims: readonly number[] }>;

/** One run of the decoding graph: the session's, or a plain onnxruntime session's over an exported file. */
export type DecoderRun = (feeds: DecoderFeeds) => Promise<Record<string, Float32Array>>;

/**
 * The decoding graph into `g`: inputs and outputs named by DECODER_IO, `logits` [B, V] of
 * each row's last new position. `weights` holds every weight the model reads.
 */
export function decoderGraph(g: Graph, config: LmConfig, weights: Weights, options: LmOptions = {}): Record<string, Tensor> {
  const { kvHeads: KV, headDim: D } = config;
  const inputs = {
    tokens: g.input(IO.tokens, 'int64', ['B', 'T']),
    positions: g.input(IO.positions, 'int64', ['B', 'T']),
    mask: g.input(IO.mask, 'float32', ['B', 'T', 'S']),
    past: Array.from({ length: config.layers }, (_, l) => ({
      key: g.input(IO.pastKey(l), 'float32', ['B', KV, 'P', D]),
      value: g.input(IO.pastValue(l), 'float32', ['B', KV, 'P', D]),
    })),
  };
  const { logits, present } = causalLm(g, weights, config, inputs, { ...options, lastPositionOnly: true });
  const outputs: Record<string, Tensor> = { [IO.logits]: g.reshape(logits, [-1, config.vocab]) };
  present.forEach((p, l) => {
    outputs[IO.presentKey(l)] = p.key;
    outputs[IO.presentValue(l)] = p.value;
  });
  return outputs;
}

/** The decoding graph's names of inputs and outputs, in order, for a model of `layers` layers. */
export function decoderInterface(layers: number): { inputs: string[]; outputs: string[] } {
  const each = [...Array(layers).keys()];
  return {
    inputs: [IO.tokens, IO.positions, IO.mask, ...each.flatMap((l) => [IO.pastKey(l), IO.pastValue(l)])],
    outputs: [IO.logits, ...each.flatMap((l) => [IO.presentKey(l), IO.presentValue(l)])],
  };
}

/** Something a decoder keeps beside its session and frees with it (a chunked decoder, say). */
export interface DecoderCompanion {
  release(): Promise<void>;
}

/** A decode state of `config` with nothing decoded yet, for rows starting at `starts`, its cache of `type`. */
export function emptyDecodeState(config: LmConfig, starts: Int32Array, type: CacheType = 'float32'): DecodeState {
  const dims = [starts.length, config.kvHeads, 0, config.headDim];
  const empty: CachedTensor = type === 'float16' ? { data: new Uint16Array(0), dims } : { data: new Float32Array(0), dims };
  const cache: DecodeState['cache'] = {};
  for (let l = 0; l < config.layers; l++) cache[IO.pastKey(l)] = cache[IO.pastValue(l)] = empty;
  return { starts, length: 0, cache };
}

export class LmDecoder {
  private readonly companions = new Map<string, Promise<DecoderCompanion>>();

  /**
   * `run` runs the decoding graph of `config` (decoderGraph); `release` frees its session.
   * `options`: what it was built from (LmDecoder.create), for sessions over the same weights.
   */
  constructor(
    private readonly run: DecoderRun,
    readonly config: LmConfig,
    private readonly releaseSession: () => Promise<void>,
    readonly options?: DecoderOptions,
  ) {}

  /** Whether this decoder runs on a GPU provider (an accelerator, where every run's feeds and outputs cross to the device). */
  get onDevice(): boolean {
    return (this.options?.providers ?? ['cpu']).some((p) => p !== 'cpu');
  }

  /** The companion under `key`, made at first use from this decoder's options and released with it. */
  companion<T extends DecoderCompanion>(key: string, make: (options: DecoderOptions) => Promise<T>): Promise<T> {
    if (!this.options) throw new Error(`decoder: '${key}' needs a decoder built by LmDecoder.create`);
    let made = this.companions.get(key);
    if (!made) {
      made = make(this.options);
      this.companions.set(key, made);
    }
    return made as Promise<T>;
  }

  static async create(config: LmConfig, options: DecoderOptions): Promise<LmDecoder> {
    const g = new Graph();
    const declared = { ...(options.frozen?.declare(g) ?? {}), ...options.weights.declare(g) };
    const rename = options.weightName;
    const weights = rename ? Object.fromEntries(Object.entries(declared).map(([name, t]) => [rename(name), t])) : declared;
    const outputs = decoderGraph(g, config, weights, { lora: options.lora, logitBias: options.logitBias });
    const session = await Session.create(g, outputs, { weights: options.weights, bake: options.frozen, providers: options.providers, intraOpNumThreads: options.threads });
    return new LmDecoder((feeds) => session.run(feeds), config, () => session.release(), options);
  }

  /**
   * A decoder of `options` that only builds companions (the chunked decoder): its one-step
   * session is never made, so a GPU holds one baked copy of the frozen base, the companion's.
   */
  static forCompanions(config: LmConfig, options: DecoderOptions): LmDecoder {
    return new LmDecoder(() => Promise.reject(new Error('decoder: built for its companions only, it has no one-step session')), config, async () => {}, options);
  }

  /** A fresh state for rows starting at `starts` (their left padding). */
  begin(starts: Int32Array): DecodeState {
    return emptyDecodeState(this.config, starts);
  }

  /** Feeds `tokens` [rows, count] at the next `count` positions; returns the last position's logits [rows, V]. */
  async feed(state: DecodeState, tokens: Int32Array, count: number): Promise<Float32Array> {
    if (cacheTypeOf(state) !== 'float32') throw new Error('decoder: this state\'s key/value cache is float16 (a chunked decoder\'s, ChunkedDecoder.begin); the one-step decoder reads float32: begin the batch with LmDecoder.begin');
    const rows = state.starts.length;
    const from = state.length;
    const out = await this.run({
      [IO.tokens]: { data: BigInt64Array.from(tokens, (t) => BigInt(t)), dims: [rows, count] },
      [IO.positions]: { data: rowPositions(state.starts, from, count), dims: [rows, count] },
      [IO.mask]: { data: attentionMask(state.starts, from, count), dims: [rows, count, from + count] },
      ...(state.cache as Record<string, { data: Float32Array; dims: number[] }>),
    });
    const dims = [rows, this.config.kvHeads, from + count, this.config.headDim];
    for (let l = 0; l < this.config.layers; l++) {
      state.cache[IO.pastKey(l)] = { data: out[IO.presentKey(l)]!, dims };
      state.cache[IO.pastValue(l)] = { data: out[IO.presentValue(l)]!, dims };
    }
    state.length = from + count;
    return out[IO.logits]!;
  }

  /** Starts decoding `prompts` (left-padded rows): feeds them whole; returns the next-token logits [rows, V]. */
  async prefill(prompts: PaddedRows): Promise<{ state: DecodeState; logits: Float32Array }> {
    const state = this.begin(prompts.starts);
    const logits = await this.feed(state, prompts.ids, prompts.width);
    return { state, logits };
  }

  async release(): Promise<void> {
    const companions = [...this.companions.values()];
    this.companions.clear();
    for (const made of companions) await (await made).release();
    await this.releaseSession();
  }
}
