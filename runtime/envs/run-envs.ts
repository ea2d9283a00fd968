// The env copies of a saved run (rlx eval): a built-in from the plan, the user module the run
// directory keeps bundled (source/env-module.mjs, written by the trainer), so that a run is
// evaluated on exactly the code it trained on, whatever became of the module's file since, or a
// python(...) env's file where the run recorded it (source/python-env.json).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Plan } from '../../dsl/compile/plan.js';
import { RUN_BUNDLE, RunDirectory } from '../run/run-dir.js';
import { readRunJson, RUN_FILE_LIMITS } from '../run/run-files.js';
import { isGymnasiumEnv, loadGymnasiumEnv } from './python/python-env-plan.js';
import { makeVecEnv, prepareEnvKind } from './registry.js';
import { EnvModuleError, loadBundledEnvModule, type LoadedEnvModule } from './user-module.js';
import { VecEnv } from './vector.js';

export interface RunEnvs {
  readonly vec: VecEnv;
  /** Stops a module's worker thread; nothing for a built-in. */
  close(): void;
}

/** The module the run in `runDir` keeps bundled (its plan's env is `module(...)`). */
export async function loadRunModule(runDir: string, plan: Plan): Promise<LoadedEnvModule> {
  const file = path.join(runDir, RUN_BUNDLE.envModule);
  if (!fs.existsSync(file)) {
    throw new EnvModuleError(`${runDir} has no copy of env ${plan.env.name}'s module (${RUN_BUNDLE.envModule}); the run directory is incomplete`);
  }
  return loadBundledEnvModule(runDir, file, plan.env.params, { name: plan.env.name });
}

/**
 * The env params a run's policy is evaluated with: the plan's, with a curriculum's parameter at
 * the value it had when that policy was saved, so that a policy is judged on the task it was
 * training on: for `checkpoints/policy-<step>.onnx` the value its state-<step>.json recorded,
 * otherwise (the final policy, or a file of another name) the value the run reached (status.json).
 */
export function runEnvParams(runDir: string, plan: Plan, policyFile?: string): Record<string, unknown> {
  if (!plan.curriculum) return plan.env.params;
  const value = policyFile !== undefined ? curriculumAtCheckpoint(policyFile) : undefined;
  const reached = RunDirectory.readStatus(runDir)?.curriculum;
  const current = value ?? (reached?.param === plan.curriculum.param ? reached.value : undefined);
  if (current === undefined) return plan.env.params;
  return { ...plan.env.params, [plan.curriculum.param.slice('env.'.length)]: current };
}

/** The curriculum value that the checkpoint beside `policy-<step>.onnx` recorded, if it did. */
function curriculumAtCheckpoint(policyFile: string): number | undefined {
  const step = /^policy-(\d+)\.onnx$/.exec(path.basename(policyFile))?.[1];
  if (step === undefined) return undefined;
  const dir = path.dirname(policyFile);
  try {
    const state = readRunJson(dir, path.join(dir, `state-${step}.json`), RUN_FILE_LIMITS.checkpointState) as { trainer?: { curriculum?: unknown } } | null;
    return typeof state?.trainer?.curriculum === 'number' ? state.trainer.curriculum : undefined;
  } catch {
    return undefined; // no state beside it (copied elsewhere), a damaged or refused one: the run's own value
  }
}

/**
 * `count` copies of the env of the run in `runDir` (with runEnvParams() for `policyFile`); a module env's from
 * `loaded` when the caller has loaded it already (its close() then ends it), else from the run's bundle.
 */
export async function openRunEnvs(runDir: string, plan: Plan, count: number, loaded?: LoadedEnvModule, policyFile?: string): Promise<RunEnvs> {
  const params = runEnvParams(runDir, plan, policyFile);
  if (plan.env.kind !== 'module' && !isGymnasiumEnv(plan.env)) {
    await prepareEnvKind(plan.env.kind);
    return { vec: makeVecEnv(plan.env.kind, params, count), close: () => {} };
  }
  const module = loaded ?? (isGymnasiumEnv(plan.env) ? loadGymnasiumEnv(plan.env, undefined, { baseDir: runDir }) : await loadRunModule(runDir, plan));
  try {
    return { vec: VecEnv.create(() => module.create(params), count), close: () => module.close() };
  } catch (err) {
    module.close();
    throw err;
  }
}
