// The collect step of the text policy-gradient learner (policy-gradient.ts): sample and score
// groups of samples (several from one start: one prompt, or one dialogue start) from the env.
import type { LanguageModel } from '../../policies/index.js';
import type { Rollouts, RolloutOptions, TextEnv } from '../../text/text-env.js';

/**
 * `wanted` groups of `groupSize`, or as many whole groups as the `stepsLeft` of the budget still
 * allow (at least one): the budget may end on a part of a batch, and a sample counts as at least one step.
 */
export function collectGroups(env: TextEnv, policy: LanguageModel, wanted: number, stepsLeft: number, options: Omit<RolloutOptions, 'groups'>): Promise<Rollouts> {
  const groups = Math.max(1, Math.min(wanted, Math.floor(stepsLeft / options.groupSize)));
  return env.rollouts(policy, { ...options, groups });
}
