// Shared machinery of the built-in environments: seeding, the step counter
// and time-limit truncation (Gymnasium's TimeLimit wrapper, built in), and
// both stepping paths. Each environment only writes its dynamics
// (`advance`), its observation (`writeObs`), its reset distribution and its
// state layout; the plain `step()` and the allocation-free `stepInto()` both
// run the same `advance`, so the two paths cannot drift apart.

import { Rng } from '../../shared/random.js';
import { spaceSize, type Env, type EnvInfoRecord, type FastEnv, type ResetResult, type Space, type StepResult } from './types.js';

/** What a built-in env declares about itself; the rest of Env is BaseEnv's machinery. */
export type EnvShape = Pick<Env, 'kind' | 'observationSpace' | 'actionSpace' | 'obsFields' | 'stateLayout' | 'maxSteps'>;

export abstract class BaseEnv implements FastEnv {
  readonly kind: string;
  readonly observationSpace: Space;
  readonly actionSpace: Space;
  readonly obsFields: readonly string[];
  readonly stateLayout: readonly string[];
  readonly maxSteps: number;
  readonly obsDim: number;
  readonly actionDim: number;
  /** The resolved configuration (defaults filled in), named as the language names it. */
  abstract readonly config: Readonly<object>;

  elapsedSteps = 0;
  terminated = false;
  truncated = false;
  success = false;

  /** Undefined until the first seed() or reset(); an unseeded reset draws a seed from entropy, as Gymnasium does. */
  protected rng: Rng | undefined;
  private started = false;
  private readonly obsScratch: Float32Array;
  private readonly actionScratch: Float64Array;

  protected constructor(shape: EnvShape) {
    this.kind = shape.kind;
    this.observationSpace = shape.observationSpace;
    this.actionSpace = shape.actionSpace;
    this.obsFields = shape.obsFields;
    this.stateLayout = shape.stateLayout;
    this.maxSteps = shape.maxSteps;
    this.obsDim = spaceSize(shape.observationSpace);
    this.actionDim = spaceSize(shape.actionSpace);
    // No fields at all is allowed: an observation nobody should name (Bandit's constant input).
    if (this.obsFields.length !== this.obsDim && this.obsFields.length !== 0) {
      throw new Error(`${this.kind}: ${this.obsFields.length} obs fields for an observation of ${this.obsDim} numbers`);
    }
    this.obsScratch = new Float32Array(this.obsDim);
    this.actionScratch = new Float64Array(this.actionDim);
  }

  // ---- what each environment implements

  /** Draw the initial state of an episode from `rng` (Gymnasium's reset distribution). */
  protected abstract drawInitialState(rng: Rng): void;
  /** Apply the action at actions[offset ..], update the state, set `terminated` (and `success`); return the reward. */
  protected abstract advance(actions: ArrayLike<number>, offset: number): number;
  /** Write the observation as float32 at out[offset .. offset + obsDim). */
  abstract writeObs(out: Float32Array, offset: number): void;
  abstract getState(): number[];
  /** Install a state already checked for length and finiteness; throw if it is out of the env's domain. */
  protected abstract applyState(state: readonly number[]): void;
  /** Called when a new seed is set, for draws that belong to the seed rather than the episode (Bandit's arm means). */
  protected onSeed(_seed: number): void {}
  protected stepInfo(): EnvInfoRecord {
    return {};
  }
  protected resetInfo(): EnvInfoRecord {
    return this.stepInfo();
  }

  // ---- seeding and resets

  seed(seed: number, stream = 0): void {
    this.rng = new Rng(seed).fork(stream);
    this.onSeed(seed);
  }

  reset(seed?: number): ResetResult {
    if (seed !== undefined) this.seed(seed);
    this.startEpisode();
    this.writeObs(this.obsScratch, 0);
    return { obs: Float64Array.from(this.obsScratch), info: this.resetInfo() };
  }

  resetInto(obsOut: Float32Array, obsOffset: number): void {
    this.startEpisode();
    this.writeObs(obsOut, obsOffset);
  }

  /** The env's random stream, seeded from entropy on first use if nobody seeded it. */
  protected randomStream(): Rng {
    if (this.rng === undefined) this.seed(Rng.fromEntropy().uint32());
    return this.rng as Rng;
  }

  private startEpisode(): void {
    this.drawInitialState(this.randomStream());
    this.beginAtStepZero();
  }

  private beginAtStepZero(): void {
    this.elapsedSteps = 0;
    this.terminated = false;
    this.truncated = false;
    this.success = false;
    this.started = true;
  }

  // ---- stepping

  step(action: number | ArrayLike<number>): StepResult {
    const actions = this.checkedAction(action);
    const reward = this.stepInto(actions, 0, this.obsScratch, 0);
    return {
      obs: Float64Array.from(this.obsScratch),
      reward,
      terminated: this.terminated,
      truncated: this.truncated,
      info: this.stepInfo(),
    };
  }

  stepInto(actions: ArrayLike<number>, actionOffset: number, obsOut: Float32Array, obsOffset: number): number {
    if (!this.started) throw new Error(`${this.kind}: step before reset; call reset() or setState() first`);
    const reward = this.advance(actions, actionOffset);
    this.elapsedSteps++;
    // Like Gymnasium's TimeLimit: truncated may be true together with terminated.
    this.truncated = this.elapsedSteps >= this.maxSteps;
    this.writeObs(obsOut, obsOffset);
    return reward;
  }

  /** Validates a user's action for the plain step() API and returns it as a flat array. */
  private checkedAction(action: number | ArrayLike<number>): ArrayLike<number> {
    const values = typeof action === 'number' ? null : action;
    if (values === null && this.actionDim !== 1) {
      throw new RangeError(`${this.kind}: action must be an array of ${this.actionDim} numbers, got the number ${action}`);
    }
    if (values !== null && values.length !== this.actionDim) {
      throw new RangeError(`${this.kind}: action must have ${this.actionDim} number(s), got ${values.length}`);
    }
    const space = this.actionSpace;
    for (let i = 0; i < this.actionDim; i++) {
      const value = values === null ? (action as number) : values[i];
      if (space.kind === 'discrete') {
        if (!Number.isInteger(value) || value < 0 || value >= space.n) {
          throw new RangeError(`${this.kind}: action must be an integer in [0, ${space.n - 1}], got ${value}`);
        }
      } else if (typeof value !== 'number' || Number.isNaN(value)) {
        throw new RangeError(`${this.kind}: action element ${i} must be a number, got ${String(value)}`);
      }
      this.actionScratch[i] = value;
    }
    return this.actionScratch;
  }

  // ---- state

  setState(state: readonly number[]): void {
    if (state.length !== this.stateLayout.length || !state.every(Number.isFinite)) {
      throw new RangeError(
        `${this.kind}: setState expects ${this.stateLayout.length} finite numbers [${this.stateLayout.join(', ')}], got [${state.join(', ')}]`,
      );
    }
    this.applyState(state);
    this.beginAtStepZero();
  }
}
