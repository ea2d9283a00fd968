// A user env module's exports made into checked environments: the class or function it
// exports, each copy checked against the interface (user-module.ts describes it), and step
// counting with truncation filled in. Runs inside the module's worker thread
// (module-worker.ts); nothing here knows about threads.
import * as path from 'node:path';
import { envModuleSpec, type EnvModuleSpec } from '../../dsl/schema/env-module.js';
import { TextModuleEnv } from './module-text-env.js';
import { describeThrown, EnvModuleError, short } from './module-errors.js';
import { actionKindOf, spaceSize, type Env, type ResetResult, type Space, type StepResult } from './types.js';

interface UserEnv {
  observationSpace?: unknown;
  actionSpace?: unknown;
  obsFields?: unknown;
  maxSteps?: unknown;
  reset?: unknown;
  step?: unknown;
}

/** What makes a module's copies: numeric envs, or text envs (a spec with `actions: 'text'`). */
export type ModuleMaker =
  | { readonly text: false; make(params: Record<string, unknown>): ModuleEnv }
  | { readonly text: true; make(params: Record<string, unknown>): TextModuleEnv };

/** The copy maker of a module's exports; throws an EnvModuleError when it exports none. */
export function moduleMaker(exports: Record<string, unknown>, origin: string): ModuleMaker {
  const make = exports.default ?? exports.createEnv;
  if (typeof make !== 'function') {
    throw new EnvModuleError(`the env module ${origin} must export a class or a function as its default export (or \`createEnv\`); it exports: ${Object.keys(exports).join(', ') || 'nothing'}`);
  }
  // A class without a step() is still a class: construct it, so the copy's check can say what it lacks.
  const isClass = typeof (make as { prototype?: { step?: unknown } }).prototype?.step === 'function' || /^class\b/.test(Function.prototype.toString.call(make));
  const kind = path.basename(origin).replace(/\.(ts|js|mjs|cjs)$/, '');
  let spec: EnvModuleSpec | undefined;
  if (exports.spec !== undefined) {
    const read = envModuleSpec(exports.spec);
    if ('problem' in read) throw new EnvModuleError(`${origin}: ${read.problem} (docs/language.md#user-environments)`);
    spec = read.spec;
  }
  const user = (params: Record<string, unknown>): UserEnv => {
    try {
      return isClass ? new (make as new (p: Record<string, unknown>) => UserEnv)(params) : (make as (p: Record<string, unknown>) => UserEnv)(params);
    } catch (err) {
      throw new EnvModuleError(`creating the env of ${origin} failed: ${describeThrown(err)}`);
    }
  };
  if (spec?.text) return { text: true, make: (params) => new TextModuleEnv(user(params), kind, origin, spec) };
  if (spec?.goal) goalFunctionsOf(exports, origin); // a goal-conditioned module without computeReward fails at load
  return { text: false, make: (params) => new ModuleEnv(user(params), kind, origin, params, spec) };
}

/**
 * What a goal-conditioned module computes for any (achieved, goal): the reward step() would give,
 * and, when the module exports computeTerminated, whether reaching `achieved` ends the episode.
 */
export interface GoalFunctions {
  reward(achieved: ArrayLike<number>, goal: ArrayLike<number>): number;
  terminated?: (achieved: ArrayLike<number>, goal: ArrayLike<number>) => boolean;
}

/**
 * The `computeReward(achieved, goal, info)` a goal-conditioned module exports, and its optional
 * `computeTerminated(achieved, goal, info)`, checked on every call: what they throw, or a result
 * of the wrong type, says which module and why. Relabeling has no step info to give: `info` is `{}`.
 */
export function goalFunctionsOf(exports: Record<string, unknown>, origin: string): GoalFunctions {
  const reward = exports.computeReward;
  if (typeof reward !== 'function') {
    throw new EnvModuleError(`${origin}: its spec declares goal and achieved, so it must export a pure function computeReward(achieved, goal, info) returning the reward for reaching \`achieved\` when asked for \`goal\` (docs/language.md#user-environments)`);
  }
  const terminated = exports.computeTerminated;
  if (terminated !== undefined && typeof terminated !== 'function') {
    throw new EnvModuleError(`${origin}: computeTerminated must be a function (achieved, goal, info) => boolean, or not exported; got ${short(terminated)}`);
  }
  const info = Object.freeze({});
  type GoalFunction = (achieved: ArrayLike<number>, goal: ArrayLike<number>, info: object) => unknown;
  const call = (fn: GoalFunction, name: string, achieved: ArrayLike<number>, goal: ArrayLike<number>): unknown => {
    try {
      return fn(achieved, goal, info);
    } catch (err) {
      throw new EnvModuleError(`${origin}: ${name}() threw: ${describeThrown(err)}`);
    }
  };
  return {
    reward: (achieved, goal) => {
      const value = call(reward as GoalFunction, 'computeReward', achieved, goal);
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new EnvModuleError(`${origin}: computeReward() must return a finite number; got ${short(value)}`);
      return value;
    },
    terminated:
      typeof terminated === 'function'
        ? (achieved, goal) => {
            const value = call(terminated as GoalFunction, 'computeTerminated', achieved, goal);
            if (typeof value !== 'boolean') throw new EnvModuleError(`${origin}: computeTerminated() must return true or false; got ${short(value)}`);
            return value;
          }
        : undefined,
  };
}

