// N copies of one environment stepped together, for rollouts.
//
// All results live in buffers allocated once (obs, rewards, flags, final
// observations), and the copies write into them directly through the
// FastEnv path, so a step allocates nothing: at millions of steps per second
// the garbage collector would otherwise cost more than the physics.
//
// Autoreset follows gymnasium.vector.SyncVectorEnv 0.29 ("same-step"): when
// a copy terminates or truncates, it is reset within the same step(), its
// row of `obs` holds the new episode's first observation, and the
// observation that ended the episode is kept in `finalObs` with
// `hasFinalObs` set, so a learner can bootstrap from it on truncation.

import { readActionMask } from './action-mask.js';
import { Rng } from '../../shared/random.js';
import { isFastEnv, isGoalConditioned, spaceSize, type Env, type FastEnv, type Space } from './types.js';

export interface FinishedEpisode {
  /** Which copy ran it. */
  readonly env: number;
  readonly return: number;
  readonly length: number;
  /** Whether it reached its goal; present for envs that report success (goal-conditioned, or `success` in infoFields). */
  readonly success?: boolean;
}

/**
 * Gives an environment that only has the plain reset/step API (a user's
 * module) the FastEnv shape. It allocates per step, as the plain API does.
 */
class PlainEnvAdapter implements FastEnv {
  readonly obsDim: number;
  readonly actionDim: number;
  terminated = false;
  truncated = false;
  success = false;
  readonly info: Float64Array;
  /** info.action_mask of the last reset() or step(), for an env that masks actions. */
  actionMask: unknown = undefined;
  private pendingSeed: number | undefined;

  constructor(private readonly env: Env) {
    this.obsDim = spaceSize(env.observationSpace);
    this.actionDim = spaceSize(env.actionSpace);
    this.info = new Float64Array(env.infoFields?.length ?? 0);
  }

  get kind(): string {
    return this.env.kind;
  }
  get observationSpace(): Space {
    return this.env.observationSpace;
  }
  get actionSpace(): Space {
    return this.env.actionSpace;
  }
  get obsFields(): readonly string[] {
    return this.env.obsFields;
  }
  get infoFields(): readonly string[] | undefined {
    return this.env.infoFields;
  }
  get stateLayout(): readonly string[] {
    return this.env.stateLayout;
  }
  get masksActions(): boolean | undefined {
    return this.env.masksActions;
  }
  get maxSteps(): number {
    return this.env.maxSteps;
  }
  get elapsedSteps(): number {
    return this.env.elapsedSteps;
  }

  seed(seed: number, stream = 0): void {
    // The plain API takes one number: derive it from (seed, stream).
    this.pendingSeed = new Rng(seed).fork(stream).uint32();
  }

  reset(seed?: number) {
    return this.env.reset(seed);
  }

  step(action: number | ArrayLike<number>) {
    return this.env.step(action);
  }

  getState(): number[] {
    return this.env.getState();
  }

  setState(state: readonly number[]): void {
    this.env.setState(state);
  }

  resetInto(obsOut: Float32Array, obsOffset: number): void {
    const { obs, info } = this.env.reset(this.pendingSeed);
    this.pendingSeed = undefined;
    if (this.env.masksActions === true) this.actionMask = info?.action_mask;
    this.copyObs(obs, obsOut, obsOffset);
    this.terminated = false;
    this.truncated = false;
    this.success = false;
  }

  stepInto(actions: ArrayLike<number>, actionOffset: number, obsOut: Float32Array, obsOffset: number): number {
    const action =
      this.env.actionSpace.kind === 'discrete'
        ? actions[actionOffset]
        : Array.from({ length: this.actionDim }, (_, k) => actions[actionOffset + k]);
    const result = this.env.step(action);
    this.copyObs(result.obs, obsOut, obsOffset);
    this.terminated = result.terminated;
    this.truncated = result.truncated;
    this.success = result.info.success === true;
    if (this.env.masksActions === true) this.actionMask = result.info?.action_mask;
    this.env.infoFields?.forEach((name, k) => (this.info[k] = Number(result.info[name] ?? 0)));
    return result.reward;
  }

  private copyObs(obs: ArrayLike<number>, obsOut: Float32Array, obsOffset: number): void {
    if (obs.length !== this.obsDim) {
      throw new Error(`${this.env.kind}: observation has ${obs.length} numbers, its observation space says ${this.obsDim}`);
    }
    for (let k = 0; k < this.obsDim; k++) obsOut[obsOffset + k] = obs[k];
  }
}

