// The built-in MuJoCo envs, one row each: how to build one and how to read its settings
// without building it (a plan's checks run before the engine is loaded). The env registry
// (../registry.ts) takes them from here, so adding an env is its declaration in
// dsl/schema/mujoco-envs.ts, its own file here and one row below.
import { Ant, antConfig } from './ant.js';
import { Humanoid, humanoidConfig } from './humanoid.js';
import type { MujocoEnv } from './mujoco-env.js';
import { doublePendulumConfig, InvertedDoublePendulum, InvertedPendulum, pendulumConfig } from './pendulums.js';
import { HalfCheetah, Hopper, hopperConfig, runnerConfig, Swimmer, Walker2d } from './planar.js';
import { Pusher, pusherConfig } from './pusher.js';
import { Reacher, reacherConfig } from './reacher.js';

export interface MujocoEnvRow {
  readonly create: (params: object) => MujocoEnv;
  /** Reads and checks the settings (throws an EnvParamError naming a bad one); needs no engine. */
  readonly readConfig: (params: object) => unknown;
}

export const MUJOCO_RUNTIME: Readonly<Record<string, MujocoEnvRow>> = {
  InvertedPendulum: { create: (p) => new InvertedPendulum(p), readConfig: (p) => pendulumConfig(p) },
  InvertedDoublePendulum: { create: (p) => new InvertedDoublePendulum(p), readConfig: doublePendulumConfig },
  HalfCheetah: { create: (p) => new HalfCheetah(p), readConfig: (p) => runnerConfig('HalfCheetah', p) },
  Hopper: { create: (p) => new Hopper(p), readConfig: (p) => hopperConfig('Hopper', p) },
  Walker2d: { create: (p) => new Walker2d(p), readConfig: (p) => hopperConfig('Walker2d', p) },
  Swimmer: { create: (p) => new Swimmer(p), readConfig: (p) => runnerConfig('Swimmer', p) },
  Ant: { create: (p) => new Ant(p), readConfig: antConfig },
  Reacher: { create: (p) => new Reacher(p), readConfig: reacherConfig },
  Pusher: { create: (p) => new Pusher(p), readConfig: pusherConfig },
  Humanoid: { create: (p) => new Humanoid(p), readConfig: humanoidConfig },
};
