// What every built-in MuJoCo env shares, after Gymnasium's MujocoEnv (v5): one model per env
// copy, `frame_skip` MuJoCo steps per env step (dt = timestep * frame_skip), the action space
// read from the actuators' control ranges, the state as qpos then qvel, and the reward's terms
// reported as info values (Gymnasium's own info keys: reward_forward, reward_ctrl, ...), so that
// a spec can read and reweight them as `info.reward_forward`.
import type { Rng } from '../../../shared/random.js';
import { builtin, type EnvSpec } from '../../../dsl/schema/index.js';
import { BaseEnv } from '../base.js';
import type { BoxSpace } from '../types.js';
import { mujocoAsset } from './assets.js';
import { MujocoSim, mujocoEngine } from './engine.js';

/**
 * What one MuJoCo env declares about itself; the model is read from `asset`, the observation's
 * names and the info values it reports (in order) from the registry (dsl/schema/mujoco-envs.ts).
 */
export interface MujocoShape {
  readonly kind: string;
  /** The bundled model (assets/NAME.xml). */
  readonly asset: string;
  readonly maxSteps: number;
  readonly frameSkip: number;
}

/** Gymnasium's observation bounds are +-inf; the largest float32 says the same and survives JSON (spaces travel in plans and run files). */
const UNBOUNDED = 3.4028234663852886e38;

// A MuJoCo model lives in WebAssembly memory, which JavaScript's garbage collector does not see:
// an env nobody holds any more frees its model (a curriculum or a sweep makes many).
const models = new FinalizationRegistry<MujocoSim>((sim) => sim.free());

export abstract class MujocoEnv extends BaseEnv {
  readonly infoFields: readonly string[];
  /** The info values of the last step (or reset), in infoFields order. */
  readonly info: Float64Array;
  /** Seconds per env step: the model's timestep times frame_skip. */
  readonly dt: number;
  readonly frameSkip: number;
  protected readonly sim: MujocoSim;
  protected readonly qpos0: Float64Array;
  protected readonly qvel0: Float64Array;

  protected constructor(shape: MujocoShape) {
    const sim = MujocoSim.fromXml(mujocoEngine(shape.kind), mujocoAsset(shape.asset), `${shape.kind} (${shape.asset})`);
    const spec = builtin(shape.kind) as EnvSpec;
    super({
      kind: shape.kind,
      observationSpace: { kind: 'box', shape: [spec.obsFields.length], low: spec.obsFields.map(() => -UNBOUNDED), high: spec.obsFields.map(() => UNBOUNDED) },
      actionSpace: actionSpaceOf(sim),
      obsFields: spec.obsFields,
      stateLayout: [...Array.from({ length: sim.nq }, (_, i) => `qpos${i}`), ...Array.from({ length: sim.nv }, (_, i) => `qvel${i}`)],
      maxSteps: shape.maxSteps,
    });
    models.register(this, sim);
    this.sim = sim;
    this.frameSkip = shape.frameSkip;
    this.dt = sim.timestep * shape.frameSkip;
    this.infoFields = spec.infoFields ?? [];
    this.info = new Float64Array(this.infoFields.length);
    this.qpos0 = sim.initQpos;
    this.qvel0 = sim.initQvel;
  }

  /** Runs `frame_skip` MuJoCo steps with the action at actions[offset ..] as ctrl. */
  protected simulate(actions: ArrayLike<number>, offset: number): void {
    this.sim.step(actions, offset, this.frameSkip);
  }

  /** Gymnasium's control_cost before its weight: the sum of the squared action, as given. */
  protected squaredAction(actions: ArrayLike<number>, offset: number): number {
    let sum = 0;
    for (let i = 0; i < this.actionDim; i++) sum += actions[offset + i] * actions[offset + i];
    return sum;
  }

  /** The reference pose plus U(-scale, scale) noise on each qpos (Gymnasium's reset_model). */
  protected noisyQpos(rng: Rng, scale: number): Float64Array {
    return this.qpos0.map((q) => q + rng.uniformRange(-scale, scale));
  }

  /** The reference velocities plus noise on each qvel: uniform in (-scale, scale), or scale * N(0, 1). */
  protected noisyQvel(rng: Rng, scale: number, noise: 'uniform' | 'normal'): Float64Array {
    return this.qvel0.map((v) => v + (noise === 'uniform' ? rng.uniformRange(-scale, scale) : scale * rng.normal()));
  }

  /**
   * The first five info values of the 3D walkers (Ant, Humanoid): x_position, y_position,
   * distance_from_origin of the root (qpos[0:2]), then the step's x_velocity and y_velocity.
   */
  protected reportPlacement(xVelocity: number, yVelocity: number): void {
    const [x, y] = this.sim.qpos;
    this.info.set([x, y, Math.hypot(x, y), xVelocity, yVelocity]);
  }

  /**
   * Gymnasium's usual reset_model: the reference pose plus U(-scale, scale) on each qpos, the
   * reference velocities plus `velocityNoise` noise of that scale on each qvel, then the reset's info.
   */
  protected resetWithNoise(rng: Rng, scale: number, velocityNoise: 'uniform' | 'normal'): void {
    this.sim.reset(this.noisyQpos(rng, scale), this.noisyQvel(rng, scale, velocityNoise));
    this.afterReset();
  }

  getState(): number[] {
    return [...this.sim.qpos, ...this.sim.qvel];
  }

  protected applyState(state: readonly number[]): void {
    this.sim.reset(state.slice(0, this.sim.nq), state.slice(this.sim.nq));
    this.afterReset();
  }

  /** After a reset or setState: the reset's info values (Gymnasium's _get_reset_info). */
  protected afterReset(): void {
    this.info.fill(0);
  }

  /** Sets info value `name` (one of infoFields). */
  protected report(index: number, value: number): void {
    this.info[index] = value;
  }

  protected override stepInfo(): Record<string, unknown> {
    return Object.fromEntries(this.infoFields.map((name, i) => [name, this.info[i]]));
  }

  /** Frees the model now rather than when the env is collected; the env is unusable after. */
  close(): void {
    models.unregister(this);
    this.sim.free();
  }
}

/** Gymnasium's _set_action_space: a box over the actuators' control ranges, as float32. */
function actionSpaceOf(sim: MujocoSim): BoxSpace {
  return {
    kind: 'box',
    shape: [sim.nu],
    low: sim.ctrlRange.map(([low]) => Math.fround(low)),
    high: sim.ctrlRange.map(([, high]) => Math.fround(high)),
  };
}
