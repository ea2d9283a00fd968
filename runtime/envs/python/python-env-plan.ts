// A plan's gymnasium(...) or python(...) env (kind 'gymnasium', dsl/schema/python-env.ts) as the
// trainer loads envs of user code: a LoadedEnvModule whose create() hands out copies in Python
// workers. A python("./file.py:Class") env's plan names its file relative to the .rlx file that
// compiled it, resolved here against the folder the trainer is told (`baseDir`); a run records the
// file's absolute path (run-dir.ts RUN_BUNDLE.pythonEnv), which its resume and eval use, so they
// find the file from any working folder.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PlanEnv } from '../../../dsl/compile/plan.js';
import { GYMNASIUM_ENV_KIND, GYMNASIUM_ENV_PARAMS } from '../../../dsl/schema/python-env.js';
import { PYTHON_TEXT_ENV_KIND } from '../../../dsl/schema/python-text-env.js';
import { PlanParams } from '../../plan-params.js';
import { isRunFolder, recordedPythonEnvFile, recordedPythonRewardFiles, RUN_BUNDLE } from '../../run/run-dir.js';
import type { LoadedEnvModule } from '../user-module.js';
import { PythonEnvError, PythonEnvs, type PythonEnvOptions } from './python-env.js';

export function isGymnasiumEnv(env: PlanEnv): boolean {
  return env.kind === GYMNASIUM_ENV_KIND;
}

/** The interpreter: the env's `python` setting, else RLX_PYTHON, else python3. */
export function pythonCommand(setting: string, env: NodeJS.ProcessEnv = process.env): string {
  return setting !== '' ? setting : env.RLX_PYTHON || 'python3';
}

/**
 * Where a plan's relative paths start: the .rlx file's folder, or a run folder (a resume, an eval,
 * a plan taken from a run), whose record of the file is used; the working folder when not told.
 */
export interface PythonEnvPlace {
  readonly baseDir?: string;
}

/** How the plan's env runs; PythonEnvError for a value the plan should not hold. */
export function gymnasiumOptions(env: PlanEnv, place: PythonEnvPlace = {}): PythonEnvOptions {
  const { id, file, class: className, kwargs, observations, ...settings } = env.params;
  const config = new PlanParams(`env ${env.name}`, GYMNASIUM_ENV_PARAMS, settings, (_owner, _param, message) => new PythonEnvError(message));
  const imports = settings.imports ?? [];
  if (!Array.isArray(imports) || !imports.every((name) => typeof name === 'string')) throw new PythonEnvError(`env ${env.name}: imports must be a list of module names`);
  if (kwargs !== undefined && (typeof kwargs !== 'object' || kwargs === null || Array.isArray(kwargs))) throw new PythonEnvError(`env ${env.name}: kwargs must be an object of keyword arguments; recompile the plan`);
  const names = observations ?? [];
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) throw new PythonEnvError(`env ${env.name}: observations must be a list of names`);
  const maxSteps = settings.max_steps;
  return {
    name: env.name,
    ...envSource(env.name, id, file, className, place),
    kwargs: (kwargs ?? {}) as Record<string, unknown>,
    imports: imports as string[],
    maxSteps: typeof maxSteps === 'number' ? maxSteps : 0,
    python: pythonCommand(typeof settings.python === 'string' ? settings.python : ''),
    timeoutSeconds: config.number('env_timeout'),
    copiesPerProcess: config.number('copies_per_process'),
    observations: names as string[],
  };
}

/** A registered id, or a class in a file (its path resolved against `baseDir`). */
function envSource(name: string, id: unknown, file: unknown, className: unknown, place: PythonEnvPlace): { id: string; file?: string; className?: string } {
  if (typeof file === 'string' && file !== '') {
    if (typeof className !== 'string' || className === '') throw new PythonEnvError(`env ${name}: the plan names the file ${file} but no class in it; recompile it`);
    return { id: '', file: pythonEnvFile(name, file, place), className };
  }
  if (typeof id !== 'string' || id === '') throw new PythonEnvError(`env ${name}: the plan names no Gymnasium id and no Python file; recompile it`);
  return { id };
}

