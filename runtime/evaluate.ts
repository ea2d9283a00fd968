// Evaluation: run a policy for a number of whole episodes on env copies of their own and
// report the env's returns (the task's own reward, not the training reward terms).
//
// Each copy runs a fixed share of the episodes (copy i runs episodes i, i + n, ...), so short
// episodes are not over-represented, as they would be by taking the first N to finish.
import { Stepper } from './algorithms/stepper.js';
import type { VecEnv } from './envs/vector.js';
import type { Actor } from './policies/index.js';
import type { CompiledReward } from './rewards/index.js';
import { frameOfCopy0, RolloutRecorder, type Recorded, type RecordedEpisode } from './run/rollouts.js';
import type { Rng } from '../shared/random.js';

/** A recorded episode of the policy longer than this is given up (an env without a time limit). */
const RECORDED_EPISODE_LIMIT = 100_000;

export interface EvalResult {
  readonly returns: number[];
  readonly lengths: number[];
  /** Goal-conditioned envs only. */
  readonly successes: boolean[] | null;
}

/**
 * Runs `episodes` episodes; `deterministic` takes the most likely action, else samples with
 * `rng`. Copy i draws its episodes from stream `firstStream + i` of the run's `seed`: streams
 * apart from training's (0 .. envs-1), yet the same problem where an env draws it from the
 * seed itself (Bandit's arm means).
 */
export async function evaluate(
  actor: Actor,
  vec: VecEnv,
  episodes: number,
  deterministic: boolean,
  rng: Rng,
  seed: number,
  firstStream: number,
  /** Act under the env's action masks (the learner's action_mask setting; false for an env without masks). */
  masked = false,
): Promise<EvalResult> {
  const n = vec.numEnvs;
  const quota = Array.from({ length: n }, (_, i) => Math.floor(episodes / n) + (i < episodes % n ? 1 : 0));
  const actions = vec.createActionBuffer();
  const returns: number[] = [];
  const lengths: number[] = [];
  const successes: boolean[] = [];
  let goal = false;
  let remaining = episodes;
  vec.envs.forEach((env, i) => env.seed(seed, firstStream + i));
  vec.reset();
  actor.resetMemory?.(n);
  while (remaining > 0) {
    await actor.act(vec.obs, n, actions, deterministic, rng, masked ? vec.actionMasks : null);
    vec.step(actions);
    actor.endEpisodes?.(vec.terminated, vec.truncated);
    if (!vec.terminated.includes(1) && !vec.truncated.includes(1)) continue;
    for (const episode of vec.takeFinishedEpisodes()) {
      if (quota[episode.env] === 0) continue; // this copy has run its share
      quota[episode.env]--;
      remaining--;
      returns.push(episode.return);
      lengths.push(episode.length);
      if (episode.success !== undefined) {
        goal = true;
        successes.push(episode.success);
      }
    }
  }
  return { returns, lengths, successes: goal ? successes : null };
}

/** eval/mean_return, eval/std_return (population), eval/mean_length, eval/success. */
export function evalMetrics(result: EvalResult): Record<string, number> {
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const m = mean(result.returns);
  const values: Record<string, number> = {
    'eval/mean_return': m,
    'eval/std_return': Math.sqrt(mean(result.returns.map((r) => (r - m) ** 2))),
    'eval/mean_length': mean(result.lengths),
  };
  if (result.successes) values['eval/success'] = mean(result.successes.map((s) => (s ? 1 : 0)));
  return values;
}

/** What recordEpisode() records, and where. */
export interface EpisodeToRecord {
  /** rollouts/ of the run. */
  readonly dir: string;
  /** The step the episode's file is named by. */
  readonly step: number;
  readonly recorded: Recorded;
  readonly deterministic: boolean;
  /** The training reward and its terms, so that the episode shows them as the learner saw them. */
  readonly reward: CompiledReward | null;
  readonly termNames: readonly string[];
  readonly envParams: Readonly<Record<string, unknown>>;
  /** Seeds copy 0's reset. */
  readonly seed: number;
  /** Samples actions (when not deterministic). */
  readonly rng: Rng;
  readonly onRecorded: (episode: RecordedEpisode) => void;
  /** Act under the env's action masks, as the learner did. */
  readonly masked?: boolean;
}

/**
 * Records one whole episode of `actor` on copy 0 of `vec` (a copy of its own: it is reset) into
 * rollouts/, frames included where the env draws them (rollouts.ts).
 */
export async function recordEpisode(actor: Actor, vec: VecEnv, what: EpisodeToRecord): Promise<void> {
  const stepper = new Stepper(vec, what.reward);
  const recorder = new RolloutRecorder(
    what.dir,
    { env: vec.kind, obsFields: vec.obsFields, actionSpace: vec.actionSpace, terms: what.termNames, envParams: () => what.envParams, ...frameOfCopy0(vec) },
    what.onRecorded,
  );
  stepper.sink = recorder;
  stepper.reset(what.seed);
  recorder.arm(what.step, true, what.recorded, what.deterministic);
  const actions = vec.createActionBuffer();
  actor.resetMemory?.(vec.numEnvs);
  for (let t = 0; recorder.active && t < RECORDED_EPISODE_LIMIT; t++) {
    await actor.act(stepper.obs, vec.numEnvs, actions, what.deterministic, what.rng, what.masked === true ? vec.actionMasks : null);
    stepper.step(actions);
    actor.endEpisodes?.(vec.terminated, vec.truncated);
  }
  recorder.cancel();
}
