// Public surface of the environments: the interface, the built-ins, the
// vectorised stepper and the registry the trainer builds envs through.

export type { BoxSpace, DiscreteSpace, Env, EnvInfoRecord, FastEnv, GoalConditioned, ResetResult, Space, StepResult } from './types.js';
export { isFastEnv, isGoalConditioned } from './types.js';
export { BaseEnv } from './base.js';
export { EnvParamError, type ParamDescription } from './params.js';
export { CartPole, CARTPOLE_PARAMS, type CartPoleParams } from './cartpole.js';
export { MountainCar, MOUNTAIN_CAR_PARAMS, type MountainCarParams } from './mountain-car.js';
export { Acrobot, ACROBOT_PARAMS, type AcrobotParams } from './acrobot.js';
export { Pendulum, PENDULUM_PARAMS, type PendulumParams } from './pendulum.js';
export { GridWorld, GRID_WORLD_PARAMS, type GoalSetting, type GridLayout, type GridWorldParams } from './grid-world.js';
export { Bandit, BANDIT_PARAMS, type BanditParams } from './bandit.js';
export { VecEnv, type FinishedEpisode } from './vector.js';
export { envInfo, envKinds, makeEnv, makeVecEnv, type EnvDescription } from './registry.js';
