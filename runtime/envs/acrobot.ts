// Acrobot-v1 with Gymnasium 0.29's dynamics (Sutton 1996; Sutton & Barto's
// book): two links hanging from a pivot, torque (-1, 0, +1) applied at the
// joint between them. Reward -1 per step, 0 on the step that swings the tip
// above the line one link length over the pivot (which terminates);
// truncation at max_steps (500).
//
// One env step is one fourth-order Runge-Kutta step of dt = 0.2 s over the
// equations of motion, written in Gymnasium's operation order. The system is
// chaotic, so a reordered sum would drift visibly from the reference within
// a couple of hundred steps.

import type { Rng } from '../../shared/random.js';
import { BaseEnv } from './base.js';
import { envParams } from './params.js';
import { ACROBOT_CONSTANTS } from '../../shared/geometry/acrobot.js';

const GRAVITY = 9.8;
const AVAILABLE_TORQUES = [-1.0, 0.0, 1.0] as const;

/** Acrobot's configuration; its names, defaults, docs and ranges are the language's (dsl/schema/envs.ts). */
export interface AcrobotConfig {
  readonly max_steps: number;
}

/** Reads a Acrobot configuration: defaults for what `given` leaves out, each value checked. */
function acrobotConfig(given: object): AcrobotConfig {
  const p = envParams('Acrobot', given);
  return { max_steps: p.count('max_steps') };
}

/** Gymnasium's `wrap`: shifts x by whole periods into [low, high]. */
function wrap(x: number, low: number, high: number): number {
  const period = high - low;
  while (x > high) x = x - period;
  while (x < low) x = x + period;
  return x;
}

function bound(x: number, low: number, high: number): number {
  return Math.min(Math.max(x, low), high);
}

export class Acrobot extends BaseEnv {
  readonly config: Readonly<AcrobotConfig>;

  private readonly state = new Float64Array(4);
  // RK4 scratch: derivatives at the four stages and the stage input.
  private readonly k1 = new Float64Array(4);
  private readonly k2 = new Float64Array(4);
  private readonly k3 = new Float64Array(4);
  private readonly k4 = new Float64Array(4);
  private readonly stage = new Float64Array(4);

  constructor(config: Partial<AcrobotConfig> = {}) {
    const resolved = acrobotConfig(config);
    const high = [1, 1, 1, 1, ACROBOT_CONSTANTS.max_vel_1, ACROBOT_CONSTANTS.max_vel_2].map(Math.fround);
    super({
      kind: 'Acrobot',
      observationSpace: { kind: 'box', shape: [6], low: high.map((value) => -value), high },
      actionSpace: { kind: 'discrete', n: 3 },
      obsFields: ['cos_theta1', 'sin_theta1', 'cos_theta2', 'sin_theta2', 'dtheta1', 'dtheta2'],
      stateLayout: ['theta1', 'theta2', 'dtheta1', 'dtheta2'],
      maxSteps: resolved.max_steps,
    });
    this.config = Object.freeze(resolved);
  }

  protected drawInitialState(rng: Rng): void {
    // Gymnasium stores the reset state as float32 (its `.astype(np.float32)`); later states are float64.
    for (let i = 0; i < 4; i++) this.state[i] = Math.fround(rng.uniformRange(-0.1, 0.1));
  }

  /** Gymnasium's `_dsdt`: time derivative of (theta1, theta2, dtheta1, dtheta2) under torque `a`. */
  private derivatives(s: Float64Array, a: number, out: Float64Array): void {
    const p = ACROBOT_CONSTANTS;
    const m1 = p.link_mass_1;
    const m2 = p.link_mass_2;
    const l1 = p.link_length_1;
    const lc1 = p.link_com_pos_1;
    const lc2 = p.link_com_pos_2;
    const I1 = p.link_moi;
    const I2 = p.link_moi;
    const theta1 = s[0];
    const theta2 = s[1];
    const dtheta1 = s[2];
    const dtheta2 = s[3];
    const cosTheta2 = Math.cos(theta2);
    const sinTheta2 = Math.sin(theta2);
    const d1 = m1 * (lc1 * lc1) + m2 * (l1 * l1 + lc2 * lc2 + 2 * l1 * lc2 * cosTheta2) + I1 + I2;
    const d2 = m2 * (lc2 * lc2 + l1 * lc2 * cosTheta2) + I2;
    const phi2 = m2 * lc2 * GRAVITY * Math.cos(theta1 + theta2 - Math.PI / 2.0);
    const phi1 =
      -m2 * l1 * lc2 * (dtheta2 * dtheta2) * sinTheta2 -
      2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * sinTheta2 +
      (m1 * lc1 + m2 * l1) * GRAVITY * Math.cos(theta1 - Math.PI / 2) +
      phi2;
    const denominator = m2 * (lc2 * lc2) + I2 - (d2 * d2) / d1;
    // The book's equations (Gymnasium's default): the NIPS paper's omit the dtheta1^2 term.
    const ddtheta2 = (a + (d2 / d1) * phi1 - m2 * l1 * lc2 * (dtheta1 * dtheta1) * sinTheta2 - phi2) / denominator;
    const ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
    out[0] = dtheta1;
    out[1] = dtheta2;
    out[2] = ddtheta1;
    out[3] = ddtheta2;
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    const torque: number = AVAILABLE_TORQUES[actions[offset]];

    // Gymnasium's rk4 over t = [0, dt]: one step, evaluated as
    // y0 + dt / 6 * (k1 + 2 k2 + 2 k3 + k4) with the torque held constant.
    const dt = ACROBOT_CONSTANTS.dt;
    const halfDt = dt / 2.0;
    const y = this.state;
    const { k1, k2, k3, k4, stage } = this;
    this.derivatives(y, torque, k1);
    for (let i = 0; i < 4; i++) stage[i] = y[i] + halfDt * k1[i];
    this.derivatives(stage, torque, k2);
    for (let i = 0; i < 4; i++) stage[i] = y[i] + halfDt * k2[i];
    this.derivatives(stage, torque, k3);
    for (let i = 0; i < 4; i++) stage[i] = y[i] + dt * k3[i];
    this.derivatives(stage, torque, k4);
    const sixthDt = dt / 6.0;
    for (let i = 0; i < 4; i++) y[i] = y[i] + sixthDt * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);

    y[0] = wrap(y[0], -Math.PI, Math.PI);
    y[1] = wrap(y[1], -Math.PI, Math.PI);
    // Velocities are clipped as in Sutton's original task, which bounded the
    // state for its tile coder; the observation space's bounds rely on it.
    y[2] = bound(y[2], -ACROBOT_CONSTANTS.max_vel_1, ACROBOT_CONSTANTS.max_vel_1);
    y[3] = bound(y[3], -ACROBOT_CONSTANTS.max_vel_2, ACROBOT_CONSTANTS.max_vel_2);

    // Terminal when the tip is more than one link length above the pivot.
    this.terminated = -Math.cos(y[0]) - Math.cos(y[1] + y[0]) > 1.0;
    return this.terminated ? 0.0 : -1.0;
  }

  writeObs(out: Float32Array, offset: number): void {
    const s = this.state;
    out[offset] = Math.cos(s[0]);
    out[offset + 1] = Math.sin(s[0]);
    out[offset + 2] = Math.cos(s[1]);
    out[offset + 3] = Math.sin(s[1]);
    out[offset + 4] = s[2];
    out[offset + 5] = s[3];
  }

  getState(): number[] {
    return Array.from(this.state);
  }

  protected applyState(state: readonly number[]): void {
    this.state.set(state);
  }
}
