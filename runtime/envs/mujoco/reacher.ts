// Gymnasium v5's Reacher (reacher_v5.py): a two-joint arm in the plane and a target placed at
// random within 0.2 of its base. Each step rewards minus the fingertip's distance to the target
// (their bodies' xpos after the step) and charges the control cost; it never terminates. The
// observation is cos and sin of the two joints, the target's position (qpos[2:]), the joints'
// velocities and the fingertip-to-target vector's x and y.
import type { Rng } from '../../../shared/random.js';
import { mujocoConfig } from './config.js';
import { MujocoEnv } from './mujoco-env.js';

export interface ReacherConfig {
  readonly max_steps: number;
  readonly frame_skip: number;
  readonly reward_dist_weight: number;
  readonly reward_control_weight: number;
}

const reacherConfig = (given: object) => mujocoConfig<ReacherConfig>('Reacher', given);

export class Reacher extends MujocoEnv {
  readonly config: Readonly<ReacherConfig>;
  private readonly fingertip: number;
  private readonly target: number;

  constructor(given: object = {}) {
    const config = reacherConfig(given);
    super({ kind: 'Reacher', asset: 'reacher.xml', maxSteps: config.max_steps, frameSkip: config.frame_skip });
    this.config = config;
    this.fingertip = this.sim.bodyId('fingertip');
    this.target = this.sim.bodyId('target');
  }

  /** fingertip - target, from the bodies' xpos (get_body_com), x, y and z. */
  fingertipToTarget(): [number, number, number] {
    const xpos = this.sim.xpos;
    const [f, t] = [3 * this.fingertip, 3 * this.target];
    return [xpos[f] - xpos[t], xpos[f + 1] - xpos[t + 1], xpos[f + 2] - xpos[t + 2]];
  }

  /** reacher_v5.py's reset_model: arm U(-0.1, 0.1), the goal uniform in the disc of radius 0.2, arm velocities U(-0.005, 0.005). */
  protected drawInitialState(rng: Rng): void {
    const qpos = this.noisyQpos(rng, 0.1);
    let goal: [number, number];
    do goal = [rng.uniformRange(-0.2, 0.2), rng.uniformRange(-0.2, 0.2)];
    while (Math.hypot(...goal) >= 0.2);
    qpos.set(goal, qpos.length - 2);
    const qvel = this.noisyQvel(rng, 0.005, 'uniform');
    qvel.fill(0, qvel.length - 2);
    this.sim.reset(qpos, qvel);
    this.afterReset();
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    this.simulate(actions, offset);
    const dist = -Math.hypot(...this.fingertipToTarget()) * this.config.reward_dist_weight;
    const ctrl = -this.squaredAction(actions, offset) * this.config.reward_control_weight;
    this.info.set([dist, ctrl]);
    this.terminated = false;
    return dist + ctrl;
  }

  writeObs(out: Float32Array, offset: number): void {
    const { qpos, qvel } = this.sim;
    const [dx, dy] = this.fingertipToTarget();
    out.set([Math.cos(qpos[0]), Math.cos(qpos[1]), Math.sin(qpos[0]), Math.sin(qpos[1]), qpos[2], qpos[3], qvel[0], qvel[1], dx, dy], offset);
  }
}
