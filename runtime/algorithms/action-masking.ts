// Whether a learner acts under the env's action masks (`action_mask: auto | on | off`, a
// setting of PPO, DQN and SAC): the one place that decides it, so that every learner reads the
// setting the same way. The masks themselves are the VecEnv's (envs/action-mask.ts checks them).
import type { VecEnv } from '../envs/vector.js';

export type ActionMaskSetting = 'auto' | 'on' | 'off';
export const ACTION_MASK_SETTINGS: readonly ActionMaskSetting[] = ['auto', 'on', 'off'];

/**
 * The env's masks (VecEnv.actionMasks, rewritten in place each step) when `setting` uses them:
 * `auto` where the env gives masks, `on` always (an env that gives none is an error), `off`
 * never (every action may be taken: the comparison against masking). null: act unmasked.
 */
export function learnerMasks(setting: ActionMaskSetting, vec: VecEnv, learner: string): Uint8Array | null {
  if (setting === 'off') return null;
  if (vec.actionMasks === null && setting === 'on') {
    const why = vec.actionSpace.kind === 'discrete'
      ? 'it gives no action masks (info["action_mask"] at reset and step)'
      : `its actions are ${vec.actionSpace.kind === 'box' ? 'continuous' : vec.actionSpace.kind}, and masks are for discrete actions`;
    throw new Error(`${learner}: action_mask is on, but the env ${vec.kind} cannot be masked: ${why}; set action_mask: auto or off`);
  }
  return vec.actionMasks;
}
