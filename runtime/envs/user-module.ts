// User environments: `env Mine = module("./my_env.ts")`. The module is TypeScript or
// JavaScript; esbuild bundles it (with whatever it imports) into one ES module, which is
// loaded and checked against the interface below before any training starts. The bundle is
// kept in the run directory (source/env-module.mjs), so a resume runs exactly the same code.
//
// What a module must provide (the plain half of the built-in Env interface):
//
//   export default class MyEnv {            // or: export default function create(params) { return {...} }
//     constructor(params) { ... }          // params: the env's properties in the .rlx file
//     observationSpace = { kind: 'box', shape: [4], low: [...], high: [...] };
//     actionSpace = { kind: 'discrete', n: 2 };   // or { kind: 'box', shape, low, high }
//     obsFields = ['x', 'x_dot', ...];      // optional: names for reward terms (obs.x)
//     maxSteps = 500;                       // optional: truncation (or params.max_steps)
//     reset(seed) { return { obs: [...], info: {} }; }
//     step(action) { return { obs, reward, terminated, truncated, info: {} }; }
//   }
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { spaceSize, type Env, type ResetResult, type Space, type StepResult } from './types.js';

/** A module that cannot be loaded or does not fulfil the interface; the message says what to fix. */
export class EnvModuleError extends Error {
  override name = 'EnvModuleError';
}

export interface LoadedEnvModule {
  /** Makes one env copy from the plan's params. */
  create(params: Record<string, unknown>): Env;
  /** The bundled code, to keep in the run directory. */
  code: string;
}

interface UserEnv {
  observationSpace?: unknown;
  actionSpace?: unknown;
  obsFields?: unknown;
  maxSteps?: unknown;
  reset?: unknown;
  step?: unknown;
}

/** Bundles and loads a module file (.ts, .js, .mjs); checks its shape on a first copy. */
export async function loadEnvModule(file: string, params: Record<string, unknown>): Promise<LoadedEnvModule> {
  if (!fs.existsSync(file)) throw new EnvModuleError(`the env module ${file} does not exist; module("...") paths are relative to the .rlx file`);
  const esbuild = await import('esbuild');
  let code: string;
  try {
    const result = await esbuild.build({
      entryPoints: [file], bundle: true, platform: 'node', format: 'esm', target: 'node20', write: false, logLevel: 'silent',
    });
    code = result.outputFiles[0].text;
  } catch (err) {
    const errors = (err as { errors?: { text: string; location?: { file: string; line: number; column: number } }[] }).errors ?? [];
    const first = errors[0];
    const where = first?.location ? `${first.location.file}:${first.location.line}:${first.location.column + 1}: ` : '';
    throw new EnvModuleError(`cannot compile the env module ${file}: ${where}${first?.text ?? (err as Error).message}`);
  }
  return { ...(await instantiate(code, file, params)), code };
}

/** Loads already-bundled module code (from a run directory) for a resume. */
export async function loadBundledEnvModule(file: string, params: Record<string, unknown>): Promise<LoadedEnvModule> {
  const code = fs.readFileSync(file, 'utf8');
  return { ...(await instantiate(code, file, params)), code };
}

async function instantiate(code: string, origin: string, params: Record<string, unknown>): Promise<{ create(params: Record<string, unknown>): Env }> {
  // import() needs a file; a private temporary one, removed right after loading.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-env-'));
  const bundled = path.join(dir, 'env-module.mjs');
  fs.writeFileSync(bundled, code);
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(bundled).href)) as Record<string, unknown>;
  } catch (err) {
    throw new EnvModuleError(`the env module ${origin} failed while loading: ${(err as Error).message}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const make = exports.default ?? exports.createEnv;
  if (typeof make !== 'function') {
    throw new EnvModuleError(`the env module ${origin} must export a class or a function as its default export (or \`createEnv\`); it exports: ${Object.keys(exports).join(', ') || 'nothing'}`);
  }
  const isClass = typeof (make as { prototype?: { step?: unknown } }).prototype?.step === 'function';
  const kind = path.basename(origin).replace(/\.(ts|js|mjs|cjs)$/, '');
  const create = (p: Record<string, unknown>): Env => {
    let user: UserEnv;
    try {
      user = (isClass ? new (make as new (p: Record<string, unknown>) => UserEnv)(p) : (make as (p: Record<string, unknown>) => UserEnv)(p));
    } catch (err) {
      throw new EnvModuleError(`creating the env of ${origin} failed: ${(err as Error).message}`);
    }
    return new ModuleEnv(user, kind, origin, p);
  };
  probe(create(params), origin);
  return { create };
}

