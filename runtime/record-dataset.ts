// `rlx record`'s work: whole episodes of a policy on env copies of their own, kept as a dataset
// of transitions (../shared/transitions/transitions.ts) for the offline learners. As D4RL made
// its random, medium and expert sets from policies at several stages of training, a user
// records a run's policy as it is, or made worse: `epsilon` takes a uniformly random action
// with that probability at each step (1: a random policy), `noise` adds Gaussian noise of that
// standard deviation, in units of half the action range, and clips to the bounds.
//
// Each copy runs a fixed share of the episodes (as evaluate.ts), and an episode goes into the
// dataset whole, when it ends, so the file's rows run episode by episode: its boundaries are
// where terminals (the env terminated) or timeouts (it truncated) mark them, and the next
// observation of the last step is the one that ended the episode, not the next reset.
// Rewards are the env's own (what evaluation reports), not the plan's reward terms.
import type { BoxSpace } from './envs/types.js';
import type { VecEnv } from './envs/vector.js';
import type { Actor } from './policies/index.js';
import type { TransitionsToWrite } from '../shared/transitions/transitions.js';
import type { Rng } from '../shared/random.js';
import { InputError } from '../shared/input-error.js';

/** An episode longer than this is given up: an env without a time limit. */
const EPISODE_LIMIT = 1_000_000;

export interface RecordOptions {
  readonly episodes: number;
  /** Probability of a uniformly random action at each step, in [0, 1]. */
  readonly epsilon: number;
  /** Std of Gaussian noise added to continuous actions, in units of half the action range. */
  readonly noise: number;
  /** The policy's most likely action (else one sampled); epsilon and noise apply on top. */
  readonly deterministic: boolean;
  /** Seeds the copies' episodes (stream firstStream + i of it, as evaluation's). */
  readonly seed: number;
  readonly firstStream: number;
  /** Draws the policy's samples, epsilon's coins and the noise. */
  readonly rng: Rng;
}

export interface RecordedDataset {
  readonly transitions: TransitionsToWrite;
  readonly returns: readonly number[];
}

/** A growing float32 column. */
class Column {
  data: Float32Array;
  length = 0;
  constructor(readonly width: number) {
    this.data = new Float32Array(width * 1024);
  }
  push(values: ArrayLike<number>, from: number): void {
    if ((this.length + 1) * this.width > this.data.length) {
      const grown = new Float32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    for (let k = 0; k < this.width; k++) this.data[this.length * this.width + k] = values[from + k]!;
    this.length++;
  }
  append(other: Column): void {
    for (let r = 0; r < other.length; r++) this.push(other.data, r * this.width);
  }
  clear(): void {
    this.length = 0;
  }
}

/** The columns of one episode (or of the whole dataset). */
function columns(obsDim: number, actionDim: number) {
  return { obs: new Column(obsDim), actions: new Column(actionDim), rewards: new Column(1), terminals: new Column(1), timeouts: new Column(1), next: new Column(obsDim) };
}
type Columns = ReturnType<typeof columns>;

export async function recordDataset(actor: Actor, vec: VecEnv, options: RecordOptions): Promise<RecordedDataset> {
  const space = vec.actionSpace;
  if (space.kind !== 'box' && space.kind !== 'discrete') throw new InputError(`rlx record keeps continuous (Box) or discrete actions; ${vec.kind} has ${space.kind} actions`);
  if (options.noise > 0 && space.kind !== 'box') throw new InputError(`--noise adds Gaussian noise to continuous actions; ${vec.kind} has discrete actions: use --epsilon`);
  const n = vec.numEnvs;
  const { obsDim } = vec;
  const actionDim = space.kind === 'box' ? vec.actionDim : 1;
  const quota = Array.from({ length: n }, (_, i) => Math.floor(options.episodes / n) + (i < options.episodes % n ? 1 : 0));
  const running: Columns[] = Array.from({ length: n }, () => columns(obsDim, actionDim));
  const all = columns(obsDim, actionDim);
  const returns: number[] = [];
  const actions = vec.createActionBuffer();
  const before = new Float32Array(n * obsDim);
  const one = new Float32Array(1);
  const box = space.kind === 'box' ? (space as BoxSpace) : null;
  const { rng } = options;
  vec.envs.forEach((env, i) => env.seed(options.seed, options.firstStream + i));
  vec.reset();
  actor.resetMemory?.(n);
  let remaining = options.episodes;
  while (remaining > 0) {
    before.set(vec.obs);
    await actor.act(vec.obs, n, actions, options.deterministic, rng);
    for (let i = 0; i < n; i++) {
      if (options.epsilon > 0 && rng.uniform() < options.epsilon) {
        for (let k = 0; k < actionDim; k++) actions[i * actionDim + k] = box ? rng.uniformRange(box.low[k]!, box.high[k]!) : Math.floor(rng.uniform() * (space as { n: number }).n);
      } else if (box && options.noise > 0) {
        for (let k = 0; k < actionDim; k++) {
          const half = (box.high[k]! - box.low[k]!) / 2;
          actions[i * actionDim + k] = Math.min(box.high[k]!, Math.max(box.low[k]!, actions[i * actionDim + k]! + options.noise * half * rng.normal()));
        }
      }
    }
    vec.step(actions);
    actor.endEpisodes?.(vec.terminated, vec.truncated);
    for (let i = 0; i < n; i++) {
      const episode = running[i]!;
      const ended = vec.terminated[i] === 1 || vec.truncated[i] === 1;
      episode.obs.push(before, i * obsDim);
      episode.actions.push(actions, i * actionDim);
      episode.rewards.push(vec.rewards, i);
      episode.terminals.push(vec.terminated, i);
      // An episode both terminated and truncated terminated: no bootstrap either way.
      one[0] = vec.truncated[i] === 1 && vec.terminated[i] === 0 ? 1 : 0;
      episode.timeouts.push(one, 0);
      episode.next.push(ended ? vec.finalObs : vec.obs, i * obsDim);
      if (!ended && episode.obs.length >= EPISODE_LIMIT) {
        throw new InputError(`an episode of ${vec.kind} ran past ${EPISODE_LIMIT} steps without ending; give the env a max_steps`);
      }
      if (!ended) continue;
      if (quota[i]! > 0) {
        quota[i]!--;
        remaining--;
        let total = 0;
        for (let r = 0; r < episode.rewards.length; r++) total += episode.rewards.data[r]!;
        returns.push(total);
        for (const key of Object.keys(all) as (keyof Columns)[]) all[key].append(episode[key]);
      }
      for (const column of Object.values(episode)) column.clear();
    }
  }
  const flags = (c: Column) => Uint8Array.from(c.data.subarray(0, c.length));
  return {
    returns,
    transitions: {
      rows: all.obs.length,
      obsShape: [obsDim],
      actionShape: box ? [...box.shape] : [],
      observations: all.obs.data.subarray(0, all.obs.length * obsDim),
      actions: all.actions.data.subarray(0, all.actions.length * actionDim),
      rewards: all.rewards.data.subarray(0, all.rewards.length),
      terminals: flags(all.terminals),
      timeouts: flags(all.timeouts),
      nextObservations: all.next.data.subarray(0, all.next.length * obsDim),
    },
  };
}
