// Algorithms by the names the language uses. Each takes its plan params and trains a policy
// on a Stepper; the trainer (../train.ts) runs the loop around it: evaluation, stopping,
// checkpoints, events.
import type { Policy } from '../policies/index.js';
import type { Rng } from '../random.js';
import type { ExecutionProvider } from '../tensor/index.js';
import { Ppo, PPO_PARAMS, ppoSettings } from './ppo.js';
import type { Algorithm } from './algorithm.js';
import type { Stepper } from './stepper.js';

export type { Algorithm } from './algorithm.js';
export { computeGae, buildPpoLoss, LOSS_METRICS, Ppo, PPO_PARAMS, ppoSettings, type PpoSettings, type PpoState } from './ppo.js';
export { Stepper, type EpisodeRecord, type TransitionSink } from './stepper.js';

/** The algorithms this runtime implements, with their params and defaults (for the drift test). */
export const ALGORITHM_PARAMS: Readonly<Record<string, Readonly<Record<string, { readonly default: unknown; readonly doc: string }>>>> = {
  PPO: PPO_PARAMS,
};

/** The action kinds each implemented algorithm trains on. */
export const ALGORITHM_ACTIONS: Readonly<Record<string, readonly ('discrete' | 'continuous')[]>> = {
  PPO: ['discrete', 'continuous'],
};

export interface AlgorithmContext {
  readonly params: Readonly<Record<string, unknown>>;
  readonly policy: Policy;
  readonly stepper: Stepper;
  /** Environment steps to train for. */
  readonly budget: number;
  readonly rng: Rng;
  readonly providers: readonly ExecutionProvider[];
  /** Compute independent gradient parts on worker threads; default: with more than one core (tensor/gradient-parts.ts). */
  readonly threads?: boolean;
}

export async function makeAlgorithm(kind: string, context: AlgorithmContext): Promise<Algorithm> {
  if (kind === 'PPO') {
    return Ppo.create({ ...context, settings: ppoSettings(context.params) });
  }
  throw new Error(`algorithm "${kind}" is not implemented in this runtime; implemented: ${Object.keys(ALGORITHM_PARAMS).join(', ')}`);
}
