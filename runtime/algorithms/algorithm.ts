// The seam between the trainer (../trainer/) and the algorithms. An algorithm is one
// AlgorithmDefinition in one file, listed in index.ts; the trainer builds its context from
// the plan and runs the loop around it (evaluation, stopping, checkpoints, events), knowing
// nothing of its maths, its networks or how its tensor work is computed.
import type { SamplingControls } from '../lm/sampling.js';
import type { LanguageModel, PolicyFactory, Policy } from '../policies/index.js';
import type { Rng } from '../../shared/random.js';
import type { Compute } from '../tensor/index.js';
import type { DataFile } from '../run/data-files.js';
import type { TextRolloutRecorder } from '../run/text-rollouts.js';
import type { TextEnv } from '../text/text-env.js';
import type { EpisodeRecord, Stepper } from './stepper.js';

/** The action kinds of the language's envs (dsl/schema's ActionKind). */
export type ActionKind = 'discrete' | 'continuous' | 'multibinary' | 'text';

/** What the trainer hands an algorithm to build itself. */
export interface AlgorithmContext {
  /** Builds the plan's policy in the network family the algorithm trains. */
  readonly policy: PolicyFactory;
  /** The env copies, stepped with the plan's reward terms. */
  readonly stepper: Stepper;
  /** Environment steps to train for. */
  readonly budget: number;
  /** The algorithm's own random stream of the run's seed. */
  readonly rng: Rng;
  /** Where and how tensor work runs (execution providers, threads); for tensor/ to read. */
  readonly compute: Compute;
  /** The files the stage's `file` settings name, by setting (../run/data-files.ts). */
  readonly dataFiles?: ReadonlyMap<string, DataFile>;
}

/**
 * What the trainer hands a text algorithm (SFT, GRPO) for one stage. The model is built once
 * per run and handed to every stage, so each stage starts from the weights the previous one
 * left; each algorithm keeps its own optimiser.
 */
export interface TextAlgorithmContext {
  readonly model: LanguageModel;
  readonly env: TextEnv;
  /** The stage's budget (completions or demonstrations); null when the stage gives none. */
  readonly budget: number | null;
  readonly rng: Rng;
  readonly compute: Compute;
  /** Writes some batches into rollouts/ for the rollout inspector; the learner offers it each batch with its advantages. */
  readonly recorder?: TextRolloutRecorder;
  /** The files the stage's `file` settings name, by setting (../run/data-files.ts): read from the run's copies. */
  readonly dataFiles?: ReadonlyMap<string, DataFile>;
}

/** An algorithm of the language, by its name there; C is what it is built from. */
export interface AlgorithmDefinition<S = unknown, C = AlgorithmContext> {
  readonly name: string;
  /** The action kinds this implementation trains on (the registry may declare more). */
  readonly actions: readonly ActionKind[];
  /**
   * Reads and checks the plan's hyperparameters (defaults, docs and ranges come from the
   * registry, dsl/schema/algorithms.ts); errors name the param. Called before anything is
   * built, so a bad value fails before a run directory exists.
   */
  params(hyperparameters: Readonly<Record<string, unknown>>): S;
  create(context: C, settings: S): Promise<Algorithm>;
  /**
   * How many steps a stage without a `budget` runs, for algorithms with a length of their own
   * (SFT: `updates` batches). Absent: a stage of this algorithm needs a budget.
   */
  lengthWithoutBudget?(settings: S): number;
}

/** What the trainer needs from a running algorithm. */
export interface Algorithm {
  readonly name: string;
  /** The policy being trained: evaluated, recorded and exported by the trainer. */
  readonly policy: Policy;
  /** Environment steps taken so far. */
  readonly globalStep: number;
  /** Whether the budget is spent. */
  readonly done: boolean;
  /** Whether the policy acts under the env's action masks (action_mask): evaluation and recorded episodes then do too. */
  readonly masksActions?: boolean;
  /** One round of collecting and learning; returns its metrics (namespaced names). */
  iterate(): Promise<Record<string, number>>;
  /** The resolved hyperparameters, logged once at the start. */
  hparams(): Record<string, unknown>;
  /**
   * Episodes that ended since the last call, for algorithms that run episodes without the
   * trainer's Stepper (dialogues of a text env); absent otherwise.
   */
  takeEpisodes?(): readonly EpisodeRecord[];
  /** The sampling controls a text learner samples with (lm/sampling.ts): evaluation's greedy decoding keeps its stop strings and repetition_penalty. */
  samplingControls?(): SamplingControls | undefined;
  /** Everything needed to continue exactly (typed arrays allowed), and its inverse. */
  state(): unknown;
  loadState(state: unknown): void;
  release(): Promise<void>;
}
