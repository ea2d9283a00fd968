// The ONE list of what the language declares (dsl/schema) but this runtime does not run yet.
//
// `rlx train` refuses a plan that needs anything here, with the reason below (see
// support.ts); the registry drift test (test/runtime/registry-drift.test.ts) fails when a
// built-in of the schema registry is neither implemented nor listed here, or is both.
// Implementing one means: add it to its registry in the runtime, delete its line here.

/** Built-ins by declaration kind: name -> why it cannot run yet (shown to the user). */
export const NOT_IMPLEMENTED: Readonly<Record<'env' | 'algorithm' | 'policy', Readonly<Record<string, string>>>> = {
  env: {
    TextTask: 'text environments need a text policy (transformer) and GRPO/SFT, which are not implemented yet',
    GuessNumber: 'text environments need a text policy (transformer) and GRPO/SFT, which are not implemented yet',
  },
  algorithm: {
    DQN: 'only PPO is implemented so far',
    SAC: 'only PPO is implemented so far',
    GRPO: 'only PPO is implemented so far',
    SFT: 'only PPO is implemented so far',
  },
  policy: {},
};

/** Reward-expression functions of the registry the reward compiler does not provide (text verifiers). */
export const NOT_IMPLEMENTED_FUNCTIONS: Readonly<Record<string, string>> = {
  exact: 'text verifiers need a text environment (TextTask), which is not implemented yet',
  numeric: 'text verifiers need a text environment (TextTask), which is not implemented yet',
  regex: 'text verifiers need a text environment (TextTask), which is not implemented yet',
  contains: 'text verifiers need a text environment (TextTask), which is not implemented yet',
  length: 'text verifiers need a text environment (TextTask), which is not implemented yet',
};

/** Names a reward term may use that only text environments have. */
export const NOT_IMPLEMENTED_REWARD_NAMES: Readonly<Record<string, string>> = {
  prompt: 'only text environments (not implemented yet) have a prompt',
  completion: 'only text environments (not implemented yet) have a completion',
  target: 'only text environments (not implemented yet) have a target',
};

/** Features of an experiment that the trainer cannot honour yet. */
export const NOT_IMPLEMENTED_FEATURES = {
  curriculum: 'the `curriculum { }` block is not implemented yet',
  stages: 'experiments with several stages are not implemented yet (one algorithm + budget only)',
  relabel: 'hindsight relabeling needs an off-policy algorithm (DQN, SAC), which is not implemented yet',
} as const;
