// A user env module's copies as the trainer sees them: each forwards reset() and step() to its
// copy in the module's worker through the host (module-host.ts), and reads the answer from the
// shared records. A goal-conditioned module's copies also answer computeReward on this thread.
import { Rng } from '../../shared/random.js';
import type { GoalFunctions } from './module-env.js';
import { EnvModuleError } from './module-errors.js';
import { FLAG, type recordLayout } from './module-protocol.js';
import { spaceSize, type FastEnv, type GoalConditioned, type ResetResult, type Space, type StepResult } from './types.js';
import type { CopyBatch } from './vector.js';

/** What a numeric module's worker says of it. */
export interface ModuleInfo {
  readonly kind: string;
  readonly observationSpace: Space;
  readonly actionSpace: Space;
  readonly obsFields: readonly string[];
  readonly infoFields: readonly string[];
  /** A goal-conditioned module's goal and achieved observation names. */
  readonly goal?: { readonly goal: readonly string[]; readonly achieved: readonly string[] };
}

/** What a copy asks of the module's host: one reset or step, and the records a batched step left. */
export interface RemoteCopies extends CopyBatch {
  readonly layout: ReturnType<typeof recordLayout>;
  /** Results of the last stepAll(), a record per copy. */
  readonly prepared: Float64Array;
  /** Step records, or a reset's observation. */
  readonly numbers: Float64Array;
  reset(copy: number, seed: number | undefined): void;
  stepOne(copy: number, actions: ArrayLike<number>, offset: number): void;
  /** Where copy `copy`'s record from the last stepAll() starts in `prepared`, once; -1 if there is none. */
  takePrepared(copy: number): number;
}

/** One env copy in the module's worker, with the FastEnv shape the vectorised stepper uses. */
export class RemoteEnv implements FastEnv {
  readonly obsDim: number;
  readonly actionDim: number;
  readonly stateLayout: readonly string[] = [];
  terminated = false;
  truncated = false;
  success = false;
  elapsedSteps = 0;
  /** The declared info values of the last step, in infoFields order. */
  readonly info: Float64Array;
  private pendingSeed: number | undefined;

  constructor(
    private readonly host: RemoteCopies,
    private readonly module: ModuleInfo,
    readonly copy: number,
    readonly maxSteps: number,
  ) {
    this.obsDim = spaceSize(module.observationSpace);
    this.actionDim = spaceSize(module.actionSpace);
    this.info = new Float64Array(module.infoFields.length);
  }

  /** VecEnv steps the copies of one module together (vector.ts CopyBatch). */
  get batch(): CopyBatch {
    return this.host;
  }

  get kind(): string {
    return this.module.kind;
  }
  get observationSpace(): Space {
    return this.module.observationSpace;
  }
  get actionSpace(): Space {
    return this.module.actionSpace;
  }
  get obsFields(): readonly string[] {
    return this.module.obsFields;
  }
  get infoFields(): readonly string[] {
    return this.module.infoFields;
  }

  seed(seed: number, stream = 0): void {
    // The plain API takes one number: derive it from (seed, stream).
    this.pendingSeed = new Rng(seed).fork(stream).uint32();
  }

  reset(seed?: number): ResetResult {
    this.startEpisode(seed);
    return { obs: Array.from(this.host.numbers.subarray(0, this.obsDim)), info: {} };
  }

  step(action: number | ArrayLike<number>): StepResult {
    const obs = new Float32Array(this.obsDim);
    const reward = this.stepInto(typeof action === 'number' ? [action] : action, 0, obs, 0);
    const info: Record<string, number | boolean> = Object.fromEntries(this.infoFields.map((name, k) => [name, this.info[k]]));
    if (this.success) info.success = true;
    return { obs: Array.from(obs), reward, terminated: this.terminated, truncated: this.truncated, info };
  }

  resetInto(obsOut: Float32Array, obsOffset: number): void {
    this.startEpisode(this.pendingSeed);
    this.pendingSeed = undefined;
    const numbers = this.host.numbers;
    for (let k = 0; k < this.obsDim; k++) obsOut[obsOffset + k] = numbers[k];
  }

  stepInto(actions: ArrayLike<number>, actionOffset: number, obsOut: Float32Array, obsOffset: number): number {
    const { host } = this;
    // Stepped already with the other copies (VecEnv), or now on its own.
    let at = host.takePrepared(this.copy);
    let source: Float64Array = host.prepared;
    if (at < 0) {
      host.stepOne(this.copy, actions, actionOffset);
      at = 0;
      source = host.numbers;
    }
    for (let k = 0; k < this.obsDim; k++) obsOut[obsOffset + k] = source[at + k];
    const flags = source[at + host.layout.flags];
    this.terminated = (flags & FLAG.terminated) !== 0;
    this.truncated = (flags & FLAG.truncated) !== 0;
    this.success = (flags & FLAG.success) !== 0;
    for (let k = 0; k < this.info.length; k++) this.info[k] = source[at + host.layout.info + k];
    this.elapsedSteps++;
    return source[at + host.layout.reward];
  }

  getState(): number[] {
    throw new EnvModuleError(`${this.kind}: user environments have no getState()`);
  }

  setState(): void {
    throw new EnvModuleError(`${this.kind}: user environments have no setState()`);
  }

  private startEpisode(seed: number | undefined): void {
    this.host.reset(this.copy, seed);
    this.elapsedSteps = 0;
    this.terminated = false;
    this.truncated = false;
    this.success = false;
  }
}

/**
 * A copy of a goal-conditioned module: its reward for any (achieved, goal) comes from the module's
 * computeReward, and whether that ends the episode from its computeTerminated when it has one.
 */
export class GoalRemoteEnv extends RemoteEnv implements GoalConditioned {
  readonly goalFields: readonly string[];
  readonly achievedFields: readonly string[];
  /** Absent when the module exports none: relabeled rows then keep their stored dones. */
  readonly computeTerminated?: (achieved: ArrayLike<number>, goal: ArrayLike<number>) => boolean;

  constructor(host: RemoteCopies, module: ModuleInfo, copy: number, maxSteps: number, goal: NonNullable<ModuleInfo['goal']>, private readonly functions: GoalFunctions) {
    super(host, module, copy, maxSteps);
    this.goalFields = goal.goal;
    this.achievedFields = goal.achieved;
    if (functions.terminated) this.computeTerminated = functions.terminated;
  }

  computeReward(achieved: ArrayLike<number>, goal: ArrayLike<number>): number {
    return this.functions.reward(achieved, goal);
  }
}
