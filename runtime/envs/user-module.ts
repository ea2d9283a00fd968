// User environments: `env Mine = module("./my_env.ts")`. The module is TypeScript or
// JavaScript; esbuild bundles it (with whatever it imports) into one ES module, which is
// loaded and checked against the interface below before any training starts. The bundle is
// kept in the run directory (source/env-module.mjs), so a resume runs exactly the same code.
// The module runs in a worker thread (module-host.ts), so that a step that never returns or a
// process.exit() in it fails the run with a message instead of hanging or ending the trainer.
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
//
// A text env (a dialogue) declares `spec.actions: 'text'` and has reset(seed) -> { observation },
// step(text) -> { observation, reward, done, info } and optionally expert() (module-text-env.ts).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { MODULE_ENV_PARAMS } from '../../dsl/schema/index.js';
import { InputFileError, openInputFile } from '../../shared/input-files.js';
import { PlanParams } from '../plan-params.js';
import { readRunText } from '../run/run-files.js';
import { goalFunctionsOf, type GoalFunctions } from './module-env.js';
import { describeThrown, EnvModuleError } from './module-errors.js';
import { EnvInterruptedError, ModuleHost, type TextModuleInfo } from './module-host.js';
import type { TextReset, TextStep } from './module-text-env.js';
import type { Env } from './types.js';

export { EnvInterruptedError, EnvModuleError };

export interface LoadedEnvModule {
  /** Makes one env copy from the plan's params (a numeric module). */
  create(params: Record<string, unknown>): Env;
  /** A text module's copies (spec.actions: 'text'); null for a numeric one. */
  readonly text: TextModule | null;
  /** The bundled code, to keep in the run directory. */
  code: string;
  /** Stops the module's worker thread; its copies fail from then on. */
  close(): void;
}

/** A text module's copies, each a dialogue env in the worker, called by number (text/module-dialogue.ts). */
export interface TextModule {
  /** The bounds and names the module declares, and whether it has an expert. */
  readonly info: TextModuleInfo;
  /** Makes a copy from the plan's params; its number. */
  create(params: Record<string, unknown>): number;
  reset(copy: number, seed: number): TextReset;
  step(copy: number, text: string): TextStep;
  /** The next good agent turn; null when the module has no expert(). */
  expert(copy: number): string | null;
}

/** How the trainer runs a module: the env's name (for messages); its params give env_timeout. */
export interface EnvModuleOptions {
  /** The env's name in the .rlx file; the file's name by default. */
  readonly name?: string;
}

/** What rlx reads from a module env's params (the rest go to the module): from the schema registry. */
export function moduleEnvConfig(name: string, params: Record<string, unknown>): { timeoutSeconds: number } {
  const own = Object.fromEntries(MODULE_ENV_PARAMS.filter((p) => params[p.name] !== undefined).map((p) => [p.name, params[p.name]]));
  const config = new PlanParams(`env ${name}`, MODULE_ENV_PARAMS, own, (_owner, _param, message) => new EnvModuleError(message));
  return { timeoutSeconds: config.number('env_timeout') };
}

/**
 * The largest source file of a module (the module or a file it imports) and the largest
 * bundle a run keeps: far above code written by hand or a bundled library.
 */
export const MODULE_SOURCE_LIMIT = { what: 'env module source', maxBytes: 64 * 2 ** 20 } as const;
export const MODULE_BUNDLE_LIMIT = { what: 'bundled env module', maxBytes: 256 * 2 ** 20 } as const;

/**
 * Refuses a FIFO, a device or a huge file where esbuild would read the module or a file it
 * imports: esbuild would wait on the pipe for good, or read /dev/zero until memory runs out.
 * Opened without blocking and checked on its descriptor (shared/input-files.ts).
 */
function checkSourceFile(file: string): void {
  try {
    fs.closeSync(openInputFile(file, MODULE_SOURCE_LIMIT).fd);
  } catch (err) {
    if (err instanceof InputFileError) throw new EnvModuleError(err.message);
    throw err;
  }
}

