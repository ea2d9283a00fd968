// The per-token terms of the text policy-gradient objective (policy-gradient-loss.ts adds them up,
// each weighted by the token weights of token-weights.ts). Each is [B, T]; the KL is kl.ts's.
import type { Graph, Tensor } from '../../tensor/index.js';

/** min(ratio A, clip(ratio, low, high) A): PPO's clipped surrogate, with A [B, T]: each token's advantage (turn-credit.ts). */
export function clippedSurrogate(g: Graph, ratio: Tensor, advantages: Tensor, ratioLow: Tensor, ratioHigh: Tensor): Tensor {
  return g.min(g.mul(ratio, advantages), g.mul(g.clip(ratio, ratioLow, ratioHigh), advantages));
}

/** 1 where the clip took the gradient away: ratio below the range with A < 0, or above it with A > 0. */
export function clipped(g: Graph, ratio: Tensor, advantages: Tensor, ratioLow: Tensor, ratioHigh: Tensor): Tensor {
  const below = g.and(g.less(ratio, ratioLow), g.less(advantages, 0));
  const above = g.and(g.greater(ratio, ratioHigh), g.greater(advantages, 0));
  // The two never hold together (ratioLow < ratioHigh): their sum is their Or, without an Or node, which
  // onnxruntime's WebGPU provider runs on the CPU.
  return g.add(g.cast(below, 'float32'), g.cast(above, 'float32'));
}

/** -sum_v p log p at every position. */
export function entropy(g: Graph, logSoftmax: Tensor): Tensor {
  return g.neg(g.reduceSum(g.mul(g.exp(logSoftmax), logSoftmax), { axes: [-1] }));
}

/**
 * The demonstrations' cross-entropy (CHORD's SFT term): -sum(sftWeight * log pi(target)), where
 * `sftWeight` is 1 / (the demonstrations' tokens) at each demonstration token and 0 elsewhere
 * (the policy's own samples), so it is the mean over the demonstrations' tokens.
 */
export function demoCrossEntropy(g: Graph, logProb: Tensor, sftWeight: Tensor): Tensor {
  return g.neg(g.reduceSum(g.mul(sftWeight, logProb)));
}
