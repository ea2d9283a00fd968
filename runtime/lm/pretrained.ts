// A pretrained language model loaded from its folder: the weights (all trainable, or frozen
// under LoRA adapters that alone train), its tokenizer and chat format, and decoding with a
// key/value cache. What `rlx tokenize`, `rlx generate` and the text learners use.
import type { Rng } from '../../shared/random.js';
import { WeightStore, type ExecutionProvider, type Graph, type Precision, type WeightSnapshot } from '../tensor/index.js';
import { LmDecoder } from './decoder.js';
import { generate, generateInChunks, logSoftmaxAt, type Completion } from './generate.js';
import { LmWeightsError, loadLmWeights, loadLmWeightsHalf } from './load.js';
import type { BaseDtype } from '../../hf/memory.js';
import { weightSpecs } from '../../hf/weights.js';
import { initialAdapter, loraAdapters, type LoraAdapter, type LoraSettings } from '../../hf/lora.js';
import { loraWeights } from './lora-weights.js';
import { trainedStore, type TrainedWeights } from './trained-weights.js';
import { causalLm, type LmInputs, type LmOutputs, type LoraWeights } from './model.js';
import type { ModelFolder } from './model-folder.js';
import { InputError } from '../../shared/input-error.js';
import { loadAdapter } from './peft.js';
import type { SampledTokenStatistics } from './token-statistics.js';
import { narrowsDistribution, StopStrings, type SamplingControls } from './sampling.js';

export interface PretrainedOptions {
  /**
   * New LoRA adapters to train (with `rng` for A's initialisation), a PEFT adapter folder to
   * load, or adapters a run trained (`trained`: their values, taken as they are).
   */
  readonly lora?: { readonly settings: LoraSettings; readonly rng: Rng } | { readonly adapterDir: string } | { readonly settings: LoraSettings; readonly trained: TrainedWeights };
  /** Every weight, as a run's full fine-tuning left them: used in place of the folder's, which are not read. */
  readonly trained?: TrainedWeights;
  /** How a LoRA base is held: float32, or float16 (half storage, a half-width checkpoint's: load.ts loadLmWeightsHalf). */
  readonly baseDtype?: BaseDtype;
  readonly providers?: readonly ExecutionProvider[];
  readonly threads?: number;
}

export interface SampleSettings {
  readonly maxNewTokens: number;
  readonly greedy: boolean;
  readonly temperature?: number;
  readonly rng?: Rng;
  /** Where given, each sampled token's distribution statistics go here: row, then the token's index in its completion (lm/token-statistics.ts). */
  readonly statistics?: SampledTokenStatistics;
  /** top_k, top_p, min_p, repetition_penalty and stop strings (lm/sampling.ts). */
  readonly controls?: SamplingControls;
}

export type { TrainedWeights } from './trained-weights.js';

export class PretrainedLm {
  private decoderSession: Promise<LmDecoder> | null = null;
  /** Where rollouts decode in chunks (sampleOn), and their decoder there, built at first use. */
  private rolloutProvider: ExecutionProvider | null = null;
  /** The chunked session's products there (sampleOn). */
  private rolloutPrecision: Precision = 'fp32';
  private rolloutSession: Promise<LmDecoder> | null = null;

  private constructor(
    readonly folder: ModelFolder,
    /** The weights gradients are taken for: every weight, or the adapters only. */
    readonly trainable: WeightStore,
    /** The base weights when adapters train (baked into sessions, never re-sent); undefined otherwise. */
    readonly frozen: WeightStore | undefined,
    readonly lora: { readonly settings: LoraSettings; readonly adapters: readonly LoraAdapter[]; readonly weights: LoraWeights } | undefined,
    private readonly options: PretrainedOptions,
  ) {}

  static load(folder: ModelFolder, options: PretrainedOptions = {}): PretrainedLm {
    if (!options.lora) {
      const all = options.trained ? trainedStore(options.trained, weightSpecs(folder.config)) : loadLmWeights(folder.dir, folder.config);
      return new PretrainedLm(folder, all, undefined, undefined, options);
    }
    // The adapters' names and shapes are checked before the base's weights are read.
    let adapterStore = new WeightStore();
    let settings: LoraSettings;
    let adapters: LoraAdapter[];
    if ('adapterDir' in options.lora) {
      ({ settings, adapters } = loadAdapter(options.lora.adapterDir, folder.config, adapterStore));
    } else if ('trained' in options.lora) {
      settings = options.lora.settings;
      adapters = loraAdapters(folder.config, settings);
      adapterStore = trainedStore(options.lora.trained, adapters.flatMap((adapter) => [adapter.a, adapter.b]));
    } else {
      settings = options.lora.settings;
      adapters = loraAdapters(folder.config, settings);
      const rng = options.lora.rng;
      for (const adapter of adapters) {
        adapterStore.add(adapter.a.name, adapter.a.shape, initialAdapter(adapter, 'a', rng));
        adapterStore.add(adapter.b.name, adapter.b.shape, initialAdapter(adapter, 'b', rng));
      }
    }
    const base = options.baseDtype === 'float16' ? loadHalfBase(folder) : loadLmWeights(folder.dir, folder.config);
    return new PretrainedLm(folder, adapterStore, base, { settings, adapters, weights: loraWeights(adapters, settings) }, options);
  }

  get config() {
    return this.folder.config;
  }

  get tokenizer() {
    return this.folder.tokenizer;
  }

  /** The model in `g` over `inputs`, declaring the trainable weights (and the frozen ones) as params. */
  forward(g: Graph, inputs: LmInputs, lastPositionOnly = false): LmOutputs {
    const weights = { ...(this.frozen?.declare(g) ?? {}), ...this.trainable.declare(g) };
    return causalLm(g, weights, this.config, inputs, { lora: this.lora?.weights, lastPositionOnly });
  }