/** An esbuild plugin that checks every file of the bundle (checkSourceFile) before esbuild reads it. */
const regularFilesOnly: Plugin = {
  name: 'rlx-regular-files-only',
  setup(build) {
    build.onLoad({ filter: /.*/ }, (args) => {
      if (args.namespace !== 'file') return undefined;
      try {
        checkSourceFile(args.path);
      } catch (err) {
        // As esbuild's own error, at the import that named the file.
        if (err instanceof EnvModuleError) return { errors: [{ text: err.message }] };
        throw err;
      }
      return undefined; // checked: esbuild reads it as usual
    });
  },
};

/** Bundles and loads a module file (.ts, .js, .mjs); checks its shape on a first copy. */
export async function loadEnvModule(file: string, params: Record<string, unknown>, options: EnvModuleOptions = {}): Promise<LoadedEnvModule> {
  if (!fs.existsSync(file)) throw new EnvModuleError(`the env module ${file} does not exist; module("...") paths are relative to the .rlx file`);
  checkSourceFile(file);
  const esbuild = await import('esbuild');
  let code: string;
  try {
    const result = await esbuild.build({
      entryPoints: [file], bundle: true, platform: 'node', format: 'esm', target: 'node20', write: false, logLevel: 'silent',
      plugins: [regularFilesOnly],
    });
    code = result.outputFiles[0].text;
  } catch (err) {
    const errors = (err as { errors?: { text: string; location?: { file: string; line: number; column: number } }[] }).errors ?? [];
    const first = errors[0];
    const where = first?.location ? `${first.location.file}:${first.location.line}:${first.location.column + 1}: ` : '';
    throw new EnvModuleError(`cannot compile the env module ${file}: ${where}${first?.text ?? (err as Error).message}`);
  }
  return instantiate(code, file, params, options);
}

/**
 * Loads already-bundled module code (a run directory's source/env-module.mjs) for a resume or
 * an evaluation: a regular file inside `runDir`, of at most MODULE_BUNDLE_LIMIT (run-files.ts).
 */
export async function loadBundledEnvModule(runDir: string, file: string, params: Record<string, unknown>, options: EnvModuleOptions = {}): Promise<LoadedEnvModule> {
  let code: string;
  try {
    code = readRunText(runDir, file, MODULE_BUNDLE_LIMIT);
  } catch (err) {
    if (err instanceof InputFileError) throw new EnvModuleError(err.message);
    throw err;
  }
  return instantiate(code, file, params, options);
}

async function instantiate(code: string, origin: string, params: Record<string, unknown>, options: EnvModuleOptions): Promise<LoadedEnvModule> {
  const name = options.name ?? origin.replace(/^.*[\\/]/, '').replace(/\.(ts|js|mjs|cjs)$/, '');
  const host = await ModuleHost.start(code, origin, params, { name, ...moduleEnvConfig(name, params) });
  if (!host.text && host.info.goal) {
    try {
      host.useGoalFunctions(await loadGoalFunctions(code, origin));
    } catch (err) {
      host.close();
      throw err;
    }
  }
  const info = host.text;
  const text: TextModule | null = info && {
    info,
    create: (p) => host.createText(p),
    reset: (copy, seed) => host.textReset(copy, seed),
    step: (copy, turn) => host.textStep(copy, turn),
    expert: (copy) => host.textExpert(copy),
  };
  return { create: (p) => host.create(p), text, code, close: () => host.close() };
}

/**
 * A goal-conditioned module's computeReward (and computeTerminated), loaded on the trainer's
 * thread: the replay buffer relabels on this thread, synchronously, for every sampled row, and a
 * round trip to the module's worker per row would cost more than the gradient step. The module's
 * top-level code therefore runs here too; both must be pure (docs/language.md#user-environments).
 */
async function loadGoalFunctions(code: string, origin: string): Promise<GoalFunctions> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-env-'));
  const file = path.join(dir, 'env-module.mjs');
  try {
    fs.writeFileSync(file, code);
    let exports: Record<string, unknown>;
    try {
      exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (err) {
      throw new EnvModuleError(`the env module ${origin} failed while loading for computeReward: ${describeThrown(err)}`);
    }
    return goalFunctionsOf(exports, origin);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
