// The KL to the reference policy, per token, from x = log pi_ref(o_t) - log pi(o_t) on the
// sampled token (Schulman's estimators, http://joschu.net/blog/kl-approx.html):
//
//   k1 = -x                    unbiased, can be negative
//   k2 = x^2 / 2               biased, always >= 0
//   k3 = exp(x) - x - 1        unbiased, always >= 0 (the GRPO paper's, and the default)
//
// As a loss term (policy-gradient-loss.ts) it is built into the graph; folded into the reward
// (`kl_in_reward`) it is computed here from the log-probabilities of the sampling policy and the
// reference, and each sample's reward loses kl_coef times the sum over its tokens.
import type { Graph, Tensor } from '../../tensor/index.js';

export const KL_ESTIMATORS = ['k1', 'k2', 'k3'] as const;
export type KlEstimator = (typeof KL_ESTIMATORS)[number];

/** The estimator at every position of `logRefRatio` (log pi_ref - log pi), in the graph. */
export function klTerm(g: Graph, logRefRatio: Tensor, estimator: KlEstimator): Tensor {
  switch (estimator) {
    case 'k1': return g.neg(logRefRatio);
    case 'k2': return g.mul(g.square(logRefRatio), 0.5);
    case 'k3': return g.sub(g.sub(g.exp(logRefRatio), logRefRatio), 1);
  }
}

/** The estimator of one token, in JS: the same formulas as klTerm. */
export function klOf(logRefRatio: number, estimator: KlEstimator): number {
  switch (estimator) {
    case 'k1': return -logRefRatio;
    case 'k2': return logRefRatio * logRefRatio / 2;
    case 'k3': return Math.exp(logRefRatio) - logRefRatio - 1;
  }
}

/**
 * `rewards` less kl_coef times each sample's KL summed over its learned tokens (rows of `width`
 * positions, `mask` 1 where learned), from the sampling policy's and the reference's log-probabilities.
 * Returns, for the metrics, the mean KL per learned token and the mean penalty per sample.
 */
export function foldKlIntoRewards(rewards: Float64Array, logp: Float32Array, refLogp: Float32Array, mask: Float32Array, width: number, estimator: KlEstimator, klCoef: number): { tokenKl: number; penalty: number } {
  let total = 0;
  let tokens = 0;
  for (let r = 0; r < rewards.length; r++) {
    let kl = 0;
    for (let t = r * width; t < (r + 1) * width; t++) {
      if (mask[t] === 0) continue;
      kl += klOf(refLogp[t]! - logp[t]!, estimator);
      tokens++;
    }
    rewards[r] = rewards[r]! - klCoef * kl;
    total += kl;
  }
  return { tokenKl: total / Math.max(1, tokens), penalty: (klCoef * total) / Math.max(1, rewards.length) };
}