/** The copy maker of a numeric module's exports. */
export function envMaker(exports: Record<string, unknown>, origin: string): (params: Record<string, unknown>) => ModuleEnv {
  const maker = moduleMaker(exports, origin);
  if (maker.text) throw new EnvModuleError(`${origin} is a text env (spec.actions: 'text'); it makes dialogues, not numeric env copies`);
  return maker.make;
}

function checkSpace(value: unknown, what: string, origin: string): Space {
  const space = value as Partial<Space> | undefined;
  if ((space?.kind === 'discrete' || space?.kind === 'multibinary') && Number.isInteger((space as { n?: unknown }).n) && (space as { n: number }).n > 0) return space as Space;
  if (space?.kind === 'box') {
    const box = space as { shape?: unknown; low?: unknown; high?: unknown };
    if (Array.isArray(box.shape) && box.shape.every((d) => Number.isInteger(d) && d > 0)) {
      const size = (box.shape as number[]).reduce((a, b) => a * b, 1);
      // Bounds may be one number for every element, or left out (unbounded).
      const bound = (b: unknown, unbounded: number): number[] | undefined =>
        Array.isArray(b) ? (b.length === size ? (b as number[]) : undefined) : new Array<number>(size).fill(typeof b === 'number' ? b : unbounded);
      const low = bound(box.low, -Infinity);
      const high = bound(box.high, Infinity);
      if (low && high) return { kind: 'box', shape: box.shape as number[], low, high };
    }
  }
  throw new EnvModuleError(`${origin}: ${what} must be { kind: 'discrete', n }, { kind: 'box', shape, low, high } or { kind: 'multibinary', n }; got ${JSON.stringify(value)}`);
}

/** A user's env with the rest of the Env interface filled in: names, step counting, truncation, checked results. */
export class ModuleEnv implements Env {
  readonly observationSpace: Space;
  readonly actionSpace: Space;
  readonly obsFields: readonly string[];
  /** What step() reports in info, as `spec.info` declares: numbers, true/false as 1/0. */
  readonly infoFields: readonly string[];
  /** A goal-conditioned module's goal and achieved observation names (`spec.goal`, `spec.achieved`). */
  readonly goal: EnvModuleSpec['goal'];
  readonly stateLayout: readonly string[] = [];
  readonly maxSteps: number;
  elapsedSteps = 0;
  private readonly obsSize: number;
  private readonly resetFn: (seed?: number) => unknown;
  private readonly stepFn: (action: number | ArrayLike<number>) => unknown;

  constructor(user: UserEnv, readonly kind: string, private readonly origin: string, params: Record<string, unknown>, spec?: EnvModuleSpec) {
    const missing = ['observationSpace', 'actionSpace', 'reset', 'step'].filter((m) => user[m as keyof UserEnv] === undefined);
    if (missing.length > 0) throw new EnvModuleError(`the env of ${origin} lacks ${missing.join(', ')}; see docs/language.md#user-environments for the interface`);
    if (typeof user.reset !== 'function' || typeof user.step !== 'function') throw new EnvModuleError(`${origin}: reset and step must be methods`);
    this.observationSpace = checkSpace(user.observationSpace, 'observationSpace', origin);
    this.actionSpace = checkSpace(user.actionSpace, 'actionSpace', origin);
    this.obsSize = spaceSize(this.observationSpace);
    if (user.obsFields !== undefined && !(Array.isArray(user.obsFields) && user.obsFields.every((f) => typeof f === 'string'))) {
      throw new EnvModuleError(`${origin}: obsFields must be a list of names`);
    }
    this.obsFields = (user.obsFields as string[] | undefined) ?? spec?.observations ?? [];
    this.infoFields = spec?.info ?? [];
    this.goal = spec?.goal;
    if (spec) this.checkSpec(spec);
    const limit = user.maxSteps ?? params.max_steps;
    this.maxSteps = typeof limit === 'number' && limit > 0 ? limit : Infinity;
    this.resetFn = (user.reset as (seed?: number) => unknown).bind(user);
    this.stepFn = (user.step as (action: number | ArrayLike<number>) => unknown).bind(user);
  }

