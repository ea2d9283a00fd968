// Gymnasium v5's Pusher (pusher_v5.py): a seven-joint arm, a cylinder placed at random and a
// goal at the origin. Each step rewards minus the object's distance to the goal, minus
// reward_near_weight times the fingertip's distance to the object (bodies' xpos after the step),
// and charges the control cost; it never terminates. The observation is the arm's 7 joint
// positions and velocities, then the xpos of tips_arm, object and goal.
import type { Rng } from '../../../shared/random.js';
import { mujocoConfig } from './config.js';
import { MujocoEnv } from './mujoco-env.js';

export interface PusherConfig {
  readonly max_steps: number;
  readonly frame_skip: number;
  readonly reward_near_weight: number;
  readonly reward_dist_weight: number;
  readonly reward_control_weight: number;
}

const pusherConfig = (given: object) => mujocoConfig<PusherConfig>('Pusher', given);

/** The arm's joints are qpos[0:7]; the object's slides qpos[7:9], the goal's qpos[9:11]. */
const ARM = 7;

export class Pusher extends MujocoEnv {
  readonly config: Readonly<PusherConfig>;
  /** tips_arm, object and goal: their body ids. */
  private readonly bodies: readonly [number, number, number];

  constructor(given: object = {}) {
    const config = pusherConfig(given);
    super({ kind: 'Pusher', asset: 'pusher_v5.xml', maxSteps: config.max_steps, frameSkip: config.frame_skip });
    this.config = config;
    this.bodies = [this.sim.bodyId('tips_arm'), this.sim.bodyId('object'), this.sim.bodyId('goal')];
  }

  private distance(a: number, b: number): number {
    const xpos = this.sim.xpos;
    return Math.hypot(xpos[3 * a] - xpos[3 * b], xpos[3 * a + 1] - xpos[3 * b + 1], xpos[3 * a + 2] - xpos[3 * b + 2]);
  }

  /**
   * pusher_v5.py's reset_model: the arm at its reference pose (no noise), the cylinder drawn
   * with x in U(-0.3, 0), y in U(-0.2, 0.2) until it is more than 0.17 from the goal (0, 0), the
   * arm's velocities U(-0.005, 0.005) and the object's and goal's zero.
   */
  protected drawInitialState(rng: Rng): void {
    const qpos = Float64Array.from(this.qpos0);
    let cylinder: [number, number];
    do cylinder = [rng.uniformRange(-0.3, 0), rng.uniformRange(-0.2, 0.2)];
    while (Math.hypot(...cylinder) <= 0.17);
    qpos.set([...cylinder, 0, 0], qpos.length - 4);
    const qvel = this.noisyQvel(rng, 0.005, 'uniform');
    qvel.fill(0, qvel.length - 4);
    this.sim.reset(qpos, qvel);
    this.afterReset();
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    this.simulate(actions, offset);
    const [tips, object, goal] = this.bodies;
    const near = -this.distance(object, tips) * this.config.reward_near_weight;
    const dist = -this.distance(object, goal) * this.config.reward_dist_weight;
    const ctrl = -this.squaredAction(actions, offset) * this.config.reward_control_weight;
    this.info.set([dist, ctrl, near]);
    this.terminated = false;
    return dist + ctrl + near;
  }

  writeObs(out: Float32Array, offset: number): void {
    const { qpos, qvel, xpos } = this.sim;
    let k = offset;
    for (let i = 0; i < ARM; i++) out[k++] = qpos[i];
    for (let i = 0; i < ARM; i++) out[k++] = qvel[i];
    for (const body of this.bodies) for (let axis = 0; axis < 3; axis++) out[k++] = xpos[3 * body + axis];
  }
}
