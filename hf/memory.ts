// What a language model run will hold in memory, estimated before anything is loaded, so a run
// that would die of out-of-memory after minutes of loading is refused at once with the figures
// (what TRL and verl users ask for most). rlx computes in float32 whatever the checkpoint's
// dtype, so every weight costs 4 bytes. The activation figure is an estimate of what a training
// step's graph keeps for its backward pass; the others are exact counts of the arrays held.
import * as os from 'node:os';
import { InputError } from '../shared/input-error.js';
import { formatBytes } from '../shared/input-files.js';
import { parameterCount, type LmConfig } from './config.js';

const F32 = 4;
const F16 = 2;

export { formatBytes };

export interface MemoryShape {
  /** Parameters trained: all of them (full fine-tuning), the adapters' (LoRA), or none (sampling only). */
  readonly trainableParameters: number;
  /** Rows decoded at once (prompts x group size) and the longest row (prompt + completion tokens). */
  readonly sampleRows: number;
  readonly sequenceLength: number;
  /** Rows in one training step, when the run trains. */
  readonly trainRows: number;
  /** A frozen copy of the weights as the KL reference (kl_coef > 0 with full fine-tuning). */
  readonly referenceCopy: boolean;
  /** Rows sampled at once (generation_batch); all sampleRows when absent. */
  readonly generationBatch?: number;
  /** Rows per forward/backward (micro_batch); the whole trainRows when absent. */
  readonly microBatch?: number;
  /** Blocks recomputed in the backward, the head over chunks of tokens (algorithms/text/token-step.ts). */
  readonly checkpointing?: boolean;
  /** The frozen base kept as float16 (lora { base_dtype }): 2 bytes a weight, cast up to float32 inside each pass. */
  readonly halfBase?: boolean;
}

export interface MemoryEstimate {
  readonly weights: number;
  readonly reference: number;
  readonly gradients: number;
  /** Adam's two moments. */
  readonly optimizer: number;
  readonly kvCache: number;
  readonly activations: number;
  readonly total: number;
  /** The base held as float16 (MemoryShape.halfBase). */
  readonly halfBase?: boolean;
  /** The micro-batch and checkpointing the activations were estimated at, where the shape said. */
  readonly microBatch?: number;
  readonly checkpointing?: boolean;
}

export function estimateMemory(c: LmConfig, s: MemoryShape): MemoryEstimate {
  const params = parameterCount(c);
  const weights = params * (s.halfBase ? F16 : F32);
  const reference = s.referenceCopy ? params * F32 : 0;
  const gradients = s.trainableParameters * F32;
  const optimizer = adamBytes(s.trainableParameters);
  const kvCache = kvCacheBytes(c, s.generationBatch === undefined ? s.sampleRows : Math.min(s.sampleRows, s.generationBatch), s.sequenceLength);
  const rows = Math.min(s.trainRows, s.microBatch ?? s.trainRows);
  const stepActivations = s.trainRows <= 0 ? 0 : s.checkpointing ? segmentedActivationBytes(c, rows, s.sequenceLength) : wholeStepActivationBytes(c, rows, s.sequenceLength);
  // A base held as float16 is cast up inside each pass, and a graph differentiating through it keeps the
  // float32 copies for its backward: the whole model's in one graph, one block's when blocks are recomputed.
  const castUp = s.halfBase && s.trainRows > 0 ? F32 * (s.checkpointing ? Math.ceil(params / c.layers) : params) : 0;
  const activations = stepActivations + castUp;
  const chosen = s.microBatch !== undefined ? { microBatch: rows, checkpointing: s.checkpointing ?? false } : {};
  // Sampling and training take turns: the cache is gone when the step's activations are made.
  const total = RUNTIME_BYTES + weights + reference + gradients + optimizer + Math.max(KV_CACHE_COPIES * kvCache, activations);
  return { weights, reference, gradients, optimizer, kvCache, activations, total, ...chosen, ...(s.halfBase ? { halfBase: true } : {}) };
}

/**
 * The bytes of one WebAssembly memory, where Adam's SIMD kernel keeps the trained parameters,
 * their gradients and both moments (runtime/tensor/wasm-optim.ts; its test holds the two equal).
 */
export const ADAM_KERNEL_MEMORY_BYTES = 2 ** 32;

/**
 * Adam's state for `trainable` parameters: its two moments, and where the four float32 arrays fit
 * the kernel's memory, the copies of the parameters and gradients it keeps there as well (4 bytes
 * a parameter each); past that memory the kernel streams them through windows and holds the
 * moments alone (runtime/tensor/streaming-adam.ts).
 */
export function adamBytes(trainable: number): number {
  const resident = 4 * trainable * F32 <= ADAM_KERNEL_MEMORY_BYTES;
  return (resident ? 4 : 2) * trainable * F32;
}

/**
 * What the process holds besides the model's arrays: Node, onnxruntime, the tokenizer. Measured:
 * the 0.5B model folder loaded and nothing else peaks 0.3 GiB above its weights
 * (`npm run bench -- lm-scale`, phase load).
 */
export const RUNTIME_BYTES = 0.3 * 2 ** 30;

