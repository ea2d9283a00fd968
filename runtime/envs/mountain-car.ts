// MountainCar-v0 with Gymnasium 0.29's dynamics (Moore 1990): an
// underpowered car in a valley must rock back and forth to reach the flag at
// position 0.5. Actions: 0 push left, 1 no push, 2 push right. Reward -1 per
// step; termination at the flag (with velocity >= goal_velocity); truncation
// at max_steps (200).

import type { Rng } from '../random.js';
import { BaseEnv } from './base.js';
import { EnvParamError, integerParam, numberParam, resolveParams, type ParamValues } from './params.js';

export const MOUNTAIN_CAR_PARAMS = {
  max_steps: integerParam(200, 'Steps after which the episode is truncated (MountainCar-v0: 200).', { min: 1 }),
  goal_velocity: numberParam(0, 'Minimum velocity at the flag for the episode to count as reached.'),
  force: numberParam(0.001, 'Acceleration added per unit of push.', { min: 0 }),
  gravity: numberParam(0.0025, 'Strength of the slope (the hill is y = sin(3 x)).', { min: 0 }),
  max_speed: numberParam(0.07, 'Velocity is clipped to [-max_speed, max_speed].', { min: 0, minExclusive: true }),
  min_position: numberParam(-1.2, 'Left wall: position is clipped here and velocity zeroed.'),
  max_position: numberParam(0.6, 'Right end of the track.'),
  goal_position: numberParam(0.5, 'Position of the flag.'),
} as const;

export type MountainCarParams = ParamValues<typeof MOUNTAIN_CAR_PARAMS>;

/** The start interval and the flag must lie on the track; checked across params, so after resolveParams. */
function checkPositions(params: MountainCarParams): void {
  const { min_position: min, max_position: max, goal_position: goal } = params;
  if (!(min <= -0.6 && max >= -0.4)) {
    throw new EnvParamError(
      'MountainCar',
      'min_position',
      `MountainCar: params "min_position" and "max_position" must contain the start interval [-0.6, -0.4], got [${min}, ${max}]`,
    );
  }
  if (!(goal > min && goal <= max)) {
    throw new EnvParamError(
      'MountainCar',
      'goal_position',
      `MountainCar: param "goal_position" must lie in (min_position, max_position] = (${min}, ${max}], got ${goal}`,
    );
  }
}

export class MountainCar extends BaseEnv {
  readonly params: Readonly<MountainCarParams>;

  private position = 0;
  private velocity = 0;

  constructor(params: Partial<MountainCarParams> = {}) {
    const resolved = resolveParams('MountainCar', MOUNTAIN_CAR_PARAMS, params);
    checkPositions(resolved);
    super({
      kind: 'MountainCar',
      observationSpace: {
        kind: 'box',
        shape: [2],
        low: [resolved.min_position, -resolved.max_speed].map(Math.fround),
        high: [resolved.max_position, resolved.max_speed].map(Math.fround),
      },
      actionSpace: { kind: 'discrete', n: 3 },
      obsFields: ['position', 'velocity'],
      stateLayout: ['position', 'velocity'],
      maxSteps: resolved.max_steps,
    });
    this.params = Object.freeze(resolved);
  }

  protected drawInitialState(rng: Rng): void {
    this.position = rng.uniformRange(-0.6, -0.4);
    this.velocity = 0;
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    const p = this.params;
    let velocity = this.velocity + ((actions[offset] - 1) * p.force + Math.cos(3 * this.position) * -p.gravity);
    velocity = Math.min(Math.max(velocity, -p.max_speed), p.max_speed);
    let position = this.position + velocity;
    position = Math.min(Math.max(position, p.min_position), p.max_position);
    // The left wall is inelastic: the car stops dead against it.
    if (position === p.min_position && velocity < 0) velocity = 0;
    this.position = position;
    this.velocity = velocity;
    this.terminated = position >= p.goal_position && velocity >= p.goal_velocity;
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
