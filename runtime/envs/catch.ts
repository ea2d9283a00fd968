// Catch: a pixel game for image observations (bsuite's catch, on a square board). A ball
// starts in a random column of the top row and falls one row per step; a paddle three pixels
// wide moves along the bottom row (actions: 0 left, 1 stay, 2 right). When the ball reaches
// the bottom row the episode terminates with reward +1 if the paddle is under it, else -1.
//
// The observation is the board as one image [1, size, size] of pixel values 0 (empty) and 255
// (ball, paddle), row-major from the top-left: nothing but the pixels says where things are,
// so a policy must read the image (the `cnn` policy; an `mlp` over the flat pixels also can,
// slowly). Every step takes the same time and allocates nothing, so the env is cheap next to
// any network: bench/envs.ts measures it.
//
// A random policy catches about one ball in four (return about -0.5); the ball falls size - 1
// rows, so the paddle can always get there: the best return is 1.

import type { Rng } from '../../shared/random.js';
import { BaseEnv } from './base.js';
import { envParams } from './params.js';

/** Catch's configuration; its names, defaults, docs and ranges are the language's (dsl/schema/envs.ts). */
export interface CatchConfig {
  readonly size: number;
  readonly max_steps: number;
}

const PIXEL_ON = 255;
/** Paddle cells on each side of its centre. */
const PADDLE_REACH = 1;

function catchConfig(given: object): CatchConfig {
  const p = envParams('Catch', given);
  return { size: p.number('size'), max_steps: p.count('max_steps') };
}

export class Catch extends BaseEnv {
  readonly config: Readonly<CatchConfig>;
  readonly size: number;
  private ballX = 0;
  private ballY = 0;
  private paddleX = 0;

  constructor(config: Partial<CatchConfig> = {}) {
    const resolved = catchConfig(config);
    const size = resolved.size;
    const pixels = size * size;
    super({
      kind: 'Catch',
      observationSpace: { kind: 'box', shape: [1, size, size], low: new Array<number>(pixels).fill(0), high: new Array<number>(pixels).fill(PIXEL_ON) },
      actionSpace: { kind: 'discrete', n: 3 },
      obsFields: [],
      stateLayout: ['ball_x', 'ball_y', 'paddle_x'],
      maxSteps: resolved.max_steps,
    });
    this.config = Object.freeze(resolved);
    this.size = size;
  }

  protected drawInitialState(rng: Rng): void {
    this.ballX = rng.int(this.size);
    this.ballY = 0;
    this.paddleX = PADDLE_REACH + rng.int(this.size - 2 * PADDLE_REACH);
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    const move = actions[offset]! - 1;
    this.paddleX = Math.min(Math.max(this.paddleX + move, PADDLE_REACH), this.size - 1 - PADDLE_REACH);
    this.ballY++;
    if (this.ballY < this.size - 1) return 0;
    this.terminated = true;
    this.success = Math.abs(this.ballX - this.paddleX) <= PADDLE_REACH;
    return this.success ? 1 : -1;
  }

  writeObs(out: Float32Array, offset: number): void {
    const size = this.size;
    out.fill(0, offset, offset + size * size);
    out[offset + this.ballY * size + this.ballX] = PIXEL_ON;
    const bottom = offset + (size - 1) * size;
    for (let dx = -PADDLE_REACH; dx <= PADDLE_REACH; dx++) out[bottom + this.paddleX + dx] = PIXEL_ON;
  }

  getState(): number[] {
    return [this.ballX, this.ballY, this.paddleX];
  }

  protected applyState(state: readonly number[]): void {
    const [ballX, ballY, paddleX] = state as [number, number, number];
    const size = this.size;
    const inside = (v: number, lo: number, hi: number) => Number.isInteger(v) && v >= lo && v <= hi;
    if (!inside(ballX, 0, size - 1) || !inside(ballY, 0, size - 2) || !inside(paddleX, PADDLE_REACH, size - 1 - PADDLE_REACH)) {
      throw new RangeError(`Catch: state [${state.join(', ')}] is off the ${size}x${size} board (ball_x 0..${size - 1}, ball_y 0..${size - 2}, paddle_x ${PADDLE_REACH}..${size - 1 - PADDLE_REACH})`);
    }
    this.ballX = ballX;
    this.ballY = ballY;
    this.paddleX = paddleX;
  }
}
