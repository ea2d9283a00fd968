// CartPole-v1 with Gymnasium 0.29's dynamics (Barto, Sutton & Anderson 1983):
// a pole hinged on a cart; push the cart left (action 0) or right (action 1)
// with a fixed force. Reward 1 on every step, including the one that ends
// the episode; termination when the cart leaves |x| <= 2.4 or the pole tilts
// past 12 degrees; truncation at max_steps (500).
//
// The arithmetic follows Gymnasium's expression order term by term, so the
// float64 state matches the reference to the last few bits, not only roughly.
//
// CartPoleNoVel is the same cart observed without its velocities (x and theta only), as the
// partially observed CartPole of the recurrent-RL literature (SB3-contrib's
// CartPoleNoVelEnv): a policy must remember the last positions to tell which way things move.

import type { Rng } from '../../shared/random.js';
import { BaseEnv } from './base.js';
import { envParams } from './params.js';
import { CARTPOLE_CONSTANTS } from '../../shared/geometry/cartpole.js';

/** Gymnasium bounds unbounded float32 observations by the largest float32. */
export const FLOAT32_MAX = 3.4028234663852886e38;

/** CartPole's configuration; its names, defaults, docs and ranges are the language's (dsl/schema/envs.ts). */
export interface CartPoleConfig {
  readonly max_steps: number;
  readonly gravity: number;
  readonly cart_mass: number;
  readonly pole_mass: number;
  readonly pole_half_length: number;
  readonly force: number;
  readonly tau: number;
}

/** What a CartPole observes: the whole state, or the positions alone (CartPoleNoVel). */
export type CartPoleView = 'full' | 'positions';

/** Reads a CartPole configuration: defaults for what `given` leaves out, each value checked. */
function cartPoleConfig(given: object, kind: string): CartPoleConfig {
  const p = envParams(kind, given);
  return { max_steps: p.count('max_steps'), gravity: p.number('gravity'), cart_mass: p.number('cart_mass'), pole_mass: p.number('pole_mass'), pole_half_length: p.number('pole_half_length'), force: p.number('force'), tau: p.number('tau') };
}

export class CartPole extends BaseEnv {
  readonly config: Readonly<CartPoleConfig>;

  private x = 0;
  private xDot = 0;
  private theta = 0;
  private thetaDot = 0;
  /** Gymnasium's steps_beyond_terminated: -1 stands for None. */
  private stepsBeyondTerminated = -1;

  private readonly totalMass: number;
  private readonly poleMassLength: number;
  private readonly thetaThresholdRadians: number;

  constructor(config: Partial<CartPoleConfig> = {}, readonly view: CartPoleView = 'full') {
    const kind = view === 'full' ? 'CartPole' : 'CartPoleNoVel';
    const resolved = cartPoleConfig(config, kind);
    const thetaThresholdRadians = (CARTPOLE_CONSTANTS.theta_threshold_degrees * 2 * Math.PI) / 360;
    // Twice the termination bounds, so that a terminal observation still lies inside the space.
    const full = [CARTPOLE_CONSTANTS.x_threshold * 2, FLOAT32_MAX, thetaThresholdRadians * 2, FLOAT32_MAX].map(Math.fround);
    const high = view === 'full' ? full : [full[0]!, full[2]!];
    super({
      kind,
      observationSpace: { kind: 'box', shape: [high.length], low: high.map((value) => -value), high },
      actionSpace: { kind: 'discrete', n: 2 },
      obsFields: view === 'full' ? ['x', 'x_dot', 'theta', 'theta_dot'] : ['x', 'theta'],
      stateLayout: ['x', 'x_dot', 'theta', 'theta_dot'],
      maxSteps: resolved.max_steps,
    });
    this.config = Object.freeze(resolved);
    this.totalMass = resolved.pole_mass + resolved.cart_mass;
    this.poleMassLength = resolved.pole_mass * resolved.pole_half_length;
    this.thetaThresholdRadians = thetaThresholdRadians;
  }

  protected drawInitialState(rng: Rng): void {
    this.x = rng.uniformRange(-0.05, 0.05);
    this.xDot = rng.uniformRange(-0.05, 0.05);
    this.theta = rng.uniformRange(-0.05, 0.05);
    this.thetaDot = rng.uniformRange(-0.05, 0.05);
    this.stepsBeyondTerminated = -1;
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    const { gravity, pole_mass: poleMass, pole_half_length: length, tau } = this.config;
    const force = actions[offset] === 1 ? this.config.force : -this.config.force;
    const cosTheta = Math.cos(this.theta);
    const sinTheta = Math.sin(this.theta);
    const thetaDot = this.thetaDot;

    const temp = (force + this.poleMassLength * (thetaDot * thetaDot) * sinTheta) / this.totalMass;
    const thetaAcc =
      (gravity * sinTheta - cosTheta * temp) / (length * (4.0 / 3.0 - (poleMass * (cosTheta * cosTheta)) / this.totalMass));
    const xAcc = temp - (this.poleMassLength * thetaAcc * cosTheta) / this.totalMass;

    this.x = this.x + tau * this.xDot;
    this.xDot = this.xDot + tau * xAcc;
    this.theta = this.theta + tau * thetaDot;
    this.thetaDot = thetaDot + tau * thetaAcc;

    const limitX = CARTPOLE_CONSTANTS.x_threshold;
    const limitTheta = this.thetaThresholdRadians;
    this.terminated = this.x < -limitX || this.x > limitX || this.theta < -limitTheta || this.theta > limitTheta;
    if (!this.terminated) return 1.0;
    // Gymnasium pays the terminating step, then 0 for steps taken after it without a reset.
    this.stepsBeyondTerminated++;
    return this.stepsBeyondTerminated === 0 ? 1.0 : 0.0;
  }

  writeObs(out: Float32Array, offset: number): void {
    if (this.view === 'positions') {
      out[offset] = this.x;
      out[offset + 1] = this.theta;
      return;
    }
    out[offset] = this.x;
    out[offset + 1] = this.xDot;
    out[offset + 2] = this.theta;
    out[offset + 3] = this.thetaDot;
  }

  getState(): number[] {
    return [this.x, this.xDot, this.theta, this.thetaDot];
  }

  protected applyState(state: readonly number[]): void {
    [this.x, this.xDot, this.theta, this.thetaDot] = state;
    this.stepsBeyondTerminated = -1;
  }
}
