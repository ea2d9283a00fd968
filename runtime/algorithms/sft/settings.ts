// SFT's hyperparameters as the learner uses them, read from the plan. Their names, defaults,
// docs and ranges are the registry's: dsl/schema/algorithms.ts.
import { PlanParams } from '../../plan-params.js';
import type { Schedulable } from '../../schedule.js';
import { readTextMemory, type TextMemoryParams } from '../text/memory-settings.js';

export interface SftSettings extends Omit<TextMemoryParams, 'generation_batch'> {
  /** Where demonstrations come from: the env's own, or a JSONL file of {"prompt", "target"} lines (its path as the plan names it). */
  data: 'demos' | { file: string };
  updates: number;
  batch_size: number;
  learning_rate: Schedulable;
}

/** Reads the plan's SFT params, defaults for missing ones; errors name the param. */
export function sftSettings(params: Readonly<Record<string, unknown>>): SftSettings {
  const p = PlanParams.of('SFT', params);
  const data = p.value('data');
  if (data !== 'demos' && (typeof data !== 'string' || data === '')) p.fail('data', '`demos` or the path of a JSONL file of demonstrations');
  return { data: data === 'demos' ? 'demos' : { file: data as string }, updates: p.count('updates'), batch_size: p.count('batch_size'), learning_rate: p.schedule('learning_rate'), ...readTextMemory(p) };
}
