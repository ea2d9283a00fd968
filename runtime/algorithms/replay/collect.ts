// One vectorised env step stored in a replay buffer, shared by DQN and SAC: the step goes
// through the Stepper (reward terms, episode statistics, rollout recording, NaN checks), and
// the stored next observation of a copy whose episode just ended is its real final one
// (vec.finalObs), not the first observation of the next episode the env already reset to.
import type { ActionBuffer } from '../../policies/index.js';
import type { Stepper } from '../stepper.js';
import type { ReplayBuffer } from './buffer.js';

/** Reused arrays of stepAndStore, one per learner. */
export interface StoreScratch {
  readonly obs: Float32Array;
  readonly nextObs: Float32Array;
}

export function createStoreScratch(stepper: Stepper): StoreScratch {
  const length = stepper.numEnvs * stepper.obsDim;
  return { obs: new Float32Array(length), nextObs: new Float32Array(length) };
}

/** Steps every env copy with `actions` and stores the transitions. */
export function stepAndStore(stepper: Stepper, buffer: ReplayBuffer, actions: ActionBuffer, scratch: StoreScratch): void {
  const { vec, numEnvs, obsDim } = stepper;
  scratch.obs.set(stepper.obs);
  stepper.step(actions);
  scratch.nextObs.set(vec.obs);
  for (let i = 0; i < numEnvs; i++) {
    if (vec.hasFinalObs[i] === 1) scratch.nextObs.set(vec.finalObs.subarray(i * obsDim, (i + 1) * obsDim), i * obsDim);
  }
  buffer.add(scratch.obs, actions, stepper.rewards, scratch.nextObs, vec.terminated, vec.truncated);
}
