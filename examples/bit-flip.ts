// Bit flipping, the environment of "Hindsight Experience Replay" (Andrychowicz et al. 2017,
// section 3.1): the state is a vector of BITS bits, each action flips one of them, and the goal
// is a random vector. The reward is -1 on every step that does not reach the goal and 0 on the
// step that does, which ends the episode with success; otherwise it ends after BITS steps, as
// in the paper. A random policy almost never meets a goal BITS / 2 flips away, so plain DQN
// sees no reward to learn from; hindsight relabeling (examples/bit-flip.rlx) learns from the
// goals the agent did reach.
//
// Goal-conditioned: the spec names the goal bits and the achieved ones (the state), and the
// module exports computeReward and computeTerminated for relabeling, which calls them on the
// trainer's thread: pure functions of their arguments. rlx reads the spec without running the
// module, so it is written out: one name per observation number.
const BITS = 20;

export const spec = {
  observations: [
    'bit0', 'bit1', 'bit2', 'bit3', 'bit4', 'bit5', 'bit6', 'bit7', 'bit8', 'bit9',
    'bit10', 'bit11', 'bit12', 'bit13', 'bit14', 'bit15', 'bit16', 'bit17', 'bit18', 'bit19',
    'goal0', 'goal1', 'goal2', 'goal3', 'goal4', 'goal5', 'goal6', 'goal7', 'goal8', 'goal9',
    'goal10', 'goal11', 'goal12', 'goal13', 'goal14', 'goal15', 'goal16', 'goal17', 'goal18', 'goal19',
  ],
  actions: 'discrete',
  info: ['success'],
  goal: [
    'goal0', 'goal1', 'goal2', 'goal3', 'goal4', 'goal5', 'goal6', 'goal7', 'goal8', 'goal9',
    'goal10', 'goal11', 'goal12', 'goal13', 'goal14', 'goal15', 'goal16', 'goal17', 'goal18', 'goal19',
  ],
  achieved: [
    'bit0', 'bit1', 'bit2', 'bit3', 'bit4', 'bit5', 'bit6', 'bit7', 'bit8', 'bit9',
    'bit10', 'bit11', 'bit12', 'bit13', 'bit14', 'bit15', 'bit16', 'bit17', 'bit18', 'bit19',
  ],
};

function same(achieved: ArrayLike<number>, goal: ArrayLike<number>): boolean {
  for (let i = 0; i < BITS; i++) if (achieved[i] !== goal[i]) return false;
  return true;
}

export function computeReward(achieved: ArrayLike<number>, goal: ArrayLike<number>): number {
  return same(achieved, goal) ? 0 : -1;
}

// Reaching the goal ends the episode (no action keeps the bits as they are), so a relabeled
// step that reaches its hindsight goal is a last step too.
export function computeTerminated(achieved: ArrayLike<number>, goal: ArrayLike<number>): boolean {
  return same(achieved, goal);
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

export default class BitFlip {
  readonly observationSpace = { kind: 'box', shape: [2 * BITS], low: new Array(2 * BITS).fill(0), high: new Array(2 * BITS).fill(1) };
  readonly actionSpace = { kind: 'discrete', n: BITS };
  // The paper's episode length: enough flips for any goal, none to spare.
  readonly maxSteps = BITS;
  private random = generator(0);
  private bits = new Array<number>(BITS).fill(0);
  private goal = new Array<number>(BITS).fill(0);

  reset(seed?: number) {
    if (seed !== undefined) this.random = generator(seed);
    const draw = () => Array.from({ length: BITS }, () => (this.random() < 0.5 ? 0 : 1));
    this.goal = draw();
    // A start that is not already the goal.
    do this.bits = draw(); while (same(this.bits, this.goal));
    return { obs: [...this.bits, ...this.goal], info: {} };
  }

  step(action: number) {
    this.bits[action] = 1 - this.bits[action];
    const success = same(this.bits, this.goal);
    return { obs: [...this.bits, ...this.goal], reward: computeReward(this.bits, this.goal), terminated: success, truncated: false, info: { success } };
  }
}
