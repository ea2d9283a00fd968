// Gymnasium v5's Humanoid (humanoid_v5.py): a 3D humanoid on a free joint. Each step rewards
// the x velocity of the whole body's centre of mass (body_mass-weighted xipos, before and after
// the frame_skip MuJoCo steps) times forward_reward_weight, pays healthy_reward while the
// torso's height is strictly inside the healthy range, and charges the control cost
// (sum(ctrl^2)) and contact_cost_weight * sum(cfrc_ext^2), that cost clipped to its range. The
// observation is qpos[2:], qvel, then cinert, cvel, qfrc_actuator[6:] and cfrc_ext, each of
// every body but the world, as MuJoCo left them after the step.
import type { Rng } from '../../../shared/random.js';
import { clip, insideOpen, mujocoConfig, rangeOf, type Range } from './config.js';
import { MujocoEnv } from './mujoco-env.js';

export interface HumanoidConfig {
  readonly max_steps: number;
  readonly frame_skip: number;
  readonly forward_reward_weight: number;
  readonly ctrl_cost_weight: number;
  readonly contact_cost_weight: number;
  readonly healthy_reward: number;
  readonly terminate_when_unhealthy: boolean;
  readonly reset_noise_scale: number;
}

const humanoidConfig = (given: object) => mujocoConfig<HumanoidConfig>('Humanoid', given);

export class Humanoid extends MujocoEnv {
  readonly config: Readonly<HumanoidConfig>;
  private readonly healthyZ: Range;
  private readonly contactCostRange: Range;
  private readonly totalMass: number;

  constructor(given: object = {}) {
    const config = humanoidConfig(given);
    super({ kind: 'Humanoid', asset: 'humanoid.xml', maxSteps: config.max_steps, frameSkip: config.frame_skip });
    this.config = config;
    this.healthyZ = rangeOf(config, 'healthy_z');
    this.contactCostRange = rangeOf(config, 'contact_cost');
    this.totalMass = this.sim.bodyMass.reduce((sum, m) => sum + m, 0);
  }

  /** The torso's height qpos[2] strictly inside the healthy range. */
  get isHealthy(): boolean {
    return insideOpen(this.sim.qpos[2], this.healthyZ);
  }

  /** humanoid_v5.py's mass_center: the body_mass-weighted mean of the bodies' xipos, x and y. */
  massCenter(): [number, number] {
    const { xipos, bodyMass } = this.sim;
    let x = 0;
    let y = 0;
    for (let b = 0; b < bodyMass.length; b++) {
      x += bodyMass[b] * xipos[3 * b];
      y += bodyMass[b] * xipos[3 * b + 1];
    }
    return [x / this.totalMass, y / this.totalMass];
  }

  protected drawInitialState(rng: Rng): void {
    this.resetWithNoise(rng, this.config.reset_noise_scale, 'uniform');
  }

  protected override afterReset(): void {
    this.info.fill(0);
    this.reportPlacement(0, 0);
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    const [x0, y0] = this.massCenter();
    this.simulate(actions, offset);
    const [x1, y1] = this.massCenter();
    const vx = (x1 - x0) / this.dt;
    const vy = (y1 - y0) / this.dt;
    const forward = this.config.forward_reward_weight * vx;
    const healthy = this.isHealthy;
    const survive = healthy ? this.config.healthy_reward : 0;
    // Gymnasium squares data.ctrl, which holds the action as given (MuJoCo clamps only the force it makes).
    const ctrlCost = this.config.ctrl_cost_weight * this.squaredAction(actions, offset);
    let contact = 0;
    for (const force of this.sim.cfrcExt) contact += force * force;
    const contactCost = clip(this.config.contact_cost_weight * contact, this.contactCostRange);
    this.reportPlacement(vx, vy);
    this.info.set([survive, forward, -ctrlCost, -contactCost], 5);
    this.terminated = !healthy && this.config.terminate_when_unhealthy;
    return forward + survive - ctrlCost - contactCost;
  }

  writeObs(out: Float32Array, offset: number): void {
    const { qpos, qvel, cinert, cvel, qfrcActuator, cfrcExt } = this.sim;
    let k = offset;
    const copy = (from: Float64Array, start: number) => {
      for (let i = start; i < from.length; i++) out[k++] = from[i];
    };
    copy(qpos, 2);
    copy(qvel, 0);
    copy(cinert, 10);
    copy(cvel, 6);
    copy(qfrcActuator, 6);
    copy(cfrcExt, 6);
  }
}