/**
 * Env copies that step faster all at once: a user module's copies live in one worker thread,
 * and one round trip for every copy costs what one for each would. A copy with a `batch`
 * (the same object for every copy) is stepped by batch.stepAll() before VecEnv reads each
 * copy's result through stepInto() as usual.
 */
export interface CopyBatch {
  stepAll(copies: readonly FastEnv[], actions: ArrayLike<number>, actionDim: number): void;
}

export class VecEnv {
  readonly numEnvs: number;
  readonly kind: string;
  readonly observationSpace: Space;
  readonly actionSpace: Space;
  readonly obsFields: readonly string[];
  /** What each step reports for reward terms (`info.NAME`); row i of `info` is copy i's. */
  readonly infoFields: readonly string[];
  readonly obsDim: number;
  readonly actionDim: number;

  /** Current observation of each copy, row i at [i * obsDim, (i + 1) * obsDim). */
  readonly obs: Float32Array;
  readonly rewards: Float32Array;
  readonly terminated: Uint8Array;
  readonly truncated: Uint8Array;
  /** Row i is the observation that ended copy i's episode in the last step, where hasFinalObs[i] is 1. */
  readonly finalObs: Float32Array;
  readonly hasFinalObs: Uint8Array;
  /** The infoFields values of each copy's last step, row i at [i * infoFields.length, ...). */
  readonly info: Float64Array;
  /**
   * For an env that masks actions (Env.masksActions): the legal actions of each copy's current
   * observation, row i at [i * n, (i + 1) * n) for n discrete actions, 1 legal and 0 not; null
   * for an env whose actions are always legal.
   */
  readonly actionMasks: Uint8Array | null;
  /** Row i is the mask of finalObs row i (the observation that ended copy i's episode), where hasFinalObs[i] is 1; it may allow no action. */
  readonly finalActionMasks: Uint8Array | null;
  /** Return and length of each copy's episode in progress. */
  readonly episodeReturns: Float64Array;
  readonly episodeLengths: Int32Array;

  private readonly discreteActions: number; // n for discrete action spaces, 0 for boxes and bits
  private readonly bitActions: boolean; // a MultiBinary action space: every number 0 or 1
  /** Episodes say whether they succeeded: goal-conditioned envs, and those that report `success` in infoFields. */
  private readonly reportsSuccess: boolean;
  private readonly batch: CopyBatch | null;
  /** The copies; copy i is replaced at the end of its episode where `successors[i]` is set (replaceCopies). */
  private readonly copies: FastEnv[];
  private successors: (FastEnv | null)[] | null = null;
  private successorSeed = 0;
  private finishedCount = 0;
  private finishedEnv = new Int32Array(64);
  private finishedReturn = new Float64Array(64);
  private finishedLength = new Int32Array(64);
  private finishedSuccess = new Uint8Array(64);

  constructor(envs: readonly Env[]) {
    if (envs.length === 0) throw new RangeError('VecEnv: needs at least one environment copy');
    const first = envs[0];
    this.infoFields = first.infoFields ?? [];
    this.reportsSuccess = isGoalConditioned(first) || this.infoFields.includes('success');
    this.copies = envs.map((env) => (isFastEnv(env) ? env : new PlainEnvAdapter(env)));
    this.numEnvs = envs.length;
    this.kind = first.kind;
    this.observationSpace = first.observationSpace;
    this.actionSpace = first.actionSpace;
    this.obsFields = first.obsFields;
    this.obsDim = this.envs[0].obsDim;
    this.actionDim = this.envs[0].actionDim;
    this.envs.forEach((env, index) => {
      if (env.kind !== this.kind || env.obsDim !== this.obsDim || env.actionDim !== this.actionDim) {
        throw new Error(
          `VecEnv: copy ${index} is ${env.kind} (obs ${env.obsDim}, action ${env.actionDim}), copy 0 is ${this.kind} (obs ${this.obsDim}, action ${this.actionDim}); all copies must match`,
        );
      }
    });
    this.discreteActions = this.actionSpace.kind === 'discrete' ? this.actionSpace.n : 0;
    this.bitActions = this.actionSpace.kind === 'multibinary';
    const batchOf = (env: FastEnv) => (env as FastEnv & { batch?: CopyBatch }).batch;
    const batch = batchOf(this.envs[0]);
    this.batch = batch !== undefined && this.envs.every((env) => batchOf(env) === batch) ? batch : null;

    const n = this.numEnvs;
    this.obs = new Float32Array(n * this.obsDim);
    this.rewards = new Float32Array(n);
    this.terminated = new Uint8Array(n);
    this.truncated = new Uint8Array(n);
    this.finalObs = new Float32Array(n * this.obsDim);
    this.hasFinalObs = new Uint8Array(n);
    this.info = new Float64Array(n * this.infoFields.length);
    this.episodeReturns = new Float64Array(n);
    this.episodeLengths = new Int32Array(n);
    const masks = first.masksActions === true || this.copies[0].masksActions === true;
    if (masks && this.discreteActions === 0) {
      throw new Error(`VecEnv(${this.kind}): the env masks actions, but its action space is ${this.actionSpace.kind}; action masks are for discrete actions`);
    }
    this.actionMasks = masks ? new Uint8Array(n * this.discreteActions).fill(1) : null;
    this.finalActionMasks = masks ? new Uint8Array(n * this.discreteActions).fill(1) : null;
  }

