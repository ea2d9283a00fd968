// IQL's hyperparameters as the learner uses them, read from the plan. Their names, defaults
// (CORL's iql.py: expectile tau 0.7, beta 3.0), docs and ranges are the registry's: dsl/schema/algorithms.ts.
import { PlanParams } from '../../plan-params.js';
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
  const data = p.value('data');
  return {
    data: typeof data === 'string' && data !== '' ? data : p.fail('data', 'the path of an .npz file of transitions'),
    learning_rate: p.schedule('learning_rate'),
    batch_size: p.count('batch_size'),
    gamma: p.number('gamma'),
    tau: p.number('tau'),
    expectile: p.number('expectile'),
    temperature: p.number('temperature'),
    normalize: p.flag('normalize'),
  };
}
