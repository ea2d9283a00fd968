// What a language model run will hold in memory, estimated before anything is loaded, so a run
// that would die of out-of-memory after minutes of loading is refused at once with the figures
// (what TRL and verl users ask for most). rlx computes in float32 whatever the checkpoint's
// dtype, so every weight costs 4 bytes. The activation figure is an estimate of what a training
// step's graph keeps for its backward pass; the others are exact counts of the arrays held.
import * as os from 'node:os';
import { InputError } from '../../shared/input-error.js';
import { formatBytes } from '../../shared/input-files.js';
import { parameterCount, type LmConfig } from './config.js';

const F32 = 4;

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
}

export function estimateMemory(c: LmConfig, s: MemoryShape): MemoryEstimate {
  const params = parameterCount(c);
  const weights = params * F32;
  const reference = s.referenceCopy ? weights : 0;
  const gradients = s.trainableParameters * F32;
  const optimizer = 2 * s.trainableParameters * F32;
  const kvCache = kvCacheBytes(c, s.generationBatch === undefined ? s.sampleRows : Math.min(s.sampleRows, s.generationBatch), s.sequenceLength);
  const rows = Math.min(s.trainRows, s.microBatch ?? s.trainRows);
  const activations = s.trainRows <= 0 ? 0 : s.checkpointing ? segmentedActivationBytes(c, rows, s.sequenceLength) : wholeStepActivationBytes(c, rows, s.sequenceLength);
  return { weights, reference, gradients, optimizer, kvCache, activations, total: weights + reference + gradients + optimizer + kvCache + activations };
}

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

/** Bytes the one-graph step keeps for `rows` rows of T tokens: every block's activations, then the logits, their log-softmax and its gradient. */
export function wholeStepActivationBytes(c: LmConfig, rows: number, T: number): number {
  return rows * T * (c.layers * blockFloats(c, T) + 3 * c.vocab) * F32;
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

/** One line per part, for hover and for the refusal's message. */
export function describeMemory(m: MemoryEstimate): string {
  const parts: [string, number][] = [
    ['weights (float32)', m.weights],
    ['KL reference copy', m.reference],
    ['gradients', m.gradients],
    ['Adam state', m.optimizer],
    ['KV cache', m.kvCache],
    ['activations (estimate)', m.activations],
  ];
  return [...parts.filter(([, b]) => b > 0).map(([name, b]) => `${name} ${formatBytes(b)}`), `total ${formatBytes(m.total)}`].join(', ');
}

/** A run whose estimate exceeds the memory there is; the message gives the figures and what to change. */
export class MemoryEstimateError extends InputError {
  override name = 'MemoryEstimateError';
}

/**
 * Refuses, before anything is loaded, a run whose estimate exceeds `available` bytes (the
 * machine's free memory by default), saying what each part takes and what would shrink it.
 */
export function checkMemory(c: LmConfig, shape: MemoryShape, where: string, available = os.freemem()): MemoryEstimate {
  const estimate = estimateMemory(c, shape);
  if (estimate.total > available) {
    const lora = shape.trainableParameters < parameterCount(c) ? '' : ', LoRA (a lora { } block) instead of full fine-tuning';
    throw new MemoryEstimateError(
      `${where}: this run needs about ${formatBytes(estimate.total)} (${describeMemory(estimate)}), more than the ${formatBytes(available)} free on this machine; ` +
        `use a smaller model${lora}, fewer prompts or samples per update, or shorter completions (max_tokens)`,
    );
  }
  return estimate;
}