  reset(seed?: number): ResetResult {
    this.elapsedSteps = 0;
    const result = this.call(() => this.resetFn(seed), 'reset()') as ResetResult | undefined;
    if (!result || !isNumbers(result.obs)) throw new EnvModuleError(`${this.origin}: reset() must return { obs: number[], info }; got ${short(result)}`);
    this.checkObs(result.obs, 'reset()');
    return { obs: result.obs, info: result.info ?? {} };
  }

  step(action: number | ArrayLike<number>): StepResult {
    const result = this.call(() => this.stepFn(action), 'step()') as Partial<StepResult> | undefined;
    if (!result || !isNumbers(result.obs) || typeof result.reward !== 'number' || typeof result.terminated !== 'boolean') {
      throw new EnvModuleError(`${this.origin}: step() must return { obs: number[], reward: number, terminated: boolean, truncated: boolean, info }; got ${short(result)}`);
    }
    this.checkObs(result.obs, 'step()');
    this.checkInfo(result.info);
    this.elapsedSteps++;
    const truncated = result.truncated === true || (!result.terminated && this.elapsedSteps >= this.maxSteps);
    return { obs: result.obs, reward: result.reward, terminated: result.terminated, truncated, info: result.info ?? {} };
  }

  /** The declared info values of a step's info, in infoFields order (true/false as 1/0). */
  infoValues(info: Record<string, unknown>): number[] {
    return this.infoFields.map((name) => Number(info[name] ?? 0));
  }

  /** What the module declares (env-module.ts) agrees with what it is. */
  private checkSpec(spec: EnvModuleSpec): void {
    const kind = actionKindOf(this.actionSpace);
    if (spec.actions !== kind) throw new EnvModuleError(`${this.origin}: spec.actions says '${spec.actions}', but actionSpace is ${this.actionSpace.kind === 'box' ? "a box (actions: 'continuous')" : this.actionSpace.kind}`);
    const named = spec.observations.length;
    if (named > 0 && named !== this.obsSize) throw new EnvModuleError(`${this.origin}: spec.observations names ${named} numbers, but observationSpace has ${this.obsSize}`);
    if (named > 0 && this.obsFields.join() !== spec.observations.join()) {
      throw new EnvModuleError(`${this.origin}: obsFields (${this.obsFields.join(', ')}) and spec.observations (${spec.observations.join(', ')}) differ; keep one of them`);
    }
  }

  /** Each declared info value is in the info, a number or true/false; `success` may be left out (false). */
  private checkInfo(info: Record<string, unknown> | undefined): void {
    for (const name of this.infoFields) {
      const value = info?.[name];
      if (typeof value === 'number' || typeof value === 'boolean' || (value === undefined && name === 'success')) continue;
      throw new EnvModuleError(value === undefined
        ? `${this.origin}: step() returned an info without '${name}', which spec.info declares; report it on every step`
        : `${this.origin}: step()'s info.${name} must be a number or true/false; got ${short(value)}`);
    }
  }

  getState(): number[] {
    throw new EnvModuleError(`${this.origin}: user environments have no getState()`);
  }

  setState(): void {
    throw new EnvModuleError(`${this.origin}: user environments have no setState()`);
  }

  /** Runs the user's method; whatever it throws becomes an EnvModuleError that names the method. */
  private call(method: () => unknown, what: string): unknown {
    try {
      return method();
    } catch (err) {
      throw new EnvModuleError(`${this.origin}: ${what} threw: ${describeThrown(err)}`);
    }
  }

  private checkObs(obs: ArrayLike<number>, what: string): void {
    if (obs.length !== this.obsSize) throw new EnvModuleError(`${this.origin}: ${what} returned ${obs.length} observation numbers, but observationSpace has ${this.obsSize}`);
  }
}

function isNumbers(value: unknown): value is number[] | Float64Array | Float32Array {
  return (Array.isArray(value) && value.every((v) => typeof v === 'number')) || value instanceof Float64Array || value instanceof Float32Array;
}

/** One reset and one step, so a broken module fails before training with a clear message. */
export function probe(env: Env, origin: string): void {
  env.reset(0);
  const size = spaceSize(env.observationSpace);
  if (env.obsFields.length > 0 && env.obsFields.length !== size) {
    throw new EnvModuleError(`${origin}: obsFields names ${env.obsFields.length} fields, but observations have ${size} numbers`);
  }
  const space = env.actionSpace;
  const middle = (lo: number, hi: number) => (Number.isFinite(lo) && Number.isFinite(hi) ? (lo + hi) / 2 : 0);
  env.step(space.kind === 'discrete' ? 0 : space.kind === 'multibinary' ? new Array<number>(space.n).fill(0) : space.low.map((lo, i) => middle(lo, space.high[i])));
}
