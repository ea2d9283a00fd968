// Action masks: which of a discrete env's actions are legal in an observation, as the env says
// (`info["action_mask"]` of a Gymnasium env, sb3-contrib's MaskablePPO convention; a TS env's
// info.action_mask; a built-in's own). One number per action, 1 legal and 0 not; true/false are
// taken too. VecEnv reads every mask through here, so a bad one is refused the same way
// whichever env gave it, with the env, the copy and the step in the message.

import type { Rng } from '../../shared/random.js';

export class ActionMaskError extends Error {
  override name = 'ActionMaskError';
}

/** The step a mask came with, for messages: `reset()` or `step N of its episode`. */
export type MaskSource = { readonly env: string; readonly copy: number; readonly step: number };

function where(source: MaskSource): string {
  const at = source.step === 0 ? 'reset()' : `step() (step ${source.step} of its episode)`;
  return `env ${source.env} copy ${source.copy}: the action mask from ${at}`;
}

/**
 * Writes `mask` (what the env reported) into out[offset .. offset + n) as 0/1; throws an
 * ActionMaskError when it is not n values of 0/1 or true/false, or when it allows no action and
 * the agent must act on it (`final`: the observation that ended an episode, where nobody acts,
 * may allow none: a finished game has no legal move).
 */
export function readActionMask(mask: unknown, n: number, out: Uint8Array, offset: number, source: MaskSource, final = false): void {
  const values = mask as ArrayLike<unknown> | null | undefined;
  if (values === null || values === undefined || typeof values !== 'object' || typeof values.length !== 'number') {
    throw new ActionMaskError(`${where(source)} is ${describe(mask)}; give info.action_mask as ${n} numbers, 1 for a legal action and 0 for an illegal one`);
  }
  if (values.length !== n) {
    throw new ActionMaskError(`${where(source)} has ${values.length} values, but the action space has ${n} actions; give one 0/1 per action`);
  }
  let legal = 0;
  for (let k = 0; k < n; k++) {
    const value = values[k];
    const bit = value === true || value === 1 ? 1 : value === false || value === 0 ? 0 : -1;
    if (bit < 0) throw new ActionMaskError(`${where(source)} has ${describe(value)} at action ${k}; each value must be 1 (legal) or 0 (illegal), or true/false`);
    out[offset + k] = bit;
    legal += bit;
  }
  if (legal === 0 && !final) {
    throw new ActionMaskError(`${where(source)} allows no action, but the episode goes on; end the episode (terminated) where no action is legal, or leave at least one action legal`);
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}

/**
 * Acting under a mask: the logits (or Q-values) of illegal actions in `rows` rows of `width`
 * become -Infinity, so that sampling, the most likely action and the largest value all skip
 * them (distributions.ts handles -Infinity). `mask` rows line up with `values` rows.
 */
export function maskValues(values: Float32Array, rows: number, width: number, mask: ArrayLike<number>): void {
  for (let j = 0; j < rows * width; j++) if (mask[j] === 0) values[j] = -Infinity;
}

/** A uniformly random legal action of the mask row at mask[from .. from + n) (which allows one at least). */
export function randomLegal(mask: ArrayLike<number>, from: number, n: number, rng: Rng): number {
  let legal = 0;
  for (let k = 0; k < n; k++) legal += mask[from + k];
  let pick = rng.int(legal);
  for (let k = 0; k < n; k++) if (mask[from + k] === 1 && pick-- === 0) return k;
  throw new Error('randomLegal: the mask allows no action');
}