/**
 * The absolute path of a python(...) env's file `written` (the plan's, relative to the .rlx file):
 * the run folder's record where `place.baseDir` is a run folder that has one, else resolved
 * against the .rlx file's folder (a run of an earlier version: the working folder, as it was).
 */
export function pythonEnvFile(name: string, written: string, place: PythonEnvPlace): string {
  const recorded = recordedPythonEnvFile(place.baseDir);
  if (recorded === undefined) return path.resolve(place.baseDir !== undefined && !isRunFolder(place.baseDir) ? place.baseDir : process.cwd(), written);
  if (!fs.existsSync(recorded)) {
    throw new PythonEnvError(
      `env ${name}: its Python file ${recorded} (where it was when the run trained) is not there any more; ` +
        `put it back there, or write where it is now into ${path.join(place.baseDir!, RUN_BUNDLE.pythonEnv)} ({"file": "/absolute/path/of/the/file.py"})`,
    );
  }
  return recorded;
}

/**
 * The absolute path of a python("./file.py:fn") reward function's file `written`: where a run
 * folder `baseDir` recorded it (RUN_BUNDLE.pythonRewards), else relative to the .rlx file's folder;
 * `{ problem }` when there is no such file.
 */
export function pythonRewardFile(written: string, baseDir: string | undefined): string | { problem: string } {
  const run = baseDir !== undefined && isRunFolder(baseDir);
  const recorded = run ? recordedPythonRewardFiles(baseDir)?.[written] : undefined;
  const file = recorded ?? path.resolve(baseDir !== undefined && !run ? baseDir : process.cwd(), written);
  if (fs.existsSync(file) && fs.statSync(file).isFile()) return file;
  return { problem: recorded ? `its file ${file} (where it was when the run trained) is not there any more; put it back, or write where it is now into ${path.join(baseDir!, RUN_BUNDLE.pythonRewards)}` : `no file ${file}; python("...") paths are relative to the .rlx file` };
}

/** The absolute path a new run records of its python(...) or python_text(...) env's file (RUN_BUNDLE.pythonEnv); undefined for a gymnasium(...) env and other envs. */
export function pythonEnvFileToRecord(env: PlanEnv, place: PythonEnvPlace): string | undefined {
  if (!isGymnasiumEnv(env) && env.kind !== PYTHON_TEXT_ENV_KIND) return undefined;
  const written = env.params.file;
  return typeof written === 'string' && written !== '' ? pythonEnvFile(env.name, written, place) : undefined;
}

/** A curriculum over a keyword argument writes its value as the param `kwargs.NAME` (`param: env.kwargs.NAME`). */
export const KWARGS_PARAM_PREFIX = 'kwargs.';

/** The kwargs of copies made with `params`: the declaration's, with a curriculum's `kwargs.NAME` values over them. */
export function kwargsOf(declared: Readonly<Record<string, unknown>>, params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const kwargs = { ...declared };
  for (const [key, value] of Object.entries(params)) if (key.startsWith(KWARGS_PARAM_PREFIX)) kwargs[key.slice(KWARGS_PARAM_PREFIX.length)] = value;
  return kwargs;
}

/**
 * Starts the env's first worker (which learns its spaces); the trainer asks it for copies. Copies
 * asked for with a curriculum's value (`kwargs.NAME` in params) are made in workers of their own
 * with that keyword argument; the workers of earlier values idle until the run ends.
 */
export function loadGymnasiumEnv(env: PlanEnv, processEnv?: NodeJS.ProcessEnv, place: PythonEnvPlace = {}): LoadedEnvModule {
  const options = gymnasiumOptions(env, place);
  const envs = new PythonEnvs({ ...options, ...(processEnv ? { processEnv } : {}) });
  return {
    create: (params) => envs.create(kwargsOf(options.kwargs, params ?? {})),
    text: null,
    code: '',
    close: () => envs.close(),
  };
}
