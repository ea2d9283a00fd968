// The replay buffer of the off-policy learners (DQN, SAC): a ring of typed arrays holding one
// vectorised step of every env copy per position, sampled uniformly, with optional hindsight
// relabeling (her.ts) at sampling time, as Stable-Baselines3's ReplayBuffer and HerReplayBuffer.
//
// Layout: position p, env copy e is row p * numEnvs + e (SB3's [pos, env]); the ring has
// floor(capacity / numEnvs) positions (at least 1), so `capacity` counts transitions as SB3's
// buffer_size does.
//
// Observations and next observations are stored separately (SB3's default layout). With
// autoreset the row after an episode's last step holds the next episode's first observation,
// so "next obs = the next row's obs" is wrong exactly where it matters (the final state a
// truncated episode bootstraps from); SB3 refuses optimize_memory_usage with timeout handling
// for that reason. Keeping next obs costs obsDim floats per transition: 12 MB for a 1M
// Pendulum buffer (3 floats), nothing that matters for vector observations.
//
// dones are `terminated` only: a truncated transition (time limit) bootstraps from its next
// observation, which is the real final one (collect.ts puts vec.finalObs there).
import type { Rng } from '../../../shared/random.js';
import type { ReplayBatch } from './batch.js';
import { EpisodeIndex, relabelBatch, type GoalLayout, type Relabel } from './her.js';

export type { GoalLayout, Relabel } from './her.js';
export type { ReplayBatch } from './batch.js';

export interface ReplayOptions {
  /** Transitions kept (all env copies together); the oldest are overwritten. */
  capacity: number;
  numEnvs: number;
  obsDim: number;
  actionWidth: number;
  /** Numbers per action mask (the discrete actions) when the learner acts under the env's masks; 0 or absent: none kept. */
  maskWidth?: number;
  /** Hindsight relabeling; needs `goals`. */
  relabel?: Relabel | null;
  goals?: GoalLayout | null;
}

/**
 * Everything a buffer holds, for checkpoints; the typed arrays are the buffer's own storage,
 * not copies. `droppable` puts them in the checkpoint's binary side file, which only the
 * newest checkpoint keeps (run/checkpoint.ts).
 */
export interface ReplayState {
  droppable: true;
  positions: number;
  numEnvs: number;
  obsDim: number;
  actionWidth: number;
  pos: number;
  full: boolean;
  obs: Float32Array;
  actions: Float32Array;
  rewards: Float32Array;
  nextObs: Float32Array;
  dones: Uint8Array;
  /** With action masks: those of obs and of nextObs, maskWidth per row. */
  masks?: Uint8Array;
  nextMasks?: Uint8Array;
  /** With relabeling: the episode bookkeeping (her.ts). */
  episodes?: ReturnType<EpisodeIndex['state']>;
}

export class ReplayBuffer {
  readonly numEnvs: number;
  readonly obsDim: number;
  readonly actionWidth: number;
  /** Ring positions; each holds one row per env copy. */
  readonly positions: number;
  private pos = 0;
  private full = false;
  private readonly obs: Float32Array;
  private readonly actions: Float32Array;
  private readonly rewards: Float32Array;
  private readonly nextObs: Float32Array;
  private readonly dones: Uint8Array;
  readonly maskWidth: number;
  private readonly masks: Uint8Array;
  private readonly nextMasks: Uint8Array;
  private readonly relabel: Relabel | null;
  private readonly goals: GoalLayout | null;
  private readonly episodes: EpisodeIndex | null;
  /** The rows of the last sample, for relabeling. */
  private indices = new Int32Array(0);

