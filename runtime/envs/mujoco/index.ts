// The built-in MuJoCo envs, one row each. The env registry (../registry.ts) takes them from
// here, and reads their settings without building them through mujocoConfig() (a plan's checks
// run before the engine is loaded); so adding an env is its declaration in
// dsl/schema/mujoco-envs.ts, its own file here and one row below.
import { Ant } from './ant.js';
import { Humanoid } from './humanoid.js';
import type { MujocoEnv } from './mujoco-env.js';
import { InvertedDoublePendulum, InvertedPendulum } from './pendulums.js';
import { HalfCheetah, Hopper, Swimmer, Walker2d } from './planar.js';
import { Pusher } from './pusher.js';
import { Reacher } from './reacher.js';

export { mujocoConfig } from './config.js';

export const MUJOCO_RUNTIME: Readonly<Record<string, (params: object) => MujocoEnv>> = {
  InvertedPendulum: (p) => new InvertedPendulum(p),
  InvertedDoublePendulum: (p) => new InvertedDoublePendulum(p),
  HalfCheetah: (p) => new HalfCheetah(p),
  Hopper: (p) => new Hopper(p),
  Walker2d: (p) => new Walker2d(p),
  Swimmer: (p) => new Swimmer(p),
  Ant: (p) => new Ant(p),
  Reacher: (p) => new Reacher(p),
  Pusher: (p) => new Pusher(p),
  Humanoid: (p) => new Humanoid(p),
};