/**
 * The decoder holds its key/value cache about three times while it decodes: the cache fed to a
 * step, the one the step writes (keys and values appended), and the one before until the collector
 * frees it. Measured: GRPO's 128 rows of 384 tokens at the 0.5B shape peak 4.2 GiB above the
 * loaded model while sampling, for a 1.2 GiB cache (bench lm-scale, phase sample).
 */
export const KV_CACHE_COPIES = 3;

/** The key/value cache of `rows` rows decoding up to `length` positions. */
export function kvCacheBytes(c: LmConfig, rows: number, length: number): number {
  return 2 * c.layers * c.kvHeads * c.headDim * rows * length * F32;
}

/**
 * Floats one block keeps per row and position for its backward pass: the norms' inputs and
 * outputs, q, k, v before and after rotation, the attention weights, the MLP's inner activations.
 */
function blockFloats(c: LmConfig, T: number): number {
  const [q, kv] = [c.heads * c.headDim, c.kvHeads * c.headDim];
  return 6 * c.width + 3 * q + 3 * kv + 2 * c.heads * T + (c.mlp === 'swiglu' ? 4 : 2) * c.mlpWidth;
}

/**
 * [positions, vocabulary] tensors the one-graph step holds at once: the logits, the scaled logits,
 * their log-softmax, its gradient and the softmax the gradient is made from. Measured by
 * `npm run bench -- lm-scale` (QUICK, 0.5B shape: 5.9 MB a token where 3 copies said 4.6).
 */
const WHOLE_STEP_VOCAB_COPIES = 5;

/** Bytes the one-graph step keeps for `rows` rows of T tokens: every block's activations, then the vocabulary's tensors. */
export function wholeStepActivationBytes(c: LmConfig, rows: number, T: number): number {
  return rows * T * (c.layers * blockFloats(c, T) + WHOLE_STEP_VOCAB_COPIES * c.vocab) * F32;
}

/**
 * Bytes the segmented step (segmented-step.ts) holds at once for `rows` rows of T tokens: each
 * block's input, one block's activations and their gradients as it is run again, the stream and
 * its gradient, and one chunk of `headTokens` tokens' logits a few times over (the logits, the
 * log-softmax, its gradient and the product's).
 */
export function segmentedActivationBytes(c: LmConfig, rows: number, T: number, headTokens = 64): number {
  const stored = c.layers * rows * T * c.width;
  const block = 2 * rows * T * blockFloats(c, T);
  const stream = 3 * rows * T * c.width;
  const head = 4 * headTokens * c.vocab;
  return (stored + block + stream + head) * F32;
}

/** micro_batch and gradient_checkpointing as a learner's settings give them (`auto`: fitMemory chooses). */
export interface MemorySettings {
  readonly microBatch: number | 'auto';
  readonly checkpointing: boolean | 'auto';
}

/** What fitMemory chose. */
export interface MemoryChoice {
  /** Rows per forward/backward. */
  readonly microBatch: number;
  /** Blocks recomputed and the head over chunks of tokens (the segmented step). */
  readonly checkpointing: boolean;
}

/** Tokens per chunk of the segmented step's head: [chunk, vocabulary] logits a few times over, ~0.2 GB at 151,936 tokens. */
export const HEAD_TOKENS = 64;

/** The share of the free memory an update's activations may take; the rest is headroom (the allocator, the sampler's cache, the run's own arrays). */
export const ACTIVATION_SHARE = 0.6;

/**
 * micro_batch and gradient_checkpointing where `auto`, for `rows` rows of `length` tokens (the
 * longest expected), with `available` bytes free once the model is loaded: the one-graph step
 * (every activation kept, the fastest) where it fits the whole update or at least a quarter of
 * it per micro-batch; else recomputed blocks (`segmentable`: a pretrained model in float32) in
 * the largest micro-batch that fits. A micro-batch of 1 that fits neither way is still 1:
 * checkMemory refuses such a run before it starts. The trainer (algorithms/text/token-step.ts)
 * and the checker (dsl/check/pretrained-memory.ts) both choose with it.
 */
export function fitMemory(c: LmConfig, settings: MemorySettings, rows: number, length: number, available: number, segmentable: boolean): MemoryChoice {
  const budget = available * ACTIVATION_SHARE;
  const fitting = (bytes: (m: number) => number, most = rows) => {
    if (settings.microBatch !== 'auto') return settings.microBatch;
    let m = Math.min(rows, most);
    while (m > 1 && bytes(m) > budget) m = Math.ceil(m / 2);
    return m;
  };
  const whole = (m: number) => wholeStepActivationBytes(c, m, length);
  const segmented = (m: number) => segmentedActivationBytes(c, m, length, HEAD_TOKENS);
  // Recomputing, a micro-batch past a few thousand tokens buys no speed (the products are large
  // enough) and only holds memory: at most SEGMENT_TOKENS tokens, one row at the least.
  const segmentRows = Math.max(1, Math.floor(SEGMENT_TOKENS / length));
  if (settings.checkpointing === true && segmentable) return { microBatch: fitting(segmented, segmentRows), checkpointing: true };
  const wholeRows = fitting(whole);
  if (settings.checkpointing === false || !segmentable) return { microBatch: wholeRows, checkpointing: false };
  if (whole(wholeRows) <= budget && (wholeRows === rows || wholeRows * 4 >= rows)) return { microBatch: wholeRows, checkpointing: false };
  return { microBatch: fitting(segmented, segmentRows), checkpointing: true };
}

