// GRPO's hyperparameters as the learner uses them, read from the plan. Their names, defaults,
// docs and ranges are the registry's: dsl/schema/algorithms.ts.
import { PlanParams } from '../../plan-params.js';
import type { Schedulable } from '../../schedule.js';

export const NORMALIZE = ['group_std', 'batch_std', 'none'] as const;
export type Normalize = (typeof NORMALIZE)[number];
export const LOSS_KINDS = ['sequence', 'token'] as const;
export type LossKind = (typeof LOSS_KINDS)[number];

export interface GrpoSettings {
  group_size: number;
  prompts_per_update: number;
  clip: Schedulable;
  /** null: the same as clip. */
  clip_high: number | null;
  kl_coef: number;
  reference: 'initial' | 'none';
  learning_rate: Schedulable;
  normalize: Normalize;
  loss: LossKind;
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
    reference: p.option('reference', ['initial', 'none']),
    learning_rate: p.schedule('learning_rate'),
    normalize: p.option('normalize', NORMALIZE),
    loss: p.option('loss', LOSS_KINDS),
    iterations: p.count('iterations'),
    max_new_tokens: p.count('max_new_tokens'),
    temperature: p.number('temperature'),
    max_grad_norm: p.number('max_grad_norm'),
  };
}
