// Gymnasium v5's MuJoCo pendulums on a cart, read from inverted_pendulum_v5.py and
// inverted_double_pendulum_v5.py.
import type { Rng } from '../../../shared/random.js';
import { mujocoConfig } from './config.js';
import { MujocoEnv } from './mujoco-env.js';

export interface InvertedPendulumConfig {
  readonly max_steps: number;
  readonly frame_skip: number;
  readonly reset_noise_scale: number;
}

export const pendulumConfig = (given: object) => mujocoConfig<InvertedPendulumConfig>('InvertedPendulum', given);

export const doublePendulumConfig = (given: object) => mujocoConfig<InvertedDoublePendulumConfig>('InvertedDoublePendulum', given);

/**
 * InvertedPendulum-v5: keep a pole on a cart upright. Observation qpos then qvel (slider,
 * hinge); reward 1 while the pole stands (reward_survive); the episode ends when the hinge
 * angle leaves [-0.2, 0.2] or the observation is not finite.
 */
export class InvertedPendulum extends MujocoEnv {
  readonly config: Readonly<InvertedPendulumConfig>;

  constructor(config: object = {}) {
    const resolved = pendulumConfig(config);
    super({ kind: 'InvertedPendulum', asset: 'inverted_pendulum.xml', maxSteps: resolved.max_steps, frameSkip: resolved.frame_skip });
    this.config = Object.freeze(resolved);
  }

  protected drawInitialState(rng: Rng): void {
    this.resetWithNoise(rng, this.config.reset_noise_scale, 'uniform');
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    this.simulate(actions, offset);
    const { qpos, qvel } = this.sim;
    const finite = [...qpos, ...qvel].every(Number.isFinite);
    this.terminated = !finite || Math.abs(qpos[1]) > 0.2;
    const reward = this.terminated ? 0 : 1;
    this.info[0] = reward;
    return reward;
  }

  writeObs(out: Float32Array, offset: number): void {
    const { qpos, qvel } = this.sim;
    out.set(qpos, offset);
    out.set(qvel, offset + qpos.length);
  }
}

export interface InvertedDoublePendulumConfig extends InvertedPendulumConfig {
  readonly healthy_reward: number;
}

/**
 * InvertedDoublePendulum-v5: keep two poles on a cart upright. Observation: the cart's
 * position, sin and cos of both hinges, qvel clipped to [-10, 10], and the cart's constraint
 * force clipped to [-10, 10]. Reward: healthy_reward while the tip (site 0) is above y = 1, minus
 * 0.01 x^2 + (y - 2)^2 of the tip and 0.001 v1^2 + 0.005 v2^2 of the hinges' speeds; the
 * episode ends when the tip falls to y <= 1.
 */
export class InvertedDoublePendulum extends MujocoEnv {
  readonly config: Readonly<InvertedDoublePendulumConfig>;

  constructor(config: object = {}) {
    const resolved = doublePendulumConfig(config);
    super({ kind: 'InvertedDoublePendulum', asset: 'inverted_double_pendulum.xml', maxSteps: resolved.max_steps, frameSkip: resolved.frame_skip });
    this.config = Object.freeze(resolved);
  }

  protected drawInitialState(rng: Rng): void {
    // Positions uniform, velocities Gaussian (inverted_double_pendulum_v5.py's reset_model).
    this.resetWithNoise(rng, this.config.reset_noise_scale, 'normal');
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    this.simulate(actions, offset);
    const site = this.sim.siteXpos;
    const x = site[0];
    const y = site[2];
    this.terminated = y <= 1;
    const qvel = this.sim.qvel;
    const distance = 0.01 * x * x + (y - 2) * (y - 2);
    const velocity = 0.001 * qvel[1] * qvel[1] + 0.005 * qvel[2] * qvel[2];
    const survive = this.terminated ? 0 : this.config.healthy_reward;
    this.info.set([survive, -distance, -velocity]);
    return survive - distance - velocity;
  }

  writeObs(out: Float32Array, offset: number): void {
    const { qpos, qvel } = this.sim;
    const clip = (v: number) => Math.min(Math.max(v, -10), 10);
    let k = offset;
    out[k++] = qpos[0];
    for (let i = 1; i < qpos.length; i++) out[k++] = Math.sin(qpos[i]);
    for (let i = 1; i < qpos.length; i++) out[k++] = Math.cos(qpos[i]);
    for (let i = 0; i < qvel.length; i++) out[k++] = clip(qvel[i]);
    out[k] = clip(this.sim.qfrcConstraint[0]);
  }
}
