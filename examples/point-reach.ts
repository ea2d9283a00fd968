// A goal-conditioned env of our own: a point on a line of `length` cells must reach a goal cell
// drawn each episode. Observations [x, goal_x]; actions 0 (left) and 1 (right); reward 1 on
// reaching the goal, which ends the episode with success. examples/point-reach.rlx trains on it.
//
// The spec names the goal and what the agent achieved (observation numbers), and the module
// exports computeReward(achieved, goal, info): what step() would pay for reaching `achieved`
// when asked for `goal`. Hindsight relabeling calls it for goals the agent did reach, on the
// trainer's thread, so it is a pure function of its arguments. Reaching the goal ends the
// episode here, so the module also exports computeTerminated: a relabeled step that reaches its
// hindsight goal is then a last step too, and its value is not bootstrapped past it.
export const spec = {
  observations: ['x', 'goal_x'],
  actions: 'discrete',
  info: ['success'],
  goal: ['goal_x'],
  achieved: ['x'],
};

export function computeReward(achieved: ArrayLike<number>, goal: ArrayLike<number>): number {
  return achieved[0] === goal[0] ? 1 : 0;
}

export function computeTerminated(achieved: ArrayLike<number>, goal: ArrayLike<number>): boolean {
  return achieved[0] === goal[0];
}

interface Params {
  /** Cells on the line (at least 2). */
  length?: number;
}

/** mulberry32: a small seeded generator, so that a seed gives the same episodes everywhere. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export default class PointReach {
  readonly length: number;
  readonly observationSpace;
  readonly actionSpace = { kind: 'discrete', n: 2 };
  private random = generator(0);
  private x = 0;
  private goal = 0;

  constructor(params: Params) {
    this.length = Math.max(2, Math.floor(params.length ?? 10));
    this.observationSpace = { kind: 'box', shape: [2], low: [0, 0], high: [this.length - 1, this.length - 1] };
  }

  reset(seed?: number) {
    if (seed !== undefined) this.random = generator(seed);
    const cell = () => Math.floor(this.random() * this.length);
    this.goal = cell();
    // Any other cell to start from.
    do this.x = cell(); while (this.x === this.goal);
    return { obs: [this.x, this.goal], info: {} };
  }

  step(action: number) {
    this.x = Math.min(this.length - 1, Math.max(0, this.x + (action === 1 ? 1 : -1)));
    const success = computeTerminated([this.x], [this.goal]);
    return { obs: [this.x, this.goal], reward: computeReward([this.x], [this.goal]), terminated: success, truncated: false, info: { success } };
  }
}
