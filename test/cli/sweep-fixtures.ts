// The specs the sweep tests train: small enough that a member trains in a second or two.

/** A CartPole PPO experiment small enough to train in a second or two (256 steps). */
export const TINY_EXPERIMENT = `
env Pole = CartPole { max_steps: 50 }
policy P = mlp { hidden: [8] }
algorithm A = PPO {
  rollout_steps: 32
  epochs: 1
  minibatches: 1
}
experiment E {
  env: Pole
  envs: 2
  policy: P
  algorithm: A
  budget: 256
  seeds: [1, 2]
}
`;