  constructor(options: ReplayOptions) {
    const { capacity, numEnvs, obsDim, actionWidth } = options;
    for (const [name, value] of Object.entries({ capacity, numEnvs, obsDim, actionWidth })) {
      if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`ReplayBuffer: ${name} must be a positive integer, got ${value}`);
    }
    this.numEnvs = numEnvs;
    this.obsDim = obsDim;
    this.actionWidth = actionWidth;
    this.positions = Math.max(1, Math.floor(capacity / numEnvs));
    const rows = this.positions * numEnvs;
    this.obs = new Float32Array(rows * obsDim);
    this.actions = new Float32Array(rows * actionWidth);
    this.rewards = new Float32Array(rows);
    this.nextObs = new Float32Array(rows * obsDim);
    this.dones = new Uint8Array(rows);
    this.maskWidth = options.maskWidth ?? 0;
    this.masks = new Uint8Array(rows * this.maskWidth);
    this.nextMasks = new Uint8Array(rows * this.maskWidth);
    this.relabel = options.relabel ?? null;
    this.goals = options.goals ?? null;
    if (this.relabel !== null && this.goals === null) throw new Error('ReplayBuffer: relabeling needs the goal layout of a goal-conditioned env');
    this.episodes = this.relabel !== null ? new EpisodeIndex(this.positions, numEnvs) : null;
  }

  /** Transitions stored (at most positions * numEnvs). */
  get size(): number {
    return (this.full ? this.positions : this.pos) * this.numEnvs;
  }

  /**
   * Stores one vectorised step of every env copy (row e of each argument is copy e); `masks`
   * and `nextMasks` (maskWidth per copy) where the buffer keeps action masks.
   */
  add(obs: Float32Array, actions: ArrayLike<number>, rewards: Float32Array, nextObs: Float32Array, terminated: Uint8Array, truncated: Uint8Array, masks?: Uint8Array, nextMasks?: Uint8Array): void {
    const { numEnvs, obsDim, actionWidth, pos, maskWidth } = this;
    const row = pos * numEnvs;
    if (maskWidth > 0) {
      if (!masks || !nextMasks) throw new Error('ReplayBuffer: this buffer keeps action masks; add() needs them');
      this.masks.set(masks.subarray(0, numEnvs * maskWidth), row * maskWidth);
      this.nextMasks.set(nextMasks.subarray(0, numEnvs * maskWidth), row * maskWidth);
    }
    this.episodes?.beforeOverwrite(pos);
    this.obs.set(obs.subarray(0, numEnvs * obsDim), row * obsDim);
    this.nextObs.set(nextObs.subarray(0, numEnvs * obsDim), row * obsDim);
    for (let k = 0; k < numEnvs * actionWidth; k++) this.actions[row * actionWidth + k] = actions[k];
    for (let e = 0; e < numEnvs; e++) {
      this.rewards[row + e] = rewards[e];
      this.dones[row + e] = terminated[e];
    }
    this.episodes?.added(pos, terminated, truncated);
    this.pos = pos + 1;
    if (this.pos === this.positions) {
      this.pos = 0;
      this.full = true;
    }
  }

  createBatch(rows: number): ReplayBatch {
    return {
      obs: new Float32Array(rows * this.obsDim),
      actions: new Float32Array(rows * this.actionWidth),
      rewards: new Float32Array(rows),
      nextObs: new Float32Array(rows * this.obsDim),
      dones: new Float32Array(rows),
      actionMask: this.maskWidth > 0 ? new Float32Array(rows * this.maskWidth) : null,
      nextActionMask: this.maskWidth > 0 ? new Float32Array(rows * this.maskWidth) : null,
    };
  }

  /**
   * Fills `into` with `rows` transitions drawn uniformly (with replacement) from the stored
   * ones. With relabeling, rows are drawn from finished episodes only and the last
   * k/(k+1) of them get a hindsight goal (SB3's HerReplayBuffer.sample).
   */
  sample(rows: number, rng: Rng, into: ReplayBatch): void {
    const filled = this.full ? this.positions : this.pos;
    if (filled === 0) throw new Error('ReplayBuffer: cannot sample from an empty buffer');
    const { numEnvs, obsDim, actionWidth, episodes } = this;
    if (episodes !== null && episodes.validRows === 0) {
      throw new Error('ReplayBuffer: relabeling samples finished episodes only, and none has finished yet; set learning_starts above the env\'s longest episode');
    }
    if (this.indices.length < rows) this.indices = new Int32Array(rows);
    const indices = this.indices;
    for (let j = 0; j < rows; j++) {
      let r: number;
      do r = rng.int(filled * numEnvs);
      while (episodes !== null && !episodes.finished(r));
      indices[j] = r;
      for (let k = 0; k < obsDim; k++) {
        into.obs[j * obsDim + k] = this.obs[r * obsDim + k];
        into.nextObs[j * obsDim + k] = this.nextObs[r * obsDim + k];
      }
      for (let k = 0; k < actionWidth; k++) into.actions[j * actionWidth + k] = this.actions[r * actionWidth + k];
      into.rewards[j] = this.rewards[r];
      into.dones[j] = this.dones[r];
      const m = this.maskWidth;
      for (let k = 0; k < m; k++) {
        into.actionMask![j * m + k] = this.masks[r * m + k];
        into.nextActionMask![j * m + k] = this.nextMasks[r * m + k];
      }
    }
    if (episodes !== null) relabelBatch(this.relabel!, this.goals!, episodes, this.nextObs, obsDim, indices.subarray(0, rows), rng, into);
  }

  state(): ReplayState {
    const { positions, numEnvs, obsDim, actionWidth, pos, full } = this;
    // Only the rows written so far: a run shorter than the capacity saves what it collected,
    // not the whole allocation (load() sets them back at the front).
    const rows = (full ? positions : pos) * numEnvs;
    const filled = <T extends Float32Array | Uint8Array>(a: T, width: number): T => a.subarray(0, rows * width) as T;
    const state: ReplayState = {
      droppable: true, positions, numEnvs, obsDim, actionWidth, pos, full,
      obs: filled(this.obs, obsDim), actions: filled(this.actions, actionWidth), rewards: filled(this.rewards, 1), nextObs: filled(this.nextObs, obsDim), dones: filled(this.dones, 1),
    };
    if (this.maskWidth > 0) {
      state.masks = filled(this.masks, this.maskWidth);
      state.nextMasks = filled(this.nextMasks, this.maskWidth);
    }
    if (this.episodes !== null) state.episodes = this.episodes.state();
    return state;
  }

  /** Restores a state() of a buffer of the same shape. */
  load(state: ReplayState): void {
    const { positions, numEnvs, obsDim, actionWidth } = this;
    const mine = { positions, numEnvs, obsDim, actionWidth };
    for (const [name, value] of Object.entries(mine)) {
      if (state[name as keyof typeof mine] !== value) {
        throw new Error(`ReplayBuffer: the saved buffer has ${name} ${String(state[name as keyof typeof mine])}, this one ${value}; resume with the plan it was saved with`);
      }
    }
    this.pos = state.pos;
    this.full = state.full;
    this.obs.set(state.obs);
    this.actions.set(state.actions);
    this.rewards.set(state.rewards);
    this.nextObs.set(state.nextObs);
    this.dones.set(state.dones);
    if (this.maskWidth > 0) {
      if (state.masks === undefined || state.nextMasks === undefined) throw new Error('ReplayBuffer: the saved buffer has no action masks, which this learner acts under; resume with the plan it was saved with');
      this.masks.set(state.masks);
      this.nextMasks.set(state.nextMasks);
    }
    if (this.episodes !== null) {
      if (state.episodes === undefined) throw new Error('ReplayBuffer: the saved buffer has no episode index, which relabeling needs');
      this.episodes.load(state.episodes);
    }
  }
}
