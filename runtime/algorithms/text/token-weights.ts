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
//
// High-entropy minority tokens (Wang et al. 2025, "Beyond the 80/20 rule"; GRPO's
// `entropy_top_fraction` rho < 1): only the top rho of the batch's learned tokens by the entropy
// of the distribution each was sampled from (pi_old at the sampling temperature, recorded as it
// was drawn: Rollouts.tokenEntropy) keep their weight. The top is taken over the whole batch, as
// the paper does: the threshold is the entropy of the ceil(rho N)-th highest of the N learned
// tokens, and every token at or above it is kept (ties kept together). The weights are then the
// aggregation's over the kept tokens alone: |o_i| and sum_i |o_i| count kept tokens (`sequence`,
// `token`); `constant` and `sum` have no count to renormalise. The one weight serves every
// per-token term of the loss (policy-gradient-loss.ts), so a KL term in the loss acts on the kept
// tokens only; `kl_in_reward` folds the KL of every token into the reward instead.
import type { Rollouts, TokenRows } from '../../text/text-env.js';

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

/** The learned tokens kept by entropy, as token rows (their own mask, counts), and the threshold. */
export interface EntropySelection {
  readonly rows: TokenRows;
  /** The lowest entropy kept. */
  readonly threshold: number;
  /** Kept tokens over learned tokens. */
  readonly keptFraction: number;
}

/**
 * The top `fraction` of `batch`'s learned tokens by sampling entropy (0 < fraction <= 1), as
 * rows whose mask keeps only those: tokenWeights() of them is the selection's weights. Throws
 * when the batch carries no entropies (an env whose sampling does not record them).
 */
export function selectHighEntropyTokens(batch: TokenRows & Pick<Rollouts, 'tokenEntropy'>, fraction: number): EntropySelection {
  const entropy = batch.tokenEntropy;
  if (!entropy) throw new Error('entropy_top_fraction: these rollouts carry no per-token sampling entropy (Rollouts.tokenEntropy); leave entropy_top_fraction at 1');
  const { rows, width: T, mask } = batch;
  const learned: number[] = [];
  for (let i = 0; i < rows * T; i++) if (mask[i] !== 0) learned.push(entropy[i]!);
  if (learned.length === 0) return { rows: batch, threshold: 0, keptFraction: 1 };
  learned.sort((a, b) => b - a);
  const threshold = learned[Math.max(1, Math.ceil(fraction * learned.length)) - 1]!;
  const kept = new Float32Array(rows * T);
  const perRow = new Int32Array(rows);
  let tokenCount = 0;
  for (let r = 0; r < rows; r++) {
    for (let i = r * T; i < (r + 1) * T; i++) {
      if (mask[i] === 0 || entropy[i]! < threshold) continue;
      kept[i] = mask[i]!;
      perRow[r]++;
    }
    tokenCount += perRow[r]!;
  }
  return { rows: { ...batch, mask: kept, perRow, tokenCount }, threshold, keptFraction: tokenCount / learned.length };
}
