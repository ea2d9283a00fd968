// A plan's gymnasium(...) env (kind 'gymnasium', dsl/schema/python-env.ts) as the trainer loads
// envs of user code: a LoadedEnvModule whose create() hands out copies in Python workers.
import type { PlanEnv } from '../../../dsl/compile/plan.js';
import { GYMNASIUM_ENV_KIND, GYMNASIUM_ENV_PARAMS } from '../../../dsl/schema/python-env.js';
import { PlanParams } from '../../plan-params.js';
import type { LoadedEnvModule } from '../user-module.js';
import { PythonEnvError, PythonEnvs, type PythonEnvOptions } from './python-env.js';

export function isGymnasiumEnv(env: PlanEnv): boolean {
  return env.kind === GYMNASIUM_ENV_KIND;
}

/** The interpreter: the env's `python` setting, else RLX_PYTHON, else python3. */
export function pythonCommand(setting: string, env: NodeJS.ProcessEnv = process.env): string {
  return setting !== '' ? setting : env.RLX_PYTHON || 'python3';
}

/** How the plan's gymnasium(...) env runs; PythonEnvError for a value the plan should not hold. */
export function gymnasiumOptions(env: PlanEnv): PythonEnvOptions {
  const { id, ...settings } = env.params;
  if (typeof id !== 'string' || id === '') throw new PythonEnvError(`env ${env.name}: the plan names no Gymnasium id; recompile it`);
  const config = new PlanParams(`env ${env.name}`, GYMNASIUM_ENV_PARAMS, settings, (_owner, _param, message) => new PythonEnvError(message));
  const imports = settings.imports ?? [];
  if (!Array.isArray(imports) || !imports.every((name) => typeof name === 'string')) throw new PythonEnvError(`env ${env.name}: imports must be a list of module names`);
  const maxSteps = settings.max_steps;
  return {
    name: env.name,
    id,
    kwargs: {},
    imports: imports as string[],
    maxSteps: typeof maxSteps === 'number' ? maxSteps : 0,
    python: pythonCommand(typeof settings.python === 'string' ? settings.python : ''),
    timeoutSeconds: config.number('env_timeout'),
    copiesPerProcess: config.number('copies_per_process'),
  };
}

/** Starts the env's first worker (which learns its spaces); the trainer asks it for copies. */
export function loadGymnasiumEnv(env: PlanEnv, processEnv?: NodeJS.ProcessEnv): LoadedEnvModule {
  const envs = new PythonEnvs({ ...gymnasiumOptions(env), ...(processEnv ? { processEnv } : {}) });
  return {
    create: () => envs.create(),
    text: null,
    code: '',
    close: () => envs.close(),
  };
}
