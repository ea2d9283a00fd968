// IQL's hyperparameters as the learner uses them, read from the plan. Their names, defaults
// (CORL's iql.py: expectile tau 0.7, beta 3.0), docs and ranges are the registry's: dsl/schema/algorithms.ts.
import { PlanParams } from '../../plan-params.js';
import { transitionsPath } from '../offline/dataset.js';
import type { Schedulable } from '../../schedule.js';

export interface IqlSettings {
  data: string;
  learning_rate: Schedulable;
  batch_size: number;
  gamma: number;
  tau: number;
  expectile: number;
  temperature: number;
  normalize: boolean;
}

export function iqlSettings(params: Readonly<Record<string, unknown>>): IqlSettings {
  const p = PlanParams.of('IQL', params);
  return {
    data: transitionsPath(p),
    learning_rate: p.schedule('learning_rate'),
    batch_size: p.count('batch_size'),
    gamma: p.number('gamma'),
    tau: p.number('tau'),
    expectile: p.number('expectile'),
    temperature: p.number('temperature'),
    normalize: p.flag('normalize'),
  };
}
