// What stepping an env copy yields beyond its observations: a finished episode's figures, and
// the transitions a rollout recorder receives. Plain types, here at the floor of env stepping so
// that the run directory (recorded rollouts) and text envs (their episodes) read them without
// reaching up into the algorithms that produce them (runtime/algorithms/stepper.ts).

export interface EpisodeRecord {
  /** Env copy that ran it. */
  readonly env: number;
  /** The env's own return (task performance, comparable with published figures). */
  readonly return: number;
  readonly length: number;
  /** Goal-conditioned envs: whether the goal was reached. */
  readonly success?: boolean;
  /** With a reward declaration: the return the learner maximised, and each term's sum. */
  readonly trainingReturn?: number;
  readonly terms?: Readonly<Record<string, number>>;
}

/** Receives every transition of one env copy while a rollout sample is being recorded. */
export interface TransitionSink {
  /** Called for env copy 0 after each step while active. */
  transition(step: {
    readonly obs: Float32Array;
    readonly action: ArrayLike<number>;
    readonly reward: number;
    readonly envReward: number;
    readonly terms: Float64Array | null;
    readonly terminated: boolean;
    readonly truncated: boolean;
  }): void;
  readonly active: boolean;
  /** Called before each step while active, with copy 0 in the state the step starts from (rollouts.ts draws it). */
  beforeStep?(): void;
}
