// Bandit: the k-armed Gaussian testbed (Sutton & Barto, section 2.3). Each
// arm's mean is drawn from N(0, 1); pulling an arm pays its mean plus
// N(0, reward_std^2) noise. An episode is `max_steps` pulls (1 by default);
// the last one terminates it: the horizon is part of the task, so a learner
// must not bootstrap past it (hence terminated, not truncated).
//
// The observation is one constant 1 with no field name (the language
// declares no observation fields for Bandit), so the learner must find the
// best arm from rewards alone.
//
// The means belong to the seed, not to the episode: seeding draws them
// (from a stream of their own) and they stay fixed until the next seed. So
// every copy of a vectorised run faces the same bandit, and an unseeded
// reset between pulls does not change the problem.

import { Rng } from '../../shared/random.js';
import { BaseEnv } from './base.js';
import { envParams } from './params.js';

/** Bandit's configuration; its names, defaults, docs and ranges are the language's (dsl/schema/envs.ts). */
export interface BanditConfig {
  readonly arms: number;
  readonly reward_std: number;
  readonly max_steps: number;
}

/** Reads a Bandit configuration: defaults for what `given` leaves out, each value checked. */
function banditConfig(given: object): BanditConfig {
  const p = envParams('Bandit', given);
  return { arms: p.number('arms'), reward_std: p.number('reward_std'), max_steps: p.count('max_steps') };
}


export class Bandit extends BaseEnv {
  readonly config: Readonly<BanditConfig>;

  private readonly means: Float64Array;
  private lastArm = -1;

  constructor(config: Partial<BanditConfig> = {}) {
    const resolved = banditConfig(config);
    super({
      kind: 'Bandit',
      observationSpace: { kind: 'box', shape: [1], low: [1], high: [1] },
      actionSpace: { kind: 'discrete', n: resolved.arms },
      obsFields: [],
      stateLayout: Array.from({ length: resolved.arms }, (_, arm) => `mean_${arm}`),
      // Episodes end by termination at the last pull (advance() below); a
      // time limit would also flag it as truncated, which tells a learner to bootstrap.
      maxSteps: Number.POSITIVE_INFINITY,
    });
    this.config = Object.freeze(resolved);
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
    // elapsedSteps counts the pulls before this one.
    this.terminated = this.elapsedSteps + 1 >= this.config.max_steps;
    // After setState() on a never-seeded bandit only the noise needs a stream;
    // randomStream() would seed and so redraw the means just installed.
    if (this.rng === undefined) this.rng = Rng.fromEntropy();
    return this.means[arm] + this.config.reward_std * this.rng.normal();
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
