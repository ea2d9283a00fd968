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
  /** With `masked`: the action masks of obs and of nextObs (the final one's at an episode's end). */
  readonly masks: Uint8Array | null;
  readonly nextMasks: Uint8Array | null;
}

/** `masked`: the buffer keeps the env's action masks (the learner acts under them). */
export function createStoreScratch(stepper: Stepper, masked = false): StoreScratch {
  const length = stepper.numEnvs * stepper.obsDim;
  const envMasks = masked ? stepper.vec.actionMasks : null;
  const masks = envMasks !== null ? new Uint8Array(envMasks.length) : null;
  return { obs: new Float32Array(length), nextObs: new Float32Array(length), masks, nextMasks: masks !== null ? new Uint8Array(masks.length) : null };
}

/** Steps every env copy with `actions` and stores the transitions. */
export function stepAndStore(stepper: Stepper, buffer: ReplayBuffer, actions: ActionBuffer, scratch: StoreScratch): void {
  const { vec, numEnvs, obsDim } = stepper;
  scratch.obs.set(stepper.obs);
  const { masks, nextMasks } = scratch;
  if (masks !== null) masks.set(vec.actionMasks!);
  stepper.step(actions);
  scratch.nextObs.set(vec.obs);
  if (nextMasks !== null) nextMasks.set(vec.actionMasks!);
  const n = masks !== null ? masks.length / numEnvs : 0;
  for (let i = 0; i < numEnvs; i++) {
    if (vec.hasFinalObs[i] !== 1) continue;
    scratch.nextObs.set(vec.finalObs.subarray(i * obsDim, (i + 1) * obsDim), i * obsDim);
    if (nextMasks !== null) nextMasks.set(vec.finalActionMasks!.subarray(i * n, (i + 1) * n), i * n);
  }
  buffer.add(scratch.obs, actions, stepper.rewards, scratch.nextObs, vec.terminated, vec.truncated, masks ?? undefined, nextMasks ?? undefined);
}
