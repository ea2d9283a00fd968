// The drawing of each built-in env the rollout inspector knows; other envs (Bandit, user
// modules) get none, and the page lists their observation fields only.
import { drawAcrobot } from './acrobot.js';
import { drawCartPole } from './cartpole.js';
import { drawGridWorld } from './grid-world.js';
import { drawMountainCar } from './mountain-car.js';
import { drawPendulum } from './pendulum.js';
import type { Scene } from './scene.js';

export type { Scene };

const DRAWINGS: Record<string, (scene: Scene) => void> = {
  CartPole: drawCartPole,
  MountainCar: drawMountainCar,
  Acrobot: drawAcrobot,
  Pendulum: drawPendulum,
  GridWorld: drawGridWorld,
};

export function drawingFor(env: string | undefined): ((scene: Scene) => void) | undefined {
  return env === undefined ? undefined : DRAWINGS[env];
}
