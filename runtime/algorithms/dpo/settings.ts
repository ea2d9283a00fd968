// DPO's hyperparameters as the learner uses them, read from the plan. Their names, defaults,
// docs and ranges are the registry's: dsl/schema/algorithms.ts.
import { PlanParams } from '../../plan-params.js';
import type { Schedulable } from '../../schedule.js';
import { readTextMemory, type TextMemoryParams } from '../text/memory-settings.js';

export const PREFERENCE_LOSSES = ['sigmoid', 'ipo', 'hinge', 'robust', 'simpo'] as const;
export type PreferenceLoss = (typeof PREFERENCE_LOSSES)[number];

export interface DpoSettings extends Omit<TextMemoryParams, 'generation_batch'> {
  /** The JSONL file of preference pairs (its path as the plan names it). */
  data: { file: string };
  updates: number;
  batch_size: number;
  learning_rate: Schedulable;
  beta: number;
  loss: PreferenceLoss;
  label_smoothing: number;
  reference: 'initial' | 'none';
  simpo_gamma: number;
  rpo_alpha: number;
  max_grad_norm: number;
}

/** Reads the plan's DPO params, defaults for missing ones; errors name the param. */
export function dpoSettings(params: Readonly<Record<string, unknown>>): DpoSettings {
  const p = PlanParams.of('DPO', params);
  const data = p.value('data');
  if (typeof data !== 'string' || data === '') p.fail('data', 'the path of a JSONL file of preference pairs');
  return {
    data: { file: data as string },
    updates: p.count('updates'),
    batch_size: p.count('batch_size'),
    learning_rate: p.schedule('learning_rate'),
    beta: p.number('beta'),
    loss: p.option('loss', PREFERENCE_LOSSES),
    label_smoothing: p.number('label_smoothing'),
    reference: p.option('reference', ['initial', 'none'] as const),
    simpo_gamma: p.number('simpo_gamma'),
    rpo_alpha: p.number('rpo_alpha'),
    max_grad_norm: p.number('max_grad_norm'),
    ...readTextMemory(p),
  };
}

/** Whether the loss takes ratios to a reference: SimPO never does, the others unless `reference: none`. */
export function usesReference(s: Pick<DpoSettings, 'loss' | 'reference'>): boolean {
  return s.loss !== 'simpo' && s.reference === 'initial';
}
