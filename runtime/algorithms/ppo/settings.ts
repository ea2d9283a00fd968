// PPO's hyperparameters as the learner uses them, read from the plan. Their names, defaults
// (CleanRL's), docs and ranges are the registry's: dsl/schema/algorithms.ts.
import { ACTION_MASK_SETTINGS, type ActionMaskSetting } from '../action-masking.js';
import { PlanParams } from '../../plan-params.js';
import type { Schedulable } from '../../schedule.js';

/** The resolved params, named as the language names them (CleanRL's `args`). */
export interface PpoSettings {
  learning_rate: Schedulable;
  rollout_steps: number;
  epochs: number;
  minibatches: number;
  gamma: number;
  gae_lambda: number;
  clip: Schedulable;
  clip_value: boolean;
  entropy_coef: Schedulable;
  value_coef: number;
  max_grad_norm: number;
  normalize_advantages: boolean;
  target_kl: number | null;
  action_mask: ActionMaskSetting;
}

/** Reads the plan's PPO params, defaults for missing ones; errors name the param. */
export function ppoSettings(params: Readonly<Record<string, unknown>>): PpoSettings {
  const p = PlanParams.of('PPO', params);
  return {
    learning_rate: p.schedule('learning_rate'),
    rollout_steps: p.count('rollout_steps'),
    epochs: p.count('epochs'),
    minibatches: p.count('minibatches'),
    gamma: p.number('gamma'),
    gae_lambda: p.number('gae_lambda'),
    clip: p.schedule('clip'),
    clip_value: p.flag('clip_value'),
    entropy_coef: p.schedule('entropy_coef'),
    value_coef: p.number('value_coef'),
    max_grad_norm: p.number('max_grad_norm'),
    normalize_advantages: p.flag('normalize_advantages'),
    target_kl: p.numberOrNone('target_kl'),
    action_mask: p.option('action_mask', ACTION_MASK_SETTINGS),
  };
}

/** Rows per minibatch: the rollout (steps x env copies) split into `minibatches`, at least 1 (CleanRL's minibatch_size). */
export function minibatchRows(settings: Pick<PpoSettings, 'rollout_steps' | 'minibatches'>, numEnvs: number): number {
  return Math.max(1, Math.floor((settings.rollout_steps * numEnvs) / settings.minibatches));
}
