// The programmatic API of rlx (package export "."):
//
//   import { makeEnv, train } from 'rlx';
//
//   const env = makeEnv('CartPole', { max_steps: 200 });
//   let { obs } = env.reset(1);
//   const { obs: next, reward, terminated, truncated } = env.step(1);
//
//   const result = await train(plan);            // a plan from `rlx plan` or dsl's compile()
//   console.log(result.runDir, result.metrics['train/mean_return']);
//
// Everything else (tensor graphs, policies, the PPO internals) is reachable through the
// modules under runtime/, but only what is exported here is the supported surface.

export type { BoxSpace, DiscreteSpace, Env, EnvInfoRecord, FastEnv, GoalConditioned, ResetResult, Space, StepResult } from './envs/types.js';
export { isGoalConditioned } from './envs/types.js';
export { EnvParamError } from './envs/params.js';
export { VecEnv, type FinishedEpisode } from './envs/vector.js';
export { envInfo, envKinds, makeVecEnv, prepareEnvKind, type EnvDescription } from './envs/registry.js';
export { Rng } from '../shared/random.js';
export { DeviceError, type DeviceRequest } from './device.js';
export { PlanError } from './support.js';
export { resume, ResumeError, RunFailedError, train, type TrainOptions, type TrainProgress, type TrainResult } from './train.js';
export type { RunEvent, RunStatus } from './run/events.js';
export { readEventFile, readEvents } from './run/events.js';
export type { SourceFile, StatusFile } from './run/run-dir.js';
export type { Plan } from '../dsl/compile/plan.js';

import { makeEnv as makeBuiltinEnv } from './envs/registry.js';
import type { FastEnv } from './envs/types.js';

/**
 * Builds one built-in environment by the name the language uses (`CartPole`, `MountainCar`,
 * `Acrobot`, `Pendulum`, `GridWorld`, `Bandit`, and MuJoCo's `HalfCheetah`, `Hopper`, ...) with
 * its params (defaults for the rest; an unknown or invalid param throws an EnvParamError naming
 * it). A MuJoCo env needs its engine loaded first: `await prepareEnvKind('Hopper')` once.
 *
 * The env follows Gymnasium's API: `reset(seed?)` returns `{ obs, info }`, `step(action)` returns
 * `{ obs, reward, terminated, truncated, info }`; `obsFields` names the observation's
 * elements; `getState()`/`setState(state)` read and replace the internal state (laid out as
 * `stateLayout`), as the Gymnasium reference fixtures record it.
 */
export function makeEnv(kind: string, params: Record<string, unknown> = {}): FastEnv {
  return makeBuiltinEnv(kind, params);
}
