// Pendulum-v1 with Gymnasium 0.29's dynamics: swing a pendulum up and hold
// it upright with a torque in [-max_torque, max_torque]. Reward
// -(angle^2 + 0.1 * theta_dot^2 + 0.001 * torque^2), with the angle wrapped to
// [-pi, pi) and 0 meaning upright; never terminates; truncation at max_steps (200).

import type { Rng } from '../../shared/random.js';
import { BaseEnv } from './base.js';
import { envParams } from './params.js';

/** Pendulum's configuration; its names, defaults, docs and ranges are the language's (dsl/schema/envs.ts). */
export interface PendulumConfig {
  readonly max_steps: number;
  readonly g: number;
  readonly max_speed: number;
  readonly max_torque: number;
}

/** Reads a Pendulum configuration: defaults for what `given` leaves out, each value checked. */
function pendulumConfig(given: object): PendulumConfig {
  const p = envParams('Pendulum', given);
  return { max_steps: p.count('max_steps'), g: p.number('g'), max_speed: p.number('max_speed'), max_torque: p.number('max_torque') };
}

/** Gymnasium's fixed parts of Pendulum-v1 (not parameters in the language). */
export const PENDULUM_CONSTANTS = {
  /** Mass (kg) and length (m) of the pendulum. */
  m: 1.0,
  l: 1.0,
  /** Seconds per step. */
  dt: 0.05,
} as const;


/**
 * Gymnasium's angle_normalize, ((x + pi) % (2 pi)) - pi, with Python's
 * floored modulo (numpy's remainder: the result takes the divisor's sign),
 * not JavaScript's truncated `%`, so that negative angles wrap the same way.
 */
export function normalizeAngle(x: number): number {
  const divisor = 2 * Math.PI;
  let remainder = (x + Math.PI) % divisor;
  if (remainder < 0) remainder += divisor;
  return remainder - Math.PI;
}

export class Pendulum extends BaseEnv {
  readonly config: Readonly<PendulumConfig>;

  private theta = 0;
  private thetaDot = 0;
  /** The clipped torque of the last step, reported in info (Gymnasium keeps it as last_u). */
  private lastTorque = 0;

  constructor(config: Partial<PendulumConfig> = {}) {
    const resolved = pendulumConfig(config);
    const high = [1.0, 1.0, resolved.max_speed].map(Math.fround);
    super({
      kind: 'Pendulum',
      observationSpace: { kind: 'box', shape: [3], low: high.map((value) => -value), high },
      actionSpace: {
        kind: 'box',
        shape: [1],
        low: [Math.fround(-resolved.max_torque)],
        high: [Math.fround(resolved.max_torque)],
      },
      obsFields: ['cos_theta', 'sin_theta', 'theta_dot'],
      stateLayout: ['theta', 'theta_dot'],
      maxSteps: resolved.max_steps,
    });
    this.config = Object.freeze(resolved);
  }

  protected drawInitialState(rng: Rng): void {
    this.theta = rng.uniformRange(-Math.PI, Math.PI);
    this.thetaDot = rng.uniformRange(-1, 1);
    this.lastTorque = 0;
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    const { g, max_speed: maxSpeed, max_torque: maxTorque } = this.config;
    const { m, l, dt } = PENDULUM_CONSTANTS;
    const theta = this.theta;
    const thetaDot = this.thetaDot;
    const torque = Math.min(Math.max(actions[offset], -maxTorque), maxTorque);
    this.lastTorque = torque;

    const angle = normalizeAngle(theta);
    const cost = angle * angle + 0.1 * (thetaDot * thetaDot) + 0.001 * (torque * torque);

    let newThetaDot = thetaDot + ((3 * g) / (2 * l) * Math.sin(theta) + (3.0 / (m * (l * l))) * torque) * dt;
    newThetaDot = Math.min(Math.max(newThetaDot, -maxSpeed), maxSpeed);
    // Theta itself is not wrapped: only the cost and the observation see it modulo 2 pi.
    this.theta = theta + newThetaDot * dt;
    this.thetaDot = newThetaDot;
    this.terminated = false;
    return -cost;
  }

  writeObs(out: Float32Array, offset: number): void {
    out[offset] = Math.cos(this.theta);
    out[offset + 1] = Math.sin(this.theta);
    out[offset + 2] = this.thetaDot;
  }

  protected override stepInfo(): Record<string, unknown> {
    return { torque: this.lastTorque };
  }

  protected override resetInfo(): Record<string, unknown> {
    return {};
  }

  getState(): number[] {
    return [this.theta, this.thetaDot];
  }

  protected applyState(state: readonly number[]): void {
    [this.theta, this.thetaDot] = state;
    this.lastTorque = 0;
  }
}
