// REINFORCE's hyperparameters as the learner uses them, read from the plan. Their names,
// defaults, docs and ranges are the registry's: dsl/schema/algorithms.ts.
import { PlanParams } from '../../plan-params.js';
import type { Schedulable } from '../../schedule.js';
import { CREDITS, type Credit } from '../text/turn-credit.js';
import { readTextMemory, type TextMemoryParams } from '../text/memory-settings.js';

/** What is subtracted from each episode's return (the registry's `baseline` options). */
export const BASELINES = ['none', 'mean', 'leave_one_out'] as const;
export type Baseline = (typeof BASELINES)[number];

/** The resolved params, named as the language names them. */
/** The memory settings (TextMemoryParams) act on text envs only. */
export interface ReinforceSettings extends TextMemoryParams {
  learning_rate: Schedulable;
  gamma: number;
  baseline: Baseline;
  episodes_per_update: number;
  entropy_coef: Schedulable;
  max_grad_norm: number;
  /** Text dialogues only (text.ts). */
  credit: Credit;
}

/** Reads the plan's REINFORCE params, defaults for missing ones; errors name the param. */
export function reinforceSettings(params: Readonly<Record<string, unknown>>): ReinforceSettings {
  const p = PlanParams.of('REINFORCE', params);
  return {
    learning_rate: p.schedule('learning_rate'),
    gamma: p.number('gamma'),
    baseline: p.option('baseline', BASELINES),
    episodes_per_update: p.count('episodes_per_update'),
    entropy_coef: p.schedule('entropy_coef'),
    max_grad_norm: p.number('max_grad_norm'),
    credit: p.option('credit', CREDITS),
    ...readTextMemory(p, true),
  };
}
