// DQN's hyperparameters as the learner uses them, read from the plan. Their names, defaults
// (CleanRL dqn.py's; gradient_steps, loss and max_grad_norm as SB3 names them), docs and
// ranges are the registry's: dsl/schema/algorithms.ts.
import { ACTION_MASK_SETTINGS, type ActionMaskSetting } from '../action-masking.js';
import { PlanParams } from '../../plan-params.js';
import type { Schedulable } from '../../schedule.js';
import { relabelParam, type Relabel } from '../replay/her.js';

export interface DqnSettings {
  learning_rate: Schedulable;
  buffer: number;
  batch_size: number;
  gamma: number;
  target_update: number;
  tau: number;
  train_every: number;
  gradient_steps: number;
  learning_starts: number;
  epsilon: Schedulable;
  double: boolean;
  loss: 'mse' | 'huber';
  max_grad_norm: number | null;
  relabel: Relabel | null;
  action_mask: ActionMaskSetting;
}

/** Reads the plan's DQN params, defaults for missing ones; errors name the param. */
export function dqnSettings(params: Readonly<Record<string, unknown>>): DqnSettings {
  const p = PlanParams.of('DQN', params);
  const relabel = relabelParam(p);
  return {
    learning_rate: p.schedule('learning_rate'),
    buffer: p.count('buffer'),
    batch_size: p.count('batch_size'),
    gamma: p.number('gamma'),
    target_update: p.count('target_update'),
    tau: p.number('tau'),
    train_every: p.count('train_every'),
    gradient_steps: p.count('gradient_steps'),
    learning_starts: p.number('learning_starts'),
    epsilon: p.schedule('epsilon'),
    double: p.flag('double'),
    loss: p.option('loss', ['mse', 'huber']),
    max_grad_norm: p.numberOrNone('max_grad_norm'),
    relabel,
    action_mask: p.option('action_mask', ACTION_MASK_SETTINGS),
  };
}