  /** Reads copy i's mask of the observation it just wrote (checked: action-mask.ts) into `into` (actionMasks or finalActionMasks). */
  private readMask(i: number, into: Uint8Array, step: number, final: boolean): void {
    const n = this.discreteActions;
    readActionMask(this.copies[i].actionMask, n, into, i * n, { env: this.kind, copy: i, step }, final);
  }

  /** The copies, in order. */
  get envs(): readonly FastEnv[] {
    return this.copies;
  }

  /**
   * Hands each copy over to `next`'s copy of the same index at the end of its current episode
   * (a curriculum's new parameter value): the episodes in flight finish as they began, so no
   * learner sees an episode cut without a done flag. Copy i of `next` then starts its episodes
   * from stream i of `seed`. `next` must be the same env with the same sizes; do not step it.
   */
  replaceCopies(next: VecEnv, seed: number): void {
    if (next.numEnvs !== this.numEnvs || next.kind !== this.kind || next.obsDim !== this.obsDim || next.actionDim !== this.actionDim || next.infoFields.join() !== this.infoFields.join()) {
      throw new Error(`the new ${next.kind} copies (${next.numEnvs} copies, obs ${next.obsDim}, action ${next.actionDim}) do not match the running ${this.kind} copies (${this.numEnvs}, obs ${this.obsDim}, action ${this.actionDim}): a curriculum may not change the observation or action size`);
    }
    // A module's copies are stepped together by its worker (CopyBatch): old and new copies must share it.
    if (next.batch !== this.batch) throw new Error(`the new ${next.kind} copies run in another worker than the running ones`);
    this.successors = [...next.copies];
    this.successorSeed = seed;
  }

  /** Builds `numEnvs` copies with `makeCopy(index)`. */
  static create(makeCopy: (index: number) => Env, numEnvs: number): VecEnv {
    if (!Number.isSafeInteger(numEnvs) || numEnvs < 1) {
      throw new RangeError(`VecEnv: the number of copies must be a positive integer, got ${numEnvs}`);
    }
    return new VecEnv(Array.from({ length: numEnvs }, (_, index) => makeCopy(index)));
  }

  /**
   * Starts a new episode in every copy. With a seed, copy i draws from
   * stream i of that seed (so copy 0 matches a single env reset with the
   * same seed); without one, each copy's stream continues.
   */
  reset(seed?: number): Float32Array {
    // Every episode restarts: copies waiting for theirs to end take over now.
    for (let i = 0; i < this.numEnvs && this.successors !== null; i++) if (this.successors[i] !== null) this.handOver(i);
    for (let i = 0; i < this.numEnvs; i++) {
      const env = this.envs[i];
      if (seed !== undefined) env.seed(seed, i);
      env.resetInto(this.obs, i * this.obsDim);
      if (this.actionMasks !== null) this.readMask(i, this.actionMasks, 0, false);
    }
    this.rewards.fill(0);
    this.terminated.fill(0);
    this.truncated.fill(0);
    this.hasFinalObs.fill(0);
    this.episodeReturns.fill(0);
    this.episodeLengths.fill(0);
    return this.obs;
  }

