// MountainCar-v0 with Gymnasium 0.29's dynamics (Moore 1990): an
// underpowered car in a valley must rock back and forth to reach the flag at
// position 0.5. Actions: 0 push left, 1 no push, 2 push right. Reward -1 per
// step; termination at the flag (with velocity >= goal_velocity); truncation
// at max_steps (200).

import type { Rng } from '../../shared/random.js';
import { BaseEnv } from './base.js';
import { envParams } from './params.js';
import { MOUNTAIN_CAR_CONSTANTS } from '../../shared/geometry/mountain-car.js';

/** MountainCar's configuration; its names, defaults, docs and ranges are the language's (dsl/schema/envs.ts). */
export interface MountainCarConfig {
  readonly max_steps: number;
  readonly force: number;
  readonly gravity: number;
  readonly goal_velocity: number;
}

/** Reads a MountainCar configuration: defaults for what `given` leaves out, each value checked. */
function mountainCarConfig(given: object): MountainCarConfig {
  const p = envParams('MountainCar', given);
  return { max_steps: p.count('max_steps'), force: p.number('force'), gravity: p.number('gravity'), goal_velocity: p.number('goal_velocity') };
}

export class MountainCar extends BaseEnv {
  readonly config: Readonly<MountainCarConfig>;

  private position = 0;
  private velocity = 0;

  constructor(config: Partial<MountainCarConfig> = {}) {
    const resolved = mountainCarConfig(config);
    const { min_position: minPosition, max_position: maxPosition, max_speed: maxSpeed } = MOUNTAIN_CAR_CONSTANTS;
    super({
      kind: 'MountainCar',
      observationSpace: {
        kind: 'box',
        shape: [2],
        low: [minPosition, -maxSpeed].map(Math.fround),
        high: [maxPosition, maxSpeed].map(Math.fround),
      },
      actionSpace: { kind: 'discrete', n: 3 },
      obsFields: ['position', 'velocity'],
      stateLayout: ['position', 'velocity'],
      maxSteps: resolved.max_steps,
    });
    this.config = Object.freeze(resolved);
  }

  protected drawInitialState(rng: Rng): void {
    this.position = rng.uniformRange(-0.6, -0.4);
    this.velocity = 0;
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    const p = this.config;
    const c = MOUNTAIN_CAR_CONSTANTS;
    let velocity = this.velocity + ((actions[offset] - 1) * p.force + Math.cos(3 * this.position) * -p.gravity);
    velocity = Math.min(Math.max(velocity, -c.max_speed), c.max_speed);
    let position = this.position + velocity;
    position = Math.min(Math.max(position, c.min_position), c.max_position);
    // The left wall is inelastic: the car stops dead against it.
    if (position === c.min_position && velocity < 0) velocity = 0;
    this.position = position;
    this.velocity = velocity;
    this.terminated = position >= c.goal_position && velocity >= p.goal_velocity;
    return -1.0;
  }

  writeObs(out: Float32Array, offset: number): void {
    out[offset] = this.position;
    out[offset + 1] = this.velocity;
  }

  getState(): number[] {
    return [this.position, this.velocity];
  }

  protected applyState(state: readonly number[]): void {
    [this.position, this.velocity] = state;
  }
}
