// Gymnasium v5's planar MuJoCo runners: HalfCheetah, Hopper, Walker2d and Swimmer, read from
// half_cheetah_v5.py, hopper_v5.py, walker2d_v5.py and swimmer_v5.py. Each step runs frame_skip
// MuJoCo steps, rewards the x velocity of the root ((x after - x before) / dt) times
// forward_reward_weight, charges ctrl_cost_weight * sum(action^2), and (Hopper, Walker2d) pays
// healthy_reward while the body is healthy and ends the episode when it is not. The observation
// is qpos without the root's x (Swimmer: without x and y) then qvel (clipped to [-10, 10] for
// Hopper and Walker2d).
import type { Rng } from '../../../shared/random.js';
import { insideOpen as inside, mujocoConfig, rangeOf, type Range } from './config.js';
import { MujocoEnv } from './mujoco-env.js';

function clip10(value: number): number {
  return Math.min(Math.max(value, -10), 10);
}

// ---- HalfCheetah and Swimmer: no health, never terminate

export interface HalfCheetahConfig {
  readonly max_steps: number;
  readonly frame_skip: number;
  readonly forward_reward_weight: number;
  readonly ctrl_cost_weight: number;
  readonly reset_noise_scale: number;
}

export const runnerConfig = (kind: 'HalfCheetah' | 'Swimmer', given: object) => mujocoConfig<HalfCheetahConfig>(kind, given);

export class HalfCheetah extends MujocoEnv {
  readonly config: Readonly<HalfCheetahConfig>;

  constructor(config: object = {}) {
    const resolved = runnerConfig('HalfCheetah', config);
    super({ kind: 'HalfCheetah', asset: 'half_cheetah.xml', maxSteps: resolved.max_steps, frameSkip: resolved.frame_skip });
    this.config = Object.freeze(resolved);
  }

  protected drawInitialState(rng: Rng): void {
    // Positions uniform, velocities Gaussian (half_cheetah_v5.py's reset_model).
    this.resetWithNoise(rng, this.config.reset_noise_scale, 'normal');
  }

  protected override afterReset(): void {
    this.info.fill(0);
    this.report(0, this.sim.qpos[0]);
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    const before = this.sim.qpos[0];
    this.simulate(actions, offset);
    const after = this.sim.qpos[0];
    const velocity = (after - before) / this.dt;
    const forward = this.config.forward_reward_weight * velocity;
    const ctrlCost = this.config.ctrl_cost_weight * this.squaredAction(actions, offset);
    this.info.set([after, velocity, forward, -ctrlCost]);
    this.terminated = false;
    return forward - ctrlCost;
  }

  writeObs(out: Float32Array, offset: number): void {
    const { qpos, qvel } = this.sim;
    let k = offset;
    for (let i = 1; i < qpos.length; i++) out[k++] = qpos[i];
    for (let i = 0; i < qvel.length; i++) out[k++] = qvel[i];
  }
}

export type SwimmerConfig = HalfCheetahConfig;

export class Swimmer extends MujocoEnv {
  readonly config: Readonly<SwimmerConfig>;

  constructor(config: object = {}) {
    const resolved = runnerConfig('Swimmer', config);
    super({ kind: 'Swimmer', asset: 'swimmer.xml', maxSteps: resolved.max_steps, frameSkip: resolved.frame_skip });
    this.config = Object.freeze(resolved);
  }

  protected drawInitialState(rng: Rng): void {
    this.resetWithNoise(rng, this.config.reset_noise_scale, 'uniform');
  }

  protected override afterReset(): void {
    this.info.fill(0);
    const [x, y] = this.sim.qpos;
    this.info.set([x, y, Math.hypot(x, y)]);
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    const [x0, y0] = this.sim.qpos;
    this.simulate(actions, offset);
    const [x, y] = this.sim.qpos;
    const vx = (x - x0) / this.dt;
    const vy = (y - y0) / this.dt;
    const forward = this.config.forward_reward_weight * vx;
    const ctrlCost = this.config.ctrl_cost_weight * this.squaredAction(actions, offset);
    this.info.set([x, y, Math.hypot(x, y), vx, vy, forward, -ctrlCost]);
    this.terminated = false;
    return forward - ctrlCost;
  }