  /**
   * Steps every copy with its action (actions[i * actionDim ..]) and resets
   * the copies whose episode ended. Results are in the public buffers.
   */
  step(actions: ArrayLike<number>): void {
    const n = this.numEnvs;
    const obsDim = this.obsDim;
    const actionDim = this.actionDim;
    if (actions.length !== n * actionDim) {
      throw new RangeError(`VecEnv(${this.kind}): expected ${n * actionDim} actions (${n} copies x ${actionDim}), got ${actions.length}`);
    }
    const numActions = this.discreteActions;
    if (numActions > 0) {
      for (let i = 0; i < n; i++) {
        const action = actions[i];
        if (!(action >= 0 && action < numActions && Math.floor(action) === action)) {
          throw new RangeError(`VecEnv(${this.kind}): action for copy ${i} must be an integer in [0, ${numActions - 1}], got ${action}`);
        }
      }
    } else if (this.bitActions) {
      for (let k = 0; k < n * actionDim; k++) {
        if (actions[k] !== 0 && actions[k] !== 1) {
          throw new RangeError(`VecEnv(${this.kind}): action bit ${k % actionDim} for copy ${Math.floor(k / actionDim)} must be 0 or 1, got ${actions[k]}`);
        }
      }
    }
    const { copies: envs, obs, rewards, terminated, truncated, finalObs, hasFinalObs, episodeReturns, episodeLengths } = this;
    const infoDim = this.infoFields.length;
    this.batch?.stepAll(envs, actions, actionDim);
    for (let i = 0; i < n; i++) {
      const env = envs[i];
      const obsOffset = i * obsDim;
      const reward = env.stepInto(actions, i * actionDim, obs, obsOffset);
      rewards[i] = reward;
      // Before an autoreset: the info is the step's that ended the episode.
      if (infoDim > 0) this.info.set((env.info as ArrayLike<number>), i * infoDim);
      const episodeReturn = episodeReturns[i] + reward;
      const episodeLength = episodeLengths[i] + 1;
      const isTerminated = env.terminated;
      const isTruncated = env.truncated;
      terminated[i] = isTerminated ? 1 : 0;
      truncated[i] = isTruncated ? 1 : 0;
      if (isTerminated || isTruncated) {
        for (let k = 0; k < obsDim; k++) finalObs[obsOffset + k] = obs[obsOffset + k];
        hasFinalObs[i] = 1;
        const reported = env.episodeReturn;
        this.recordFinished(i, reported !== null && reported !== undefined && Number.isFinite(reported) ? reported : episodeReturn, episodeLength, env.success);
        episodeReturns[i] = 0;
        episodeLengths[i] = 0;
        if (this.finalActionMasks !== null) this.readMask(i, this.finalActionMasks, episodeLength, true);
        if (this.successors !== null && this.successors[i] !== null) this.handOver(i);
        envs[i].resetInto(obs, obsOffset);
        if (this.actionMasks !== null) this.readMask(i, this.actionMasks, 0, false);
      } else {
        hasFinalObs[i] = 0;
        episodeReturns[i] = episodeReturn;
        episodeLengths[i] = episodeLength;
        if (this.actionMasks !== null) this.readMask(i, this.actionMasks, episodeLength, false);
      }
    }
  }

  /** A zeroed action buffer of the right type and size for step(): Int32Array for discrete actions and bits, else Float32Array. */
  createActionBuffer(): Int32Array | Float32Array {
    const length = this.numEnvs * this.actionDim;
    return this.discreteActions > 0 || this.bitActions ? new Int32Array(length) : new Float32Array(length);
  }

  /** The episodes that ended since the last call, oldest first. */
  takeFinishedEpisodes(): FinishedEpisode[] {
    const episodes: FinishedEpisode[] = [];
    for (let j = 0; j < this.finishedCount; j++) {
      const episode = { env: this.finishedEnv[j], return: this.finishedReturn[j], length: this.finishedLength[j] };
      episodes.push(this.reportsSuccess ? { ...episode, success: this.finishedSuccess[j] === 1 } : episode);
    }
    this.finishedCount = 0;
    return episodes;
  }

  /** Copy i's episode ended: its successor takes its place. */
  private handOver(i: number): void {
    const successors = this.successors!;
    const next = successors[i]!;
    next.seed(this.successorSeed, i);
    this.copies[i] = next;
    successors[i] = null;
    if (successors.every((s) => s === null)) this.successors = null;
  }

  private recordFinished(env: number, episodeReturn: number, length: number, success: boolean): void {
    if (this.finishedCount === this.finishedEnv.length) this.growFinished();
    const j = this.finishedCount++;
    this.finishedEnv[j] = env;
    this.finishedReturn[j] = episodeReturn;
    this.finishedLength[j] = length;
    this.finishedSuccess[j] = success ? 1 : 0;
  }

  /** Doubles the finished-episode buffers; amortised, so steps stay allocation-free on average. */
  private growFinished(): void {
    const capacity = this.finishedEnv.length * 2;
    const grow = <T extends Int32Array | Float64Array | Uint8Array>(old: T, make: (size: number) => T): T => {
      const bigger = make(capacity);
      bigger.set(old);
      return bigger;
    };
    this.finishedEnv = grow(this.finishedEnv, (size) => new Int32Array(size));
    this.finishedReturn = grow(this.finishedReturn, (size) => new Float64Array(size));
    this.finishedLength = grow(this.finishedLength, (size) => new Int32Array(size));
    this.finishedSuccess = grow(this.finishedSuccess, (size) => new Uint8Array(size));
  }
}
