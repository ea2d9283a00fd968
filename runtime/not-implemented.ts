// The ONE list of what the language declares (dsl/schema) but this runtime does not run yet.
//
// `rlx train` refuses a plan that needs anything here, with the reason below (see
// support.ts); the registry drift test (test/runtime/registry-drift.test.ts) fails when a
// built-in of the schema registry is neither implemented nor listed here, or is both.
// Implementing one means: add it to its registry in the runtime, delete its line here.

/** Built-ins by declaration kind: name -> why it cannot run yet (shown to the user). */
export const NOT_IMPLEMENTED: Readonly<Record<'env' | 'algorithm' | 'policy', Readonly<Record<string, string>>>> = {
  env: {},
  algorithm: {
    DQN: 'it needs off-policy learning (a replay buffer, target networks), which is not built yet; PPO and REINFORCE/RLOO train today',
    SAC: 'it needs off-policy learning (a replay buffer, target networks), which is not built yet; PPO and REINFORCE/RLOO train today',
  },
  policy: {},
};

/**
 * Reward-expression functions of the registry the numeric reward compiler does not provide: the
 * text verifiers, which only a text env (TextTask) compiles (runtime/text/reward-terms.ts).
 */
export const NOT_IMPLEMENTED_FUNCTIONS: Readonly<Record<string, string>> = {
  exact: 'text verifiers need a text environment (TextTask)',
  numeric: 'text verifiers need a text environment (TextTask)',
  regex: 'text verifiers need a text environment (TextTask)',
  contains: 'text verifiers need a text environment (TextTask)',
  length: 'text verifiers need a text environment (TextTask)',
};

/** Names a reward term may use that only text environments (TextTask) have; runtime/text/reward-terms.ts compiles them there. */
export const NOT_IMPLEMENTED_REWARD_NAMES: Readonly<Record<string, string>> = {
  prompt: 'only text environments (TextTask) have a prompt',
  completion: 'only text environments (TextTask) have a completion',
  target: 'only text environments (TextTask) have a target',
};

/** Features of an experiment that the trainer cannot honour yet. */
export const NOT_IMPLEMENTED_FEATURES = {
  curriculum: 'the `curriculum { }` block is not implemented yet',
  stages: 'experiments with several stages are implemented for text envs (SFT then GRPO) only',
  dialogueRewards: 'reward terms on a dialogue env (GuessNumber) are not implemented yet: it trains on the env\'s own reward (1 for finding the number)',
  relabel: 'hindsight relabeling needs an off-policy algorithm (DQN, SAC), which is not implemented yet',
} as const;