  writeObs(out: Float32Array, offset: number): void {
    const { qpos, qvel } = this.sim;
    let k = offset;
    for (let i = 2; i < qpos.length; i++) out[k++] = qpos[i];
    for (let i = 0; i < qvel.length; i++) out[k++] = qvel[i];
  }
}

// ---- Hopper and Walker2d: a healthy reward, termination when unhealthy

export interface HopperConfig extends HalfCheetahConfig {
  readonly healthy_reward: number;
  readonly terminate_when_unhealthy: boolean;
}

export const hopperConfig = (kind: 'Hopper' | 'Walker2d', given: object) => mujocoConfig<HopperConfig>(kind, given);

/** Hopper-v5 and Walker2d-v5: one class, Hopper also bounding the state (hopper_v5.py's is_healthy). */
class HealthyRunner extends MujocoEnv {
  readonly config: Readonly<HopperConfig>;

  private readonly healthyZ: Range;
  private readonly healthyAngle: Range;
  /** Hopper only: the range every qpos[2:] and qvel must stay in; null for Walker2d. */
  private readonly healthyState: Range | null;

  protected constructor(kind: 'Hopper' | 'Walker2d', asset: string, given: object) {
    const config = hopperConfig(kind, given);
    super({ kind, asset, maxSteps: config.max_steps, frameSkip: config.frame_skip });
    this.config = config;
    this.healthyZ = rangeOf(config, 'healthy_z');
    this.healthyAngle = rangeOf(config, 'healthy_angle');
    this.healthyState = kind === 'Hopper' ? rangeOf(config, 'healthy_state') : null;
  }

  /** z = qpos[1] and angle = qpos[2] in their ranges, and (Hopper) every qpos[2:], qvel in the state range. */
  get isHealthy(): boolean {
    const { qpos, qvel } = this.sim;
    const { healthyZ: z, healthyAngle: angle, healthyState: state } = this;
    if (!inside(qpos[1], z) || !inside(qpos[2], angle)) return false;
    if (state === null) return true;
    for (let i = 2; i < qpos.length; i++) if (!inside(qpos[i], state)) return false;
    for (let i = 0; i < qvel.length; i++) if (!inside(qvel[i], state)) return false;
    return true;
  }

  protected drawInitialState(rng: Rng): void {
    this.resetWithNoise(rng, this.config.reset_noise_scale, 'uniform');
  }

  protected override afterReset(): void {
    this.info.fill(0);
    this.info.set([this.sim.qpos[0], this.sim.qpos[1] - this.qpos0[1]]);
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    const before = this.sim.qpos[0];
    this.simulate(actions, offset);
    const { qpos } = this.sim;
    const velocity = (qpos[0] - before) / this.dt;
    const healthy = this.isHealthy;
    const forward = this.config.forward_reward_weight * velocity;
    const survive = healthy ? this.config.healthy_reward : 0;
    const ctrlCost = this.config.ctrl_cost_weight * this.squaredAction(actions, offset);
    this.info.set([qpos[0], qpos[1] - this.qpos0[1], velocity, forward, -ctrlCost, survive]);
    this.terminated = !healthy && this.config.terminate_when_unhealthy;
    return forward + survive - ctrlCost;
  }

  writeObs(out: Float32Array, offset: number): void {
    const { qpos, qvel } = this.sim;
    let k = offset;
    for (let i = 1; i < qpos.length; i++) out[k++] = qpos[i];
    for (let i = 0; i < qvel.length; i++) out[k++] = clip10(qvel[i]);
  }
}

export class Hopper extends HealthyRunner {
  constructor(config: object = {}) {
    super('Hopper', 'hopper.xml', config);
  }
}

export class Walker2d extends HealthyRunner {
  constructor(config: object = {}) {
    super('Walker2d', 'walker2d_v5.xml', config);
  }
}
