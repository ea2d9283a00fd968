// Drawing and dynamics share these numbers: the env (runtime/envs/) steps with them and the
// rollout inspector (webview/rollouts/draw/) draws with them. Import-free on purpose, so the
// browser bundle takes them without the trainer (test/architecture.test.ts checks it).

/**
 * Gymnasium's fixed parts of CartPole-v1, not parameters in the language: the
 * termination bounds and the (explicit Euler) integrator.
 */
export const CARTPOLE_CONSTANTS = {
  x_threshold: 2.4,
  theta_threshold_degrees: 12,
  integrator: 'euler',
} as const;
