// BC's hyperparameters as the learner uses them, read from the plan. Their names, defaults
// (CORL's any_percent_bc.py), docs and ranges are the registry's: dsl/schema/algorithms.ts.
import { PlanParams } from '../../plan-params.js';
import { transitionsPath } from '../offline/dataset.js';
import type { Schedulable } from '../../schedule.js';

export interface BcSettings {
  /** The dataset's path as the plan names it; the run reads it as a data file (AlgorithmContext.dataFiles). */
  data: string;
  learning_rate: Schedulable;
  batch_size: number;
  normalize: boolean;
}

export function bcSettings(params: Readonly<Record<string, unknown>>): BcSettings {
  const p = PlanParams.of('BC', params);
  return { data: transitionsPath(p), learning_rate: p.schedule('learning_rate'), batch_size: p.count('batch_size'), normalize: p.flag('normalize') };
}
