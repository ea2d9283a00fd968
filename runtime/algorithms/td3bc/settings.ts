// TD3BC's hyperparameters as the learner uses them, read from the plan. Their names, defaults
// (CORL's td3_bc.py), docs and ranges are the registry's: dsl/schema/algorithms.ts.
import { PlanParams } from '../../plan-params.js';
import { transitionsPath } from '../offline/dataset.js';
import type { Schedulable } from '../../schedule.js';

export interface Td3bcSettings {
  data: string;
  learning_rate: Schedulable;
  batch_size: number;
  gamma: number;
  tau: number;
  alpha: number;
  policy_noise: number;
  noise_clip: number;
  policy_frequency: number;
  normalize: boolean;
}

export function td3bcSettings(params: Readonly<Record<string, unknown>>): Td3bcSettings {
  const p = PlanParams.of('TD3BC', params);
  return {
    data: transitionsPath(p),
    learning_rate: p.schedule('learning_rate'),
    batch_size: p.count('batch_size'),
    gamma: p.number('gamma'),
    tau: p.number('tau'),
    alpha: p.number('alpha'),
    policy_noise: p.number('policy_noise'),
    noise_clip: p.number('noise_clip'),
    policy_frequency: p.count('policy_frequency'),
    normalize: p.flag('normalize'),
  };
}
