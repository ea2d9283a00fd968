// Steps the vectorised env for an algorithm and turns what comes back into what learners
// use: the training reward (the env's, plus or replaced by the plan's reward terms), the
// flags, and finished episodes with their env return, training return and per-term sums.
// Algorithms share it so that reward shaping, episode statistics and rollout sampling
// behave the same under every learner. It is also where a NaN or an infinity from the env or
// a reward term is caught, at its source (as SB3's VecCheckNan): once one reaches the learner,
// every later update is garbage.
import type { ActionBuffer } from '../policies/index.js';
import type { CompiledReward } from '../rewards/index.js';
import type { FinishedEpisode, VecEnv } from '../envs/vector.js';

export type { EpisodeRecord, TransitionSink } from '../envs/records.js';
import type { EpisodeRecord, TransitionSink } from '../envs/records.js';

/**
 * A NaN or an infinity came from the env or a reward term; the message says which number,
 * which env copy and which step of its episode (the trainer adds the run's step).
 */
export class NonFiniteError extends Error {
  override name = 'NonFiniteError';
}

export class Stepper {
  readonly numEnvs: number;
  readonly obsDim: number;
  readonly actionDim: number;
  /** Training reward of each copy's last step. */
  readonly rewards: Float32Array;
  /** Set by the trainer to sample episodes of copy 0 (rollouts/). */
  sink: TransitionSink | null = null;

  private readonly prevObs: Float32Array;
  private readonly t: Int32Array;
  private readonly trainingReturns: Float64Array;
  private readonly termSums: Float64Array[];
  private readonly actionRow: Float32Array;
  private finished: EpisodeRecord[] = [];

  constructor(
    readonly vec: VecEnv,
    readonly reward: CompiledReward | null,
  ) {
    this.numEnvs = vec.numEnvs;
    this.obsDim = vec.obsDim;
    this.actionDim = vec.actionDim;
    this.rewards = new Float32Array(this.numEnvs);
    this.prevObs = new Float32Array(vec.obs.length);
    this.t = new Int32Array(this.numEnvs);
    this.trainingReturns = new Float64Array(this.numEnvs);
    this.termSums = Array.from({ length: this.numEnvs }, () => new Float64Array(reward?.termNames.length ?? 0));
    this.actionRow = new Float32Array(this.actionDim);
    reward?.bindInfo(vec); // a term reading an info value the env does not report fails here, before training
  }

  /** The current observation of every copy, row i at i * obsDim. */
  get obs(): Float32Array {
    return this.vec.obs;
  }

  /** Starts every copy afresh; copy i draws from stream i of `seed`. */
  reset(seed: number): void {
    this.vec.reset(seed);
    this.checkObs(this.vec.obs, 'reset');
    this.t.fill(0);
    this.trainingReturns.fill(0);
    for (const sums of this.termSums) sums.fill(0);
  }

  step(actions: ActionBuffer): void {
    const { vec, reward, obsDim, actionDim } = this;
    const recording = this.sink !== null && this.sink.active;
    if (reward !== null || recording) this.prevObs.set(vec.obs);
    if (recording) this.sink!.beforeStep?.();
    vec.step(actions);
    this.checkObs(vec.obs, 'step');
    // The VecEnv lists the episodes that ended in this step in copy order; fetched only when
    // one did, so that ordinary steps allocate nothing.
    let ended: FinishedEpisode[] | null = null;
    let nextEnded = 0;
    for (let i = 0; i < this.numEnvs; i++) {
      const envReward = vec.rewards[i];
      if (!Number.isFinite(envReward)) this.nonFinite(`the env's reward is ${envReward}`, i);
      const terminated = vec.terminated[i] === 1;
      const truncated = vec.truncated[i] === 1;
      let episode: FinishedEpisode | null = null;
      if (terminated || truncated) {
        ended ??= vec.takeFinishedEpisodes();
        episode = ended[nextEnded++];
      }
      let total = envReward;
      if (reward !== null) {
        const c = reward.context;
        const row = i * obsDim;
        for (let k = 0; k < obsDim; k++) c.obs[k] = this.prevObs[row + k];
        // On the last step the next observation is the one that ended the episode.
        const next = vec.hasFinalObs[i] === 1 ? vec.finalObs : vec.obs;
        for (let k = 0; k < obsDim; k++) c.nextObs[k] = next[row + k];
        for (let k = 0; k < actionDim; k++) c.action[k] = actions[i * actionDim + k];
        c.terminated = terminated ? 1 : 0;
        c.truncated = truncated ? 1 : 0;
        // After an autoreset the env's own flag belongs to the new episode.
        c.success = (episode !== null ? episode.success === true : vec.envs[i].success) ? 1 : 0;
        c.t = this.t[i];
        reward.readInfo(vec.info, i);
        const shaped = reward.evaluate();
        total = reward.replaceEnvReward ? shaped : envReward + shaped;
        const sums = this.termSums[i];
        for (let k = 0; k < sums.length; k++) {
          const value = reward.values[k];
          if (!Number.isFinite(value)) this.nonFinite(`reward term ${reward.termNames[k]} is ${value}`, i);
          sums[k] += value;
        }
      }
      this.rewards[i] = total;
      this.trainingReturns[i] += total;
      this.t[i]++;
      if (i === 0 && recording) this.record(actions, total, envReward, terminated, truncated);
      if (episode !== null) this.finishEpisode(i, episode);
    }
  }

