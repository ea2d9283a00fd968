// What differs between the kinds of run the trainer runs, behind one interface, so that one
// TrainingRun (training-run.ts) does everything else the same way for all of them: stages,
// metrics events, episode windows, evaluation schedule, stop conditions, checkpoints,
// status.json, clean stops and failures.
//
// Two workloads exist: env-workload.ts (env copies stepped by a Stepper: PPO, REINFORCE on
// CartPole and the like) and text-workload.ts (a token model on a text task: SFT, GRPO).
import type { Plan, PlanStage } from '../../dsl/compile/plan.js';
import type { Algorithm, EpisodeRecord } from '../algorithms/index.js';
import type { Rng } from '../../shared/random.js';
import type { RunDataFiles } from '../run/data-files.js';
import type { RunDirectory } from '../run/run-dir.js';
import type { ConditionMetric } from '../run/stop.js';
import type { Compute } from '../tensor/index.js';
import type { RolloutDevice } from '../lm/rollout-device.js';

/** What an evaluation found, as the trainer writes it into an `eval` event. */
export interface EvalOutcome {
  /** eval/* metrics (eval/mean_return at least). */
  readonly values: Record<string, number>;
  readonly returns: readonly number[];
  readonly lengths: readonly number[];
  readonly deterministic: boolean;
  /** A line for the user, where the workload has one worth printing. */
  readonly message?: string;
}

/** What a workload may use of the run it serves. */
export interface RunServices {
  readonly dir: RunDirectory;
  /** The run's step now (over all stages). */
  step(): number;
  /** The name of the stage being trained. */
  stage(): string;
}

export interface Workload {
  /** Fields of every stage's hparams event besides the algorithm's (env, envs or task, ...). */
  readonly description: Readonly<Record<string, unknown>>;
  /** Fields of the exported policy's metadata that say what it reads and writes. */
  readonly policyFields: Readonly<Record<string, unknown>>;
  /** The files the stages' `file` settings name (../run/data-files.ts), which each stage's hparams event lists. */
  readonly dataFiles?: RunDataFiles;
  /** Warnings about its inputs for the user, logged when the run starts (a dataset that is not all UTF-8). */
  readonly warnings?: readonly string[];
  /**
   * The name of stage `index`'s random stream (Rng.fork). The two kinds keep the names their
   * trainers used before they were one, so that a seed trains as it did in earlier versions:
   * the results of short runs depend on the exact draws.
   */
  streamName(index: number, algorithm: string): string;
  /**
   * Builds one stage's algorithm on this workload's envs or model; a later stage starts from
   * the weights the previous one trained (the shared token model; env-workload: the networks'
   * weights loaded into the new ones).
   */
  createAlgorithm(stage: PlanStage, settings: unknown, rng: Rng, compute: Compute): Promise<Algorithm>;
  /**
   * Where the latest createAlgorithm()'s stage decodes its rollouts, where the workload chose
   * (a pretrained model on a GPU device: lm/rollout-device.ts); undefined where they decode as
   * the policy always does (every run on the CPU device), and nothing is logged.
   */
  rolloutDevice?(): RolloutDevice | undefined;
  /**
   * How a pretrained model went into memory, for the hparams: `memory_estimate_bytes`, the
   * estimate (hf/memory.ts) the run was checked against before its model loaded, logged beside
   * the measured `memory/peak_rss_bytes` so the dashboard shows one against the other, and
   * `base_dtype`, how a LoRA base is held (lora { base_dtype } with `auto` resolved).
   */
  memoryFacts?(): Readonly<Record<string, unknown>>;
  /** What the latest createAlgorithm() took over from the previous stage, in words, for the log; absent where the stages share one model. */
  handedOver?(): string | undefined;
  /**
   * Called once the run directory exists, before the first iteration of a stage: starts the
   * episodes (from the seed, or from a stream of the resume step when `resumedAt` is set).
   */
  begin(algorithm: Algorithm, run: RunServices, resumedAt: number | null): void;
  /**
   * Records what the next iteration samples for the rollout inspector (an episode of env copy 0,
   * or a learner's batch); `atStart` when the run is at its very first step. The trainer calls
   * it every `rolloutEvery` steps.
   */
  recordNext(step: number, atStart: boolean): void;
  /**
   * Records one episode of the algorithm's policy acting as evaluated (deterministic unless
   * the plan's eval says otherwise) on an env copy of its own, into rollouts/: `eval` at an
   * evaluation, `final` at the end of the run. The text workload records only `final`: the
   * greedy answers its last evaluation scored (its learners record their batches).
   */
  recordPolicy?(algorithm: Algorithm, recorded: 'eval' | 'final', step: number): Promise<void>;
  /** Episodes that finished during the last iteration of `algorithm`. */
  takeEpisodes(algorithm: Algorithm): readonly EpisodeRecord[];
  /** Whether evaluate() has something to do for `plan` (numeric envs need an `eval` block; text tasks always have held-out prompts). */
  evaluates(plan: Plan): boolean;
  /** Evaluate the starting policy before the first update of a new run (a pretrained model: the baseline a fine-tuning run is judged against). */
  evaluatesAtStart?(): boolean;
  /** Evaluates the algorithm's policy; `index` counts evaluations over the run. */
  evaluate(algorithm: Algorithm, index: number): Promise<EvalOutcome>;
  /**
   * The values stop conditions see: `windows` are train.* over the last 20 episodes (those
   * with episodes), `latest` every metric's latest value, `lastEval` the latest evaluation.
   */
  conditionValues(windows: Readonly<Record<string, number>>, latest: Readonly<Record<string, number>>, lastEval: Readonly<Record<string, number>>): Partial<Record<ConditionMetric, number>>;
  /**
   * Sets env parameter `name` to `value` for every env copy from now on (a curriculum's
   * advance): the training and evaluation copies are rebuilt, and the episodes in flight
   * restart from a stream of the seed and `step`. Absent where the env has no such copies.
   */
  setEnvParam?(name: string, value: number, step: number): void;
  /** Ends what the workload started (env workers, the shared model). */
  release(): Promise<void>;
}