  /**
   * The decoding session, compiled at first use; it reads the trainable weights live. Frozen
   * weights are fed too on the CPU, where a feed is the JS array itself (no copy), and baked
   * into the session on a GPU, where a feed would be copied to the device at every run.
   */
  decoder(): Promise<LmDecoder> {
    const onGpu = (this.options.providers ?? ['cpu']).some((p) => p !== 'cpu');
    const bake = onGpu && this.frozen !== undefined;
    this.decoderSession ??= LmDecoder.create(this.config, {
      weights: this.frozen && !bake ? WeightStore.union(this.frozen, this.trainable) : this.trainable,
      frozen: bake ? this.frozen : undefined,
      lora: this.lora?.weights,
      providers: this.options.providers,
      threads: this.options.threads,
    });
    return this.decoderSession;
  }

  /**
   * Decodes generate()'s completions on `provider` (a GPU) with the chunked decoder, K tokens
   * per session run, the frozen base baked into its session and the adapters fed (read live);
   * 'cpu' goes back to decoder(). Only LoRA models: with every weight trainable, each chunk
   * would send the whole model to the device (lm/rollout-device.ts says when a run does this).
   * `precision` 'fp16': the chunked session is written with float16 products, its baked base
   * float16 where only products read it (chunked-decoder.ts).
   */
  async sampleOn(provider: ExecutionProvider, precision: Precision = 'fp32'): Promise<void> {
    const next = provider === 'cpu' ? null : provider;
    if (next === this.rolloutProvider && precision === this.rolloutPrecision) return;
    if (next && !this.frozen) throw new Error('sampleOn: only a LoRA model (its base frozen) decodes rollouts on a GPU');
    const session = this.rolloutSession;
    this.rolloutSession = null;
    this.rolloutProvider = next;
    this.rolloutPrecision = precision;
    await (await session)?.release();
  }

  /** The provider sampleOn() set, or null: generate() decodes with decoder(). */
  get rolloutDevice(): ExecutionProvider | null {
    return this.rolloutProvider;
  }

  private rolloutDecoder(provider: ExecutionProvider): Promise<LmDecoder> {
    // Chunks only (generateInChunks): no one-step session beside the chunked one on the device.
    this.rolloutSession ??= Promise.resolve(LmDecoder.forCompanions(this.config, { weights: this.trainable, frozen: this.frozen, lora: this.lora?.weights, providers: [provider], threads: this.options.threads, precision: this.rolloutPrecision }));
    return this.rolloutSession;
  }

  /**
   * Completions of token-id prompts, each ending at one of the tokenizer's EOS ids or after
   * maxNewTokens. With a rollout device (sampleOn), on it in chunks, whatever the number of
   * rows; token statistics need every step's logits, so completions that record them keep
   * decoder() (the one-step loop on a GPU measured slower than the CPU), as do sampling
   * controls that change the distribution (run on the host over each step's logits). Stop
   * strings are matched in the completion's text decoded without special tokens.
   */
  async generate(prompts: readonly (readonly number[])[], settings: SampleSettings): Promise<Completion[]> {
    // Positions past the context are ones the model never saw (GPT-2 has no embedding there):
    // refused in words, never sampled silently. rlx check catches a length that cannot fit any prompt.
    const longest = prompts.reduce((n, p) => Math.max(n, p.length), 0);
    if (longest + settings.maxNewTokens > this.config.context) {
      throw new InputError(`a prompt of ${longest} tokens and ${settings.maxNewTokens} new tokens exceed the model's context of ${this.config.context} tokens (${this.folder.dir}/config.json); lower the completion length (max_tokens, max_new_tokens) or shorten the prompts`);
    }
    const eos = this.tokenizer.eosIds;
    const stop = settings.controls?.stop;
    const stopStrings = stop?.length ? new StopStrings(stop, (ids) => this.tokenizer.decode(ids, { skipSpecialTokens: true })) : undefined;
    const options = { ...settings, stopIds: eos, padId: this.tokenizer.padId ?? eos[0] ?? 0, ...(stopStrings ? { stopStrings } : {}) };
    if (this.rolloutProvider && !settings.statistics && !narrowsDistribution(settings.controls)) return generateInChunks(await this.rolloutDecoder(this.rolloutProvider), prompts, options);
    return generate(await this.decoder(), prompts, options);
  }

  /** log p(completion[i] | prompt, completion[<i]) for each completion id. */
  async score(prompt: readonly number[], completion: readonly number[]): Promise<number[]> {
    const decoder = await this.decoder();
    const state = decoder.begin(new Int32Array(1));
    let logits = await decoder.feed(state, Int32Array.from(prompt), prompt.length);
    const out: number[] = [];
    for (const [i, id] of completion.entries()) {
      out.push(logSoftmaxAt(logits, 0, this.config.vocab, id));
      if (i + 1 < completion.length) logits = await decoder.feed(state, Int32Array.of(id), 1);
    }
    return out;
  }

  async release(): Promise<void> {
    const sessions = [this.decoderSession, this.rolloutSession];
    this.decoderSession = null;
    this.rolloutSession = null;
    for (const session of sessions) await (await session)?.release();
  }
}

/** A LoRA base kept as float16 (lora { base_dtype: float16 }); refused, saying why, where the checkpoint cannot give it. */
function loadHalfBase(folder: ModelFolder): WeightStore {
  const half = loadLmWeightsHalf(folder.dir, folder.config);
  if (!half) {
    throw new LmWeightsError(`${folder.dir}: lora { base_dtype: float16 } keeps the base as float16, but its weights are stored in float32 or hold a value past float16's largest (65504); use base_dtype: float32 (or auto)`);
  }
  return half;
}
