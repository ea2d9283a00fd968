// Bandit: the k-armed Gaussian testbed (Sutton & Barto, section 2.3). Each
// arm's mean is drawn from N(0, 1); pulling an arm pays its mean plus N(0, 1)
// noise. Every episode is one pull (terminated after the step), and the
// observation is a constant, so the learner must find the best arm from
// rewards alone.
//
// The means belong to the seed, not to the episode: seeding draws them
// (from a stream of their own) and they stay fixed until the next seed. So
// every copy of a vectorised run faces the same bandit, and an unseeded
// reset between pulls does not change the problem.

import { Rng } from '../random.js';
import { BaseEnv } from './base.js';
import { integerParam, resolveParams, type ParamValues } from './params.js';

export const BANDIT_PARAMS = {
  arms: integerParam(10, 'Number of arms (k).', { min: 1, max: 100_000 }),
} as const;

export type BanditParams = ParamValues<typeof BANDIT_PARAMS>;

export class Bandit extends BaseEnv {
  readonly params: Readonly<BanditParams>;

  private readonly means: Float64Array;
  private lastArm = -1;

  constructor(params: Partial<BanditParams> = {}) {
    const resolved = resolveParams('Bandit', BANDIT_PARAMS, params);
    super({
      kind: 'Bandit',
      observationSpace: { kind: 'box', shape: [1], low: [1], high: [1] },
      actionSpace: { kind: 'discrete', n: resolved.arms },
      obsFields: ['bias'],
      stateLayout: Array.from({ length: resolved.arms }, (_, arm) => `mean_${arm}`),
      // Episodes end by termination after one pull; a time limit of 1 would
      // also flag every pull as truncated, which tells a learner to bootstrap.
      maxSteps: Number.POSITIVE_INFINITY,
    });
    this.params = Object.freeze(resolved);
    this.means = new Float64Array(resolved.arms);
  }

  /** The arm with the highest mean (the first one on ties). */
  get optimalArm(): number {
    let best = 0;
    for (let arm = 1; arm < this.means.length; arm++) if (this.means[arm] > this.means[best]) best = arm;
    return best;
  }

  protected override onSeed(seed: number): void {
    const meansRng = new Rng(seed).fork('arm_means');
    for (let arm = 0; arm < this.means.length; arm++) this.means[arm] = meansRng.normal();
  }

  protected drawInitialState(_rng: Rng): void {
    this.lastArm = -1;
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    const arm = actions[offset];
    this.lastArm = arm;
    this.terminated = true;
    // After setState() on a never-seeded bandit only the noise needs a stream;
    // randomStream() would seed and so redraw the means just installed.
    if (this.rng === undefined) this.rng = Rng.fromEntropy();
    return this.means[arm] + this.rng.normal();
  }

  writeObs(out: Float32Array, offset: number): void {
    out[offset] = 1;
  }

  protected override stepInfo(): Record<string, unknown> {
    if (this.lastArm < 0) return {};
    const optimal = this.optimalArm;
    return {
      arm: this.lastArm,
      mean: this.means[this.lastArm],
      optimal_arm: optimal,
      regret: this.means[optimal] - this.means[this.lastArm],
    };
  }

  /** The arm means. */
  getState(): number[] {
    return Array.from(this.means);
  }

  protected applyState(state: readonly number[]): void {
    this.means.set(state);
    this.lastArm = -1;
  }
}
