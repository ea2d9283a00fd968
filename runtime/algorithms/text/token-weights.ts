// The token-weights step of the text policy-gradient learner (policy-gradient.ts): how much each
// learned token of the batch counts in the loss (policy-gradient-loss.ts sums weight * term). The
// weights are computed here and fed, so one graph serves every aggregation:
//
//   sequence:  w_it = mask_it / (B |o_i|)        each sample's tokens averaged, then the samples (the GRPO paper)
//   token:     w_it = mask_it / sum_i |o_i|      all tokens of the batch averaged together (DAPO)
//   constant:  w_it = mask_it / (B L)            summed, over a constant: L = max_new_tokens (Dr. GRPO)
//   sum:       w_it = mask_it / B                each sample's tokens summed, then averaged: REINFORCE's
//                                                gradient of the mean sequence log-probability (TRL's RLOO)
//
// B is the batch's samples (rows), |o_i| the learned tokens of sample i.
import type { TokenRows } from '../../text/text-env.js';

export const TOKEN_WEIGHTINGS = ['sequence', 'token', 'constant', 'sum'] as const;
export type TokenWeighting = (typeof TOKEN_WEIGHTINGS)[number];

/** One weight per position of `batch` [rows * width]; `constantTokens` is L of `constant`. */
export function tokenWeights(batch: TokenRows, weighting: TokenWeighting, constantTokens: number): Float32Array {
  const { rows, width: T } = batch;
  const weight = new Float32Array(rows * T);
  for (let r = 0; r < rows; r++) {
    const per = weighting === 'token' ? 1 / Math.max(1, batch.tokenCount)
      : weighting === 'sum' ? 1 / rows
        : weighting === 'constant' ? 1 / (rows * constantTokens)
          : 1 / (rows * Math.max(1, batch.perRow[r]!));
    for (let i = 0; i < T; i++) weight[r * T + i] = batch.mask[r * T + i]! * per;
  }
  return weight;
}
