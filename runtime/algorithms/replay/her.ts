// Hindsight experience replay (Andrychowicz et al. 2017) as Stable-Baselines3's
// HerReplayBuffer: transitions are stored once, as they happened; at sampling time a fraction
// k/(k+1) of the batch gets a goal that was achieved in the same episode, later (`future`), at
// its end (`final`) or anywhere in it (`episode`), and the env's computeReward on the next
// observation's achieved goal gives its reward. Only rows of finished episodes are sampled
// (an unfinished episode has no known future), so the first sample needs a finished episode.
//
// Where this differs from SB3:
// - `final` relabels k/(k+1) of the batch with SB3's default k = 4 (the language gives `final`
//   no k);
// - relabeled rows keep their stored `dones` as SB3 does, except on envs that end an episode on
//   reaching its goal (computeTerminated, e.g. GridWorld): there a relabeled row is terminal
//   exactly where it reaches its new goal, as the env would have ended it. Keeping the stored
//   done there teaches r + gamma * Q(at the goal) for the step into a relabeled goal, while the
//   real episodes teach r alone for the same observation: conflicting targets, and values that
//   grow toward 1 / (1 - gamma) wherever the agent can stay on a relabeled goal;
// - the reward of a relabeled row is the env's computeReward alone: reward terms of the plan
//   are not re-evaluated for a new goal.
import type { PlanParams } from '../../plan-params.js';
import type { Rng } from '../../../shared/random.js';
import type { GoalConditioned, GoalOutcomes } from '../../envs/types.js';
import type { ReplayBatch } from './batch.js';

export type RelabelStrategy = 'future' | 'final' | 'episode';

export interface Relabel {
  readonly strategy: RelabelStrategy;
  /** Relabeled rows per real row: a fraction k/(k+1) of each batch is relabeled. */
  readonly k: number;
}

/** SB3's n_sampled_goal default, for `final`, which the language gives no k. */
export const DEFAULT_RELABEL_K = 4;

/** Where the goal-conditioned env keeps goals in an observation, and its reward for a goal. */
export interface GoalLayout {
  /** Observation indices of the desired goal. */
  readonly goal: readonly number[];
  /** Observation indices of the achieved goal, in the same order. */
  readonly achieved: readonly number[];
  computeReward(achieved: ArrayLike<number>, goal: ArrayLike<number>): number;
  /** Whether reaching `achieved` when asked for `goal` ends the episode; null: relabeled rows keep their stored dones. */
  readonly computeTerminated: ((achieved: ArrayLike<number>, goal: ArrayLike<number>) => boolean) | null;
  /** Both for a whole batch of pairs in one call (GoalConditioned.computeRewards); null: one call per pair. */
  readonly computeRewards: ((achieved: Float32Array, goals: Float32Array, count: number, width: number) => GoalOutcomes) | null;
}

/** The plan's `relabel` value (`none`, `final`, or `{ kind, k }`) as a Relabel, null for none. */
export function relabelOf(value: unknown): Relabel | null {
  if (value === undefined || value === null || value === 'none') return null;
  const kind = typeof value === 'string' ? value : (value as { kind?: unknown }).kind;
  const k = typeof value === 'object' ? (value as { k?: unknown }).k : undefined;
  if (kind !== 'future' && kind !== 'final' && kind !== 'episode') throw new Error(`relabel must be none, future(k), final or episode(k), got ${JSON.stringify(value)}`);
  return { strategy: kind, k: typeof k === 'number' ? k : DEFAULT_RELABEL_K };
}

/** Reads an algorithm's `relabel` param through its PlanParams: a bad value is an error that names the param. */
export function relabelParam(p: PlanParams): Relabel | null {
  try {
    return relabelOf(p.value('relabel'));
  } catch (err) {
    return p.fail('relabel', (err as Error).message.replace(/^relabel must be /, '').replace(/, got .*$/, ''));
  }
}

/** The goal layout of an env with these observation fields and goal-conditioned interface. */
export function goalLayout(obsFields: readonly string[], env: GoalConditioned): GoalLayout {
  const index = (field: string) => {
    const i = obsFields.indexOf(field);
    if (i < 0) throw new Error(`goal-conditioned env: field ${field} is not one of its observation fields (${obsFields.join(', ')})`);
    return i;
  };
  if (env.goalFields.length !== env.achievedFields.length) throw new Error('goal-conditioned env: goalFields and achievedFields must have the same length');
  const terminated = env.computeTerminated;
  return {
    goal: env.goalFields.map(index),
    achieved: env.achievedFields.map(index),
    computeReward: (a, g) => env.computeReward(a, g),
    computeTerminated: terminated !== undefined ? (a, g) => terminated.call(env, a, g) : null,
    computeRewards: env.computeRewards !== undefined ? (a, g, count, width) => env.computeRewards!(a, g, count, width) : null,
  };
}

/**
 * Which episode each stored row belongs to (SB3's ep_start / ep_length): the ring position
 * where it started, and its length once it finished (0 while running or once its start was
 * overwritten).
 */
export class EpisodeIndex {
  private readonly start: Int32Array;
  private readonly length: Int32Array;
  /** Per env copy: the running episode's start position and its steps so far. */
  private readonly runStart: Int32Array;
  private readonly runLength: Int32Array;
  /** Rows of finished episodes, the ones sample() may draw. */
  validRows = 0;

