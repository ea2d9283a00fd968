// GRPO's hyperparameters as the learner uses them, read from the plan. Their names, defaults,
// docs and ranges are the registry's: dsl/schema/algorithms.ts.
import { PlanParams } from '../../plan-params.js';
import type { Schedulable } from '../../schedule.js';
import { BASELINES, NORMALIZE, type Baseline, type Normalize } from '../text/advantages.js';
import { KL_ESTIMATORS, type KlEstimator } from '../text/kl.js';

export const LOSS_KINDS = ['sequence', 'token', 'constant'] as const;
export type LossKind = (typeof LOSS_KINDS)[number];

export interface GrpoSettings {
  group_size: number;
  prompts_per_update: number;
  clip: Schedulable;
  /** null: the same as clip. */
  clip_high: number | null;
  kl_coef: number;
  kl_estimator: KlEstimator;
  kl_in_reward: boolean;
  reference: 'initial' | 'none';
  learning_rate: Schedulable;
  baseline: Baseline;
  normalize: Normalize;
  loss: LossKind;
  /** The top fraction of a batch's learned tokens, by sampling entropy, that the loss keeps (token-weights.ts); 1: all. */
  entropy_top_fraction: number;
  iterations: number;
  max_new_tokens: number;
  temperature: number;
  max_grad_norm: number;
}

/** Reads the plan's GRPO params, defaults for missing ones; errors name the param. */
export function grpoSettings(params: Readonly<Record<string, unknown>>): GrpoSettings {
  const p = PlanParams.of('GRPO', params);
  return {
    group_size: p.count('group_size'),
    prompts_per_update: p.count('prompts_per_update'),
    clip: p.schedule('clip'),
    clip_high: p.numberOrNone('clip_high'),
    kl_coef: p.number('kl_coef'),
    kl_estimator: p.option('kl_estimator', KL_ESTIMATORS),
    kl_in_reward: p.flag('kl_in_reward'),
    reference: p.option('reference', ['initial', 'none']),
    learning_rate: p.schedule('learning_rate'),
    baseline: p.option('baseline', BASELINES),
    normalize: p.option('normalize', NORMALIZE),
    loss: p.option('loss', LOSS_KINDS),
    entropy_top_fraction: p.number('entropy_top_fraction'),
    iterations: p.count('iterations'),
    max_new_tokens: p.count('max_new_tokens'),
    temperature: p.number('temperature'),
    max_grad_norm: p.number('max_grad_norm'),
  };
}
