// Public surface of the environments: the interface, the built-ins, the
// vectorised stepper and the registry the trainer builds envs through.

export type { BoxSpace, DiscreteSpace, Env, EnvInfoRecord, FastEnv, GoalConditioned, ResetResult, Space, StepResult } from './types.js';
export { isFastEnv, isGoalConditioned } from './types.js';
export { BaseEnv } from './base.js';
export { EnvParamError, envParams, type ParamDescription } from './params.js';
export { CartPole, type CartPoleConfig } from './cartpole.js';
export { MountainCar, type MountainCarConfig } from './mountain-car.js';
export { Acrobot, type AcrobotConfig } from './acrobot.js';
export { Pendulum, type PendulumConfig } from './pendulum.js';
export { GridWorld, type GoalSetting, type GridWorldConfig } from './grid-world.js';
export type { GridLayout } from '../../shared/geometry/grid-world.js';
export { Bandit, type BanditConfig } from './bandit.js';
export { FreeSlots, type FreeSlotsConfig } from './free-slots.js';
export { ActionMaskError, maskValues } from './action-mask.js';
export { Catch, type CatchConfig } from './catch.js';
export { VecEnv, type FinishedEpisode } from './vector.js';
export { envInfo, envKinds, makeEnv, makeVecEnv, prepareEnvKind, type EnvDescription } from './registry.js';
