// SAC's hyperparameters as the learner uses them, read from the plan. Their names, defaults
// (CleanRL's sac_continuous_action.py), docs and ranges are the registry's: dsl/schema/algorithms.ts.
import { ACTION_MASK_SETTINGS, type ActionMaskSetting } from '../action-masking.js';
import { PlanParams } from '../../plan-params.js';
import type { Schedulable } from '../../schedule.js';
import { relabelParam, type Relabel } from '../replay/her.js';

/** The resolved params, named as the language names them (CleanRL's `args`). */
export interface SacSettings {
  /** The actor's (CleanRL's policy_lr). */
  learning_rate: Schedulable;
  /** The critics' and the temperature's (CleanRL's q_lr); null: the actor's. */
  critic_learning_rate: number | null;
  buffer: number;
  batch_size: number;
  gamma: number;
  tau: number;
  /** null: automatic temperature (`auto`). */
  alpha: number | null;
  /** null: `auto` (-action_dim continuous; 0.89 log(n) discrete, CleanRL's target_entropy_scale). */
  target_entropy: number | null;
  learning_starts: number;
  train_every: number;
  gradient_steps: number;
  policy_frequency: number;
  /** Hindsight relabeling, done by the replay buffer when it samples; null: none. */
  relabel: Relabel | null;
  action_mask: ActionMaskSetting;
}

/** Reads the plan's SAC params, defaults for missing ones; errors name the param. */
export function sacSettings(params: Readonly<Record<string, unknown>>): SacSettings {
  const p = PlanParams.of('SAC', params);
  const auto = (name: string) => (p.value(name) === 'auto' ? null : p.number(name));
  const relabel = relabelParam(p);
  return {
    learning_rate: p.schedule('learning_rate'),
    critic_learning_rate: p.value('critic_learning_rate') === 'same' ? null : p.number('critic_learning_rate'),
    buffer: p.count('buffer'),
    batch_size: p.count('batch_size'),
    gamma: p.number('gamma'),
    tau: p.number('tau'),
    alpha: auto('alpha'),
    target_entropy: auto('target_entropy'),
    learning_starts: p.number('learning_starts'),
    train_every: p.count('train_every'),
    gradient_steps: p.count('gradient_steps'),
    policy_frequency: p.count('policy_frequency'),
    relabel,
    action_mask: p.option('action_mask', ACTION_MASK_SETTINGS),
  };
}

/** CleanRL's sac_atari.py: the discrete temperature aims at 0.89 of the uniform policy's entropy. */
export const DISCRETE_TARGET_ENTROPY_SCALE = 0.89;

/** The entropy the automatic temperature aims for, `auto` resolved for the action space. */
export function targetEntropy(settings: Pick<SacSettings, 'target_entropy'>, discrete: boolean, actionDim: number): number {
  if (settings.target_entropy !== null) return settings.target_entropy;
  return discrete ? DISCRETE_TARGET_ENTROPY_SCALE * Math.log(actionDim) : -actionDim;
}
