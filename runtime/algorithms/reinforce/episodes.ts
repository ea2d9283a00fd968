// Whole episodes as REINFORCE learns from them: every env copy's running episode, step by
// step, and the episodes that have ended, oldest first, until an update takes a group of
// them. A step is stored as the learner feeds it: the observation it acted on, the action
// encoded for the loss, and the training reward.

/** One episode's steps; its arrays grow by doubling and are reused once the update is done. */
class Trajectory {
  obs: Float32Array;
  actions: Float32Array;
  rewards: Float64Array;
  length = 0;

  constructor(
    private readonly obsDim: number,
    private readonly width: number,
  ) {
    this.obs = new Float32Array(64 * obsDim);
    this.actions = new Float32Array(64 * width);
    this.rewards = new Float64Array(64);
  }

  /** Appends a step's observation and encoded action; its reward follows with reward(). */
  push(obs: Float32Array, obsOffset: number, actions: Float32Array, actionOffset: number): void {
    const { obsDim, width, length: t } = this;
    if (t === this.rewards.length) this.grow();
    for (let k = 0; k < obsDim; k++) this.obs[t * obsDim + k] = obs[obsOffset + k];
    for (let k = 0; k < width; k++) this.actions[t * width + k] = actions[actionOffset + k];
    this.rewards[t] = 0;
    this.length = t + 1;
  }

  /** The reward of the last step pushed. */
  reward(r: number): void {
    this.rewards[this.length - 1] = r;
  }

  private grow(): void {
    const bigger = <A extends Float32Array | Float64Array>(a: A, make: (n: number) => A): A => {
      const b = make(a.length * 2);
      b.set(a);
      return b;
    };
    this.obs = bigger(this.obs, (n) => new Float32Array(n));
    this.actions = bigger(this.actions, (n) => new Float32Array(n));
    this.rewards = bigger(this.rewards, (n) => new Float64Array(n));
  }
}

export type { Trajectory };

export class EpisodeStore {
  /** Each copy's episode in progress. */
  private readonly running: Trajectory[];
  /** Ended episodes not yet taken by an update, oldest first. */
  private readonly ended: Trajectory[] = [];
  private readonly spare: Trajectory[] = [];

  constructor(
    numEnvs: number,
    private readonly obsDim: number,
    private readonly width: number,
  ) {
    this.running = Array.from({ length: numEnvs }, () => new Trajectory(obsDim, width));
  }

  /** How many ended episodes wait for an update. */
  get endedCount(): number {
    return this.ended.length;
  }

  /** Copy `env` acts: its observation row and encoded action row. */
  push(env: number, obs: Float32Array, actions: Float32Array): void {
    this.running[env].push(obs, env * this.obsDim, actions, env * this.width);
  }

  /** Copy `env`'s last step paid `r`; `ended` closes its episode. */
  reward(env: number, r: number, ended: boolean): void {
    const episode = this.running[env];
    episode.reward(r);
    if (!ended) return;
    this.ended.push(episode);
    this.running[env] = this.spare.pop() ?? new Trajectory(this.obsDim, this.width);
    this.running[env].length = 0;
  }

  /** The `n` oldest ended episodes; give them back with release() once learned from. */
  take(n: number): Trajectory[] {
    return this.ended.splice(0, n);
  }

  release(episodes: readonly Trajectory[]): void {
    for (const e of episodes) {
      e.length = 0;
      this.spare.push(e);
    }
  }

  /** Forgets every episode, running or ended (a resumed run restarts its episodes). */
  clear(): void {
    this.release(this.ended.splice(0));
    for (const e of this.running) e.length = 0;
  }
}
