// What a checkpoint keeps of a text learner that samples its own batches (../learner-state.ts):
// the counters, the prompt and sample streams, the policy, the reference where one is kept, and
// Adam. The built-in learner (policy-gradient.ts) and learner modules (../module/text-learner.ts)
// declare these parts alike, so their checkpoints have the same fields.
import type { Rng } from '../../../shared/random.js';
import type { Adam, AdamState, LossScaler, LossScaleState, WeightSnapshot, WeightStore } from '../../tensor/index.js';
import { part, type StateParts } from '../learner-state.js';

export interface SampledTextState {
  globalStep: number;
  updates: number;
  promptRng: number[];
  sampleRng: number[];
  weights: WeightSnapshot;
  reference: WeightSnapshot | null;
  optimizer: AdamState;
  /** precision fp16's loss scale; null in fp32 (and absent from checkpoints before it). */
  lossScale?: LossScaleState | null;
}

/** The parts of SampledTextState, for `learner`'s counters and what it samples and trains with. */
export function sampledTextParts(
  learner: { globalStep: number; updates: number },
  kept: { readonly promptRng: Rng; readonly sampleRng: Rng; readonly weights: WeightStore; readonly reference: { readonly weights: WeightStore } | null; readonly optimizer: Adam; readonly lossScaler: LossScaler | null },
): StateParts<SampledTextState> {
  return {
    globalStep: part.counter(learner, 'globalStep'),
    updates: part.counter(learner, 'updates'),
    promptRng: part.rng(kept.promptRng),
    sampleRng: part.rng(kept.sampleRng),
    weights: part.weights(kept.weights),
    // Only where a reference is kept; a checkpoint without one leaves the reference the learner was built with.
    reference: kept.reference ? part.optional(part.weights(kept.reference.weights)) : part.none(),
    optimizer: part.adam(kept.optimizer),
    lossScale: part.lossScale(kept.lossScaler),
  };
}
