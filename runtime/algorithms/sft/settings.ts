// SFT's hyperparameters as the learner uses them, read from the plan. Their names, defaults,
// docs and ranges are the registry's: dsl/schema/algorithms.ts.
import { PlanParams } from '../../plan-params.js';
import type { Schedulable } from '../../schedule.js';
import { readTextMemory, type TextMemoryParams } from '../text/memory-settings.js';

export interface SftSettings extends Omit<TextMemoryParams, 'generation_batch'> {
  /** Where demonstrations come from: the task's own (prompt, target) pairs. */
  data: 'demos';
  updates: number;
  batch_size: number;
  learning_rate: Schedulable;
}

/** Reads the plan's SFT params, defaults for missing ones; errors name the param. */
export function sftSettings(params: Readonly<Record<string, unknown>>): SftSettings {
  const p = PlanParams.of('SFT', params);
  const data = p.value('data');
  if (data !== 'demos') {
    // The registry accepts a file's path; reading one is not implemented yet, and a run
    // must not silently train on something else.
    p.fail('data', '`demos` (demonstrations from a JSONL file are not implemented yet: put them in the env as `task: dataset("./file.jsonl")` and use `data: demos`)');
  }
  return { data: 'demos', updates: p.count('updates'), batch_size: p.count('batch_size'), learning_rate: p.schedule('learning_rate'), ...readTextMemory(p) };
}