function checkSpace(value: unknown, what: string, origin: string): Space {
  const space = value as Partial<Space> | undefined;
  if (space?.kind === 'discrete' && Number.isInteger((space as { n?: unknown }).n) && (space as { n: number }).n > 0) return space as Space;
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
  throw new EnvModuleError(`${origin}: ${what} must be { kind: 'discrete', n } or { kind: 'box', shape, low, high }; got ${JSON.stringify(value)}`);
}

/** A user's env with the rest of the Env interface filled in: names, step counting, truncation. */
class ModuleEnv implements Env {
  readonly observationSpace: Space;
  readonly actionSpace: Space;
  readonly obsFields: readonly string[];
  readonly stateLayout: readonly string[] = [];
  readonly maxSteps: number;
  elapsedSteps = 0;
  private readonly resetFn: (seed?: number) => unknown;
  private readonly stepFn: (action: number | ArrayLike<number>) => unknown;

  constructor(user: UserEnv, readonly kind: string, private readonly origin: string, params: Record<string, unknown>) {
    const missing = ['observationSpace', 'actionSpace', 'reset', 'step'].filter((m) => user[m as keyof UserEnv] === undefined);
    if (missing.length > 0) throw new EnvModuleError(`the env of ${origin} lacks ${missing.join(', ')}; see docs/language.md#user-environments for the interface`);
    if (typeof user.reset !== 'function' || typeof user.step !== 'function') throw new EnvModuleError(`${origin}: reset and step must be methods`);
    this.observationSpace = checkSpace(user.observationSpace, 'observationSpace', origin);
    this.actionSpace = checkSpace(user.actionSpace, 'actionSpace', origin);
    if (user.obsFields !== undefined && !(Array.isArray(user.obsFields) && user.obsFields.every((f) => typeof f === 'string'))) {
      throw new EnvModuleError(`${origin}: obsFields must be a list of names`);
    }
    this.obsFields = (user.obsFields as string[] | undefined) ?? [];
    const limit = user.maxSteps ?? params.max_steps;
    this.maxSteps = typeof limit === 'number' && limit > 0 ? limit : Infinity;
    this.resetFn = (user.reset as (seed?: number) => unknown).bind(user);
    this.stepFn = (user.step as (action: number | ArrayLike<number>) => unknown).bind(user);
  }

  reset(seed?: number): ResetResult {
    this.elapsedSteps = 0;
    const result = this.resetFn(seed) as ResetResult | undefined;
    if (!result || !isNumbers(result.obs)) throw new EnvModuleError(`${this.origin}: reset() must return { obs: number[], info }; got ${short(result)}`);
    return { obs: result.obs, info: result.info ?? {} };
  }

  step(action: number | ArrayLike<number>): StepResult {
    const result = this.stepFn(action) as Partial<StepResult> | undefined;
    if (!result || !isNumbers(result.obs) || typeof result.reward !== 'number' || typeof result.terminated !== 'boolean') {
      throw new EnvModuleError(`${this.origin}: step() must return { obs: number[], reward: number, terminated: boolean, truncated: boolean, info }; got ${short(result)}`);
    }
    this.elapsedSteps++;
    const truncated = result.truncated === true || (!result.terminated && this.elapsedSteps >= this.maxSteps);
    return { obs: result.obs, reward: result.reward, terminated: result.terminated, truncated, info: result.info ?? {} };
  }

  getState(): number[] {
    throw new EnvModuleError(`${this.origin}: user environments have no getState()`);
  }

  setState(): void {
    throw new EnvModuleError(`${this.origin}: user environments have no setState()`);
  }
}

function isNumbers(value: unknown): value is number[] | Float64Array | Float32Array {
  return (Array.isArray(value) && value.every((v) => typeof v === 'number')) || value instanceof Float64Array || value instanceof Float32Array;
}

function short(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** One reset and one step, so a broken module fails before training with a clear message. */
function probe(env: Env, origin: string): void {
  const { obs } = env.reset(0);
  const size = spaceSize(env.observationSpace);
  if (obs.length !== size) throw new EnvModuleError(`${origin}: reset() returned ${obs.length} observation numbers, but observationSpace has ${size}`);
  if (env.obsFields.length > 0 && env.obsFields.length !== size) {
    throw new EnvModuleError(`${origin}: obsFields names ${env.obsFields.length} fields, but observations have ${size} numbers`);
  }
  const space = env.actionSpace;
  const middle = (lo: number, hi: number) => (Number.isFinite(lo) && Number.isFinite(hi) ? (lo + hi) / 2 : 0);
  env.step(space.kind === 'discrete' ? 0 : space.low.map((lo, i) => middle(lo, space.high[i])));
}
