// The facts a probe of a Python env gives the checker, and the provider a host injects (types
// only): the checker (dsl/semantics/python-env.ts) reads them, the trainer's probe
// (runtime/envs/python/probe.ts) makes them, so they live here, below both.

/** What a probe starts: the env as the trainer would make it (python-env-plan.ts builds the same from the plan). */
export interface PythonEnvQuery {
  /** `gymnasium("Id")`: a registered id; '' for a class in a file. */
  readonly id: string;
  /** `python("./envs/x.py:Class")`: the file (absolute) and the class; a probe's answer is kept while the file's content is the same. */
  readonly file?: string;
  readonly className?: string;
  readonly kwargs: Readonly<Record<string, unknown>>;
  readonly imports: readonly string[];
  /** The `python` setting as written; '' for the default (RLX_PYTHON, else python3). */
  readonly python: string;
  /** env_timeout in seconds: a probe may take this long on top of its start-up allowance. */
  readonly envTimeout: number;
}

/** The action space as the checker needs it. */
export type PythonEnvAction =
  | { readonly kind: 'discrete'; readonly n: number }
  | { readonly kind: 'continuous'; readonly dims: number }
  | { readonly kind: 'multibinary'; readonly n: number };

/** What a probe learnt. */
export interface PythonEnvFacts {
  readonly kind: 'facts';
  /** One name per observation number: the handshake's observation_names, else x0, x1, ... */
  readonly observationNames: readonly string[];
  readonly observationShape: readonly number[];
  readonly action: PythonEnvAction;
  /** The id's registered episode limit; null when it has none. */
  readonly maxSteps: number | null;
  /**
   * A goal env (the handshake has `goal`: a Dict observation with achieved_goal and desired_goal,
   * compute_reward on env.unwrapped): `relabel:` and the reward names `goal`/`achieved` take it.
   */
  readonly goalConditioned: boolean;
  /** A Discrete env that gives action masks (info["action_mask"] at reset, or an action_masks() method): `action_mask: on` takes it. */
  readonly actionMask?: boolean;
  /**
   * The first Box of uint8 pixels in the observation (2 or 3 dimensions; `key`: its Dict key
   * path, '' outside a Dict), else null: the policy would take it flattened and unscaled.
   */
  readonly image: { readonly key: string; readonly shape: readonly number[] } | null;
}

/**
 * A probe that could not make the env (no Python, an import error, a timeout): shown as a
 * warning, training reports it too. `refused`: the env was made, and its spaces are ones rlx
 * does not take (worker.py's Refusal: a Box of no numbers, a Discrete of 2^40 actions): an error.
 */
export interface PythonEnvProbeFailure {
  readonly kind: 'failed';
  /** One line: the traceback's last line, or why Python did not start or answer. */
  readonly message: string;
  readonly refused?: boolean;
}

/**
 * What a provider knows of an env now: facts, a failure, 'pending' (a probe runs; the provider
 * tells its host when it ends) or undefined (it will not probe: an untrusted workspace). A
 * provider returns the same object while what it knows is unchanged: analyses compare reads by
 * identity to see that they are stale (check/reuse.ts, the server's analysis cache).
 */
export type PythonEnvRead = PythonEnvFacts | PythonEnvProbeFailure | 'pending' | undefined;

export interface PythonEnvFactsProvider {
  lookup(query: PythonEnvQuery): PythonEnvRead;
}