  constructor(
    readonly positions: number,
    readonly numEnvs: number,
  ) {
    this.start = new Int32Array(positions * numEnvs);
    this.length = new Int32Array(positions * numEnvs);
    this.runStart = new Int32Array(numEnvs);
    this.runLength = new Int32Array(numEnvs);
  }

  finished(row: number): boolean {
    return this.length[row] > 0;
  }

  /** Row `row`'s episode: its start position and length (0: not finished). */
  episodeOf(row: number): { start: number; length: number } {
    return { start: this.start[row], length: this.length[row] };
  }

  /** Position `pos` is about to be overwritten: what is left of a finished episode there can no longer be relabeled. */
  beforeOverwrite(pos: number): void {
    const { positions, numEnvs } = this;
    for (let e = 0; e < numEnvs; e++) {
      const row = pos * numEnvs + e;
      const length = this.length[row];
      if (length > 0) {
        // The rows from pos to the episode's end (its earlier rows were overwritten already).
        const remaining = length - ((pos - this.start[row] + positions) % positions);
        for (let i = 0; i < remaining; i++) {
          const r = ((pos + i) % positions) * numEnvs + e;
          if (this.length[r] > 0) this.validRows--;
          this.length[r] = 0;
        }
      }
      // A running episode as long as the ring loses its first step.
      if (this.runLength[e] === positions) {
        this.runStart[e] = (this.runStart[e] + 1) % positions;
        this.runLength[e]--;
      }
    }
  }

  /** Position `pos` now holds one step of every copy; episodes that ended there are finished. */
  added(pos: number, terminated: Uint8Array, truncated: Uint8Array): void {
    const { positions, numEnvs } = this;
    for (let e = 0; e < numEnvs; e++) {
      if (this.runLength[e] === 0) this.runStart[e] = pos;
      const row = pos * numEnvs + e;
      this.start[row] = this.runStart[e];
      this.length[row] = 0;
      this.runLength[e]++;
      if (terminated[e] === 1 || truncated[e] === 1) {
        const length = this.runLength[e];
        for (let t = 0; t < length; t++) this.length[((this.runStart[e] + t) % positions) * numEnvs + e] = length;
        this.validRows += length;
        this.runLength[e] = 0;
      }
    }
  }

  state(): { start: Int32Array; length: Int32Array; runStart: Int32Array; runLength: Int32Array; validRows: number } {
    return { start: this.start, length: this.length, runStart: this.runStart, runLength: this.runLength, validRows: this.validRows };
  }

  load(state: ReturnType<EpisodeIndex['state']>): void {
    this.start.set(state.start);
    this.length.set(state.length);
    this.runStart.set(state.runStart);
    this.runLength.set(state.runLength);
    this.validRows = state.validRows;
  }
}

/**
 * Relabels the last k/(k+1) rows of a sampled batch in place (SB3 puts its virtual samples
 * after the real ones the same way). `indices` are the buffer rows the batch was drawn from.
 * The rewards (and dones) come from one computeRewards call for the batch where the env has
 * one (a Python env: one round trip, not one per row), else from computeReward row by row.
 */
export function relabelBatch(relabel: Relabel, goals: GoalLayout, episodes: EpisodeIndex, storedNextObs: Float32Array, obsDim: number, indices: Int32Array, rng: Rng, batch: ReplayBatch): void {
  const rows = indices.length;
  const virtual = Math.floor((relabel.k / (relabel.k + 1)) * rows);
  const first = rows - virtual;
  const width = goals.goal.length;
  const batched = goals.computeRewards !== null;
  // Per row: the new goal and what the row's next observation achieved (all rows when batched).
  const goal = new Float32Array(batched ? virtual * width : width);
  const achieved = new Float32Array(batched ? virtual * width : width);
  const { positions, numEnvs } = episodes;
  for (let j = first; j < rows; j++) {
    const r = indices[j];
    const e = r % numEnvs;
    const p = (r - e) / numEnvs;
    const { start, length } = episodes.episodeOf(r);
    const t = (p - start + positions) % positions;
    // SB3 is inclusive: `future` may pick the transition itself.
    const chosen = relabel.strategy === 'final' ? length - 1 : relabel.strategy === 'future' ? t + rng.int(length - t) : rng.int(length);
    const source = (((start + chosen) % positions) * numEnvs + e) * obsDim;
    const at = batched ? (j - first) * width : 0;
    for (let k = 0; k < width; k++) goal[at + k] = storedNextObs[source + goals.achieved[k]];
    for (let k = 0; k < width; k++) {
      batch.obs[j * obsDim + goals.goal[k]] = goal[at + k];
      batch.nextObs[j * obsDim + goals.goal[k]] = goal[at + k];
      achieved[at + k] = batch.nextObs[j * obsDim + goals.achieved[k]];
    }
    if (batched) continue;
    batch.rewards[j] = goals.computeReward(achieved, goal);
    if (goals.computeTerminated !== null) batch.dones[j] = goals.computeTerminated(achieved, goal) ? 1 : 0;
  }
  if (!batched || virtual === 0) return;
  const outcomes = goals.computeRewards!(achieved, goal, virtual, width);
  for (let i = 0; i < virtual; i++) {
    batch.rewards[first + i] = outcomes.rewards[i];
    if (outcomes.terminated !== null) batch.dones[first + i] = outcomes.terminated[i] ? 1 : 0;
  }
}
