// The off-policy loop SAC (../sac/sac.ts) and numeric learner modules (../module/numeric-learner.ts)
// share, as CleanRL writes it: each env step stored, uniformly random actions until
// learning_starts, then the policy's; every train_every env steps after learning_starts,
// gradient_steps updates; target networks moved towards theirs by Polyak averaging.
import type { Rng } from '../../../shared/random.js';
import { randomLegal } from '../../envs/action-mask.js';
import { spaceSize, type Space } from '../../envs/types.js';
import type { ActionBuffer } from '../../policies/index.js';

/** When an off-policy learner trains (the settings' names, as the language writes them). */
export interface OffPolicyCadence {
  readonly learning_starts: number;
  readonly train_every: number;
  readonly gradient_steps: number;
}

/** What the loop drives: env steps (every copy once, stored) and updates. */
export interface OffPolicyLearner {
  readonly globalStep: number;
  /** One step of every env copy, stored; advances globalStep. */
  collect(): void;
  /** One update: a batch from the buffer and the gradient steps due on it. */
  train(): Promise<void>;
}

/** Collects and trains until globalStep reaches `end`. */
export async function runOffPolicy(learner: OffPolicyLearner, end: number, cadence: OffPolicyCadence): Promise<void> {
  while (learner.globalStep < end) {
    const before = learner.globalStep;
    learner.collect();
    // Every train_every env steps (crossed, with several env copies, as DQN); CleanRL trains
    // from the step after learning_starts on (`global_step > learning_starts`).
    const due = Math.floor(learner.globalStep / cadence.train_every) > Math.floor(before / cadence.train_every);
    if (learner.globalStep > cadence.learning_starts && due) {
      for (let k = 0; k < cadence.gradient_steps; k++) await learner.train();
    }
  }
}

/** Uniformly random actions for every env copy (collection before learning_starts); with `mask` (discrete), uniform over the legal ones. */
export function randomActions(space: Space, actions: ActionBuffer, rng: Rng, mask: Uint8Array | null = null): void {
  const width = spaceSize(space);
  for (let i = 0; i < actions.length; i++) {
    if (space.kind === 'discrete' && mask !== null) actions[i] = randomLegal(mask, i * space.n, space.n, rng);
    else if (space.kind === 'discrete') actions[i] = Math.floor(rng.uniform() * space.n);
    else if (space.kind === 'multibinary') actions[i] = rng.uniform() < 0.5 ? 1 : 0;
    else actions[i] = rng.uniformRange(space.low[i % width], space.high[i % width]);
  }
}

/** target = (1 - tau) target + tau source, array by array (Polyak averaging). */
export function polyakUpdate(source: readonly Float32Array[], target: readonly Float32Array[], tau: number): void {
  for (let k = 0; k < source.length; k++) {
    const s = source[k];
    const t = target[k];
    for (let i = 0; i < t.length; i++) t[i] += tau * (s[i] - t[i]);
  }
}
