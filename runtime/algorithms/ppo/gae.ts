// Generalised advantage estimation (Schulman et al. 2016), as CleanRL's ppo.py computes it.

/**
 * GAE over a rollout laid out [step][env]. `ended[t, i]` says the episode ended at step t
 * (terminated or truncated): nothing after it is this episode's, so the recursion restarts
 * there. Truncation bootstrapping is already in `rewards` (the learner adds
 * gamma * V(final_obs) to a truncated step's reward).
 */
export function computeGae(
  rewards: ArrayLike<number>,
  values: ArrayLike<number>,
  ended: ArrayLike<number>,
  nextValues: ArrayLike<number>,
  numSteps: number,
  numEnvs: number,
  gamma: number,
  gaeLambda: number,
  advantages: Float32Array,
  returns: Float32Array,
): void {
  for (let i = 0; i < numEnvs; i++) {
    let lastGaeLam = 0;
    for (let t = numSteps - 1; t >= 0; t--) {
      const b = t * numEnvs + i;
      const nextNonTerminal = 1 - ended[b];
      const nextValue = t === numSteps - 1 ? nextValues[i] : values[b + numEnvs];
      const delta = rewards[b] + gamma * nextValue * nextNonTerminal - values[b];
      lastGaeLam = delta + gamma * gaeLambda * nextNonTerminal * lastGaeLam;
      advantages[b] = lastGaeLam;
      returns[b] = lastGaeLam + values[b];
    }
  }
}
