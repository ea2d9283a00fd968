// The collect step of the text policy-gradient learner (policy-gradient.ts): sample and score
// groups of samples (several from one start: one prompt, or one dialogue start) from the env,
// with the overlong setting applied to each batch (overlong.ts). With dynamic sampling (DAPO,
// Yu et al. 2025, section 3.2), groups whose rewards are all equal are dropped (filter.ts) and
// more batches are sampled until `wanted` informative groups are in hand, at most `maxRounds`
// batches, within the budget; the update then trains on what it has (fewer groups when the
// rounds or the budget ran out). Every sample counts against the budget, kept or not.
import type { LanguageModel } from '../../policies/index.js';
import type { Rollouts, RolloutOptions, TextEnv } from '../../text/text-env.js';
import { informativeGroups } from './filter.js';
import { applyOverlong, type OverlongSetting } from './overlong.js';
import { concatRollouts, mergeMetrics, selectGroups, type Refeed } from './rollout-groups.js';

/**
 * `wanted` groups of `groupSize`, or as many whole groups as the `stepsLeft` of the budget still
 * allow (at least one): the budget may end on a part of a batch, and a sample counts as at least one step.
 */
export function collectGroups(env: TextEnv, policy: LanguageModel, wanted: number, stepsLeft: number, options: Omit<RolloutOptions, 'groups'>): Promise<Rollouts> {
  const groups = Math.max(1, Math.min(wanted, Math.floor(stepsLeft / options.groupSize)));
  return env.rollouts(policy, { ...options, groups });
}

export interface CollectSettings {
  readonly overlong: OverlongSetting;
  /** null: train on every group sampled (one batch). */
  readonly dynamicSampling: { readonly maxRounds: number } | null;
  /** Rebuilds a model's row feeds when batches of different widths are joined (rollout-groups.ts). */
  readonly refeed?: Refeed;
  /** The learner's name, for errors. */
  readonly where: string;
}

/**
 * The batch an update trains on, its metrics with the collect step's: overlong's, and with dynamic
 * sampling `train/sampling_rounds` (batches sampled), `charts/dropped_groups` and
 * `charts/trained_groups`. When no batch had an informative group the last one is trained on:
 * its advantages are all 0, so only the KL term acts, as without dynamic sampling.
 */
export async function collectBatch(env: TextEnv, policy: LanguageModel, wanted: number, stepsLeft: number, options: Omit<RolloutOptions, 'groups'>, settings: CollectSettings): Promise<Rollouts> {
  const G = options.groupSize;
  const sample = async (left: number): Promise<Rollouts> => {
    const shaped = applyOverlong(await collectGroups(env, policy, wanted, left, options), settings.overlong, settings.where);
    return Object.keys(shaped.metrics).length === 0 ? shaped.batch : { ...shaped.batch, metrics: { ...shaped.batch.metrics, ...shaped.metrics } };
  };
  if (!settings.dynamicSampling) return sample(stepsLeft);
  const sampled: Rollouts[] = [];
  const kept: Rollouts[] = [];
  let keptGroups = 0;
  let left = stepsLeft;
  do {
    const batch = await sample(left);
    sampled.push(batch);
    left -= batch.steps;
    const informative = informativeGroups(batch.rewards, G).slice(0, wanted - keptGroups);
    keptGroups += informative.length;
    // An empty selection still carries its batch's steps and episodes.
    kept.push(selectGroups(batch, G, informative));
  } while (keptGroups < wanted && sampled.length < settings.dynamicSampling.maxRounds && left >= G);
  const sampledGroups = sampled.reduce((sum, b) => sum + b.rows / G, 0);
  const batch = keptGroups > 0 ? concatRollouts(kept, settings.refeed) : { ...sampled[sampled.length - 1]!, steps: sampled.reduce((sum, b) => sum + b.steps, 0), episodes: sampled.flatMap((b) => b.episodes) };
  const metrics = { ...mergeMetrics(sampled), 'train/sampling_rounds': sampled.length, 'charts/dropped_groups': sampledGroups - keptGroups, 'charts/trained_groups': keptGroups };
  return { ...batch, metrics };
}
