// Gymnasium v5's Ant (ant_v5.py): a four-legged body on a free joint. Each step rewards the
// torso's x velocity (from its xpos before and after the frame_skip MuJoCo steps), pays
// healthy_reward while the torso's height is in the closed healthy range and the state is
// finite, and charges the control cost and contact_cost_weight * sum(clip(cfrc_ext)^2). The
// observation is qpos[2:], qvel, then cfrc_ext of every body but the world, clipped to the
// contact force range (MuJoCo's mj_rnePostConstraint fills cfrc_ext after each step).
import type { Rng } from '../../../shared/random.js';
import { clip, insideClosed, mujocoConfig, rangeOf, type Range } from './config.js';
import { MujocoEnv } from './mujoco-env.js';

export interface AntConfig {
  readonly max_steps: number;
  readonly frame_skip: number;
  readonly forward_reward_weight: number;
  readonly ctrl_cost_weight: number;
  readonly contact_cost_weight: number;
  readonly healthy_reward: number;
  readonly terminate_when_unhealthy: boolean;
  readonly reset_noise_scale: number;
}

const antConfig = (given: object) => mujocoConfig<AntConfig>('Ant', given);

/** ant_v5.py's main_body: body 1, the torso. */
const TORSO = 1;

export class Ant extends MujocoEnv {
  readonly config: Readonly<AntConfig>;
  private readonly healthyZ: Range;
  private readonly contactForce: Range;

  constructor(given: object = {}) {
    const config = antConfig(given);
    super({ kind: 'Ant', asset: 'ant.xml', maxSteps: config.max_steps, frameSkip: config.frame_skip });
    this.config = config;
    this.healthyZ = rangeOf(config, 'healthy_z');
    this.contactForce = rangeOf(config, 'contact_force');
  }

  /** The state is finite and the torso's height qpos[2] is in the healthy range, ends included. */
  get isHealthy(): boolean {
    const { qpos, qvel } = this.sim;
    return qpos.every(Number.isFinite) && qvel.every(Number.isFinite) && insideClosed(qpos[2], this.healthyZ);
  }

  protected drawInitialState(rng: Rng): void {
    this.resetWithNoise(rng, this.config.reset_noise_scale, 'normal');
  }

  protected override afterReset(): void {
    this.info.fill(0);
    this.reportPlacement(0, 0);
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    const xpos = this.sim.xpos;
    const [x0, y0] = [xpos[3 * TORSO], xpos[3 * TORSO + 1]];
    this.simulate(actions, offset);
    const after = this.sim.xpos;
    const vx = (after[3 * TORSO] - x0) / this.dt;
    const vy = (after[3 * TORSO + 1] - y0) / this.dt;
    const { forward_reward_weight, ctrl_cost_weight, contact_cost_weight } = this.config;
    const forward = forward_reward_weight * vx;
    const healthy = this.isHealthy;
    const survive = healthy ? this.config.healthy_reward : 0;
    const ctrlCost = ctrl_cost_weight * this.squaredAction(actions, offset);
    let contact = 0;
    for (const force of this.sim.cfrcExt) contact += clip(force, this.contactForce) ** 2;
    const contactCost = contact_cost_weight * contact;
    this.reportPlacement(vx, vy);
    this.info.set([forward, -ctrlCost, -contactCost, survive], 5);
    this.terminated = !healthy && this.config.terminate_when_unhealthy;
    return forward + survive - ctrlCost - contactCost;
  }

  writeObs(out: Float32Array, offset: number): void {
    const { qpos, qvel, cfrcExt } = this.sim;
    let k = offset;
    for (let i = 2; i < qpos.length; i++) out[k++] = qpos[i];
    for (let i = 0; i < qvel.length; i++) out[k++] = qvel[i];
    for (let i = 6; i < cfrcExt.length; i++) out[k++] = clip(cfrcExt[i], this.contactForce);
  }
}