  /** One pass over the new observations (and the final ones of episodes that just ended). */
  private checkObs(obs: Float32Array, what: 'reset' | 'step'): void {
    for (let j = 0; j < obs.length; j++) {
      if (!Number.isFinite(obs[j])) this.checkObsOf(Math.floor(j / this.obsDim), what);
    }
    if (what === 'step') {
      const { finalObs, hasFinalObs } = this.vec;
      for (let i = 0; i < this.numEnvs; i++) {
        if (hasFinalObs[i] === 1 && !finite(finalObs, i * this.obsDim, this.obsDim)) this.checkObsOf(i, 'step');
      }
    }
  }

  /** Says which element of copy i's observation is not finite, and where it came from. */
  private checkObsOf(i: number, what: 'reset' | 'step'): never {
    const { vec, obsDim } = this;
    const ended = what === 'step' && vec.hasFinalObs[i] === 1;
    // After an autoreset the row holds the next episode's first observation; the final one is kept aside.
    const [rows, from, step] = ended && !finite(vec.finalObs, i * obsDim, obsDim)
      ? [vec.finalObs, "step()", this.t[i] + 1]
      : what === 'reset' || ended ? [vec.obs, 'reset()', 0] : [vec.obs, 'step()', this.t[i] + 1];
    let k = 0;
    while (k < obsDim - 1 && Number.isFinite(rows[i * obsDim + k])) k++;
    const field = vec.obsFields[k];
    this.nonFinite(`observation ${field !== undefined ? `field ${field}` : `element ${k}`} from the env's ${from} is ${rows[i * obsDim + k]}`, i, step);
  }

  private nonFinite(what: string, copy: number, episodeStep = this.t[copy] + 1): never {
    throw new NonFiniteError(`${what} in env copy ${copy}, episode step ${episodeStep}`);
  }

  /** Episodes that ended since the last call, oldest first. */
  takeEpisodes(): EpisodeRecord[] {
    const out = this.finished;
    this.finished = [];
    return out;
  }

  private finishEpisode(i: number, episode: FinishedEpisode): void {
    const record: { -readonly [K in keyof EpisodeRecord]: EpisodeRecord[K] } = { env: i, return: episode.return, length: episode.length };
    if (episode.success !== undefined) record.success = episode.success;
    if (this.reward !== null) {
      record.trainingReturn = this.trainingReturns[i];
      const terms: Record<string, number> = {};
      this.reward.termNames.forEach((name, k) => (terms[name] = this.termSums[i][k]));
      record.terms = terms;
      this.termSums[i].fill(0);
    }
    this.finished.push(record);
    this.trainingReturns[i] = 0;
    this.t[i] = 0;
  }

  private record(actions: ActionBuffer, reward: number, envReward: number, terminated: boolean, truncated: boolean): void {
    for (let k = 0; k < this.actionDim; k++) this.actionRow[k] = actions[k];
    this.sink!.transition({
      obs: this.prevObs.subarray(0, this.obsDim),
      action: this.actionRow,
      reward,
      envReward,
      terms: this.reward?.values ?? null,
      terminated,
      truncated,
    });
  }
}

function finite(xs: Float32Array, from: number, count: number): boolean {
  for (let k = from; k < from + count; k++) if (!Number.isFinite(xs[k])) return false;
  return true;
}