/** The most tokens an `auto` micro-batch of the segmented step holds (TRL's common 8 rows of 512). */
export const SEGMENT_TOKENS = 4096;

/** Both settings `auto`, as the learners default. */
export const AUTO_MEMORY: MemorySettings = { microBatch: 'auto', checkpointing: 'auto' };

/**
 * The micro-batch and checkpointing fitMemory chooses for `shape` where the shape does not say:
 * in what `available` leaves once the weights, the reference, the gradients, Adam's state and the
 * key/value cache are counted (the trainer chooses again once the model is loaded, from the memory then free).
 */
export function fittedShape(c: LmConfig, shape: MemoryShape, available: number, settings: MemorySettings = AUTO_MEMORY, segmentable = true): MemoryChoice {
  if (shape.microBatch !== undefined) return { microBatch: shape.microBatch, checkpointing: shape.checkpointing ?? false };
  if (shape.trainRows <= 0) return { microBatch: 1, checkpointing: false };
  const e = estimateMemory(c, { ...shape, trainRows: 0 });
  const held = e.weights + e.reference + e.gradients + e.optimizer;
  return fitMemory(c, settings, shape.trainRows, shape.sequenceLength, Math.max(0, available - held), segmentable);
}

/** One line per part, for hover and for the refusal's message. */
export function describeMemory(m: MemoryEstimate): string {
  const parts: [string, number][] = [
    [m.halfBase ? 'weights (the base in float16)' : 'weights (float32)', m.weights],
    ['KL reference copy', m.reference],
    ['gradients', m.gradients],
    ['Adam state', m.optimizer],
    ['KV cache', m.kvCache],
    [m.checkpointing ? `activations (estimate; micro-batches of ${m.microBatch} rows, blocks recomputed)` : m.microBatch !== undefined ? `activations (estimate; micro-batches of ${m.microBatch} rows)` : 'activations (estimate)', m.activations],
  ];
  return [...parts.filter(([, b]) => b > 0).map(([name, b]) => `${name} ${formatBytes(b)}`), `total ${formatBytes(m.total)} (with ${formatBytes(RUNTIME_BYTES)} for the runtime itself${m.kvCache > 0 && m.activations > 0 ? `; sampling and training take turns: the larger of the decoding's ${KV_CACHE_COPIES} x KV cache and the activations counts` : ''})`].join(', ');
}

/** A run whose estimate exceeds the memory there is; the message gives the figures and what to change. */
export class MemoryEstimateError extends InputError {
  override name = 'MemoryEstimateError';
}

/**
 * Refuses, before anything is loaded, a run whose estimate exceeds `available` bytes (the
 * machine's free memory by default), saying what each part takes and what would shrink it.
 */
export function checkMemory(c: LmConfig, shape: MemoryShape, where: string, available = os.freemem(), settings: MemorySettings = AUTO_MEMORY): MemoryEstimate {
  const estimate = estimateMemory(c, { ...shape, ...fittedShape(c, shape, available, settings) });
  if (estimate.total > available) {
    const lora = shape.trainableParameters < parameterCount(c) ? '' : ', LoRA (a lora { } block) instead of full fine-tuning';
    throw new MemoryEstimateError(
      `${where}: this run needs about ${formatBytes(estimate.total)} (${describeMemory(estimate)}), more than the ${formatBytes(available)} free on this machine; ` +
        `use a smaller model${lora}, fewer prompts or samples per update, or shorter completions (max_tokens)`,
    );
  }
  return estimate;
}

/** lora { base_dtype } as written. */
export type BaseDtypeSetting = 'auto' | BaseDtype;
/** How a LoRA run holds its frozen base (runtime/tensor/weights.ts addHalf for float16). */
export type BaseDtype = 'float32' | 'float16';

/**
 * base_dtype as a run will hold the base: `auto` is float16 where the checkpoint is half-width
 * (`storedHalf`, asked only then) and the run fits `available` that way but not in float32, float32 otherwise (the
 * fastest on the CPU, with nothing to cast per pass). The trainer (policies/pretrained.ts) and the
 * checker (dsl/check/pretrained-memory.ts) both choose with it.
 */
export function chooseBaseDtype(c: LmConfig, shape: MemoryShape, setting: BaseDtypeSetting, storedHalf: () => boolean, available = os.freemem()): BaseDtype {
  if (setting !== 'auto') return setting;
  const fits = (halfBase: boolean) => {
    const s = { ...shape, halfBase };
    return estimateMemory(c, { ...s, ...fittedShape(c, s, available) }).total <= available;
  };
  // The weights' headers are read only where float32 does not fit.
  return !fits(false) && fits(true) && storedHalf() ? 'float16' : 'float32';
}
