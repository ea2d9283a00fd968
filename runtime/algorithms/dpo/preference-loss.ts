// The preference losses on a batch of pairs, from each answer's log-probability under the
// policy and the reference: the loss, its derivative by each answer's log-probability, and the
// numbers TRL logs. Computed here in float64 rather than in the graph: the gradient step then
// takes a loss that is linear in the tokens' log-probabilities (loss.ts), with these derivatives
// as weights, whose gradient is exactly this loss's at the current weights; so micro-batches and
// recomputed blocks (../text/token-step.ts) split it exactly, however they cut the pairs.
//
// With h = (log pi(y_w) - log pi(y_l)) - (log pi_ref(y_w) - log pi_ref(y_l)) and e label_smoothing
// (TRL's dpo_loss, loss_type as named):
//   sigmoid  -(1 - e) log s(beta h) - e log s(-beta h)
//   robust   (-(1 - e) log s(beta h) + e log s(-beta h)) / (1 - 2e)
//   hinge    max(0, 1 - beta h)
//   ipo      (h - 1 / (2 beta))^2, log-probabilities averaged over each answer's tokens
//   simpo    sigmoid's with h - gamma / beta for h, averaged log-probabilities and no reference
// averaged over the batch's pairs, plus rpo_alpha times the chosen answers' negative
// log-likelihood per token (TRL's rpo_alpha: their summed log-probabilities over their tokens,
// -sum_i log pi(y_w,i) / sum_i |y_w,i|; this term never averages per answer). Rewards: beta (log pi - log pi_ref), per answer (the same
// averaged log-probabilities where the loss reads them).
import type { PreferenceLoss } from './settings.js';

export interface PreferenceLossSettings {
  readonly loss: PreferenceLoss;
  readonly beta: number;
  readonly label_smoothing: number;
  readonly simpo_gamma: number;
  /** Weight of the chosen answers' negative log-likelihood (RPO); 0: none. */
  readonly rpo_alpha?: number;
}

/** One batch's answers: summed log-probabilities and token counts, for chosen and rejected answers of pair i. */
export interface PairLogProbs {
  readonly chosen: Float64Array;
  readonly rejected: Float64Array;
  readonly chosenTokens: Float64Array;
  readonly rejectedTokens: Float64Array;
  /** The reference's summed log-probabilities; null: no reference (0). */
  readonly refChosen: Float64Array | null;
  readonly refRejected: Float64Array | null;
}

export interface PreferenceLossResult {
  /** The batch's mean loss. */
  readonly loss: number;
  /** d loss / d (summed log pi of pair i's chosen answer), and of its rejected one. */
  readonly dChosen: Float64Array;
  readonly dRejected: Float64Array;
  /** TRL's logged numbers under rlx's train/ namespace, as TRL's own appear in a tracker (train/rewards/chosen, ...). */
  readonly metrics: Record<string, number>;
}

/** Whether the loss reads log-probabilities averaged over each answer's tokens (TRL: ipo; SimPO). */
export function averagesTokens(loss: PreferenceLoss): boolean {
  return loss === 'ipo' || loss === 'simpo';
}

/** log(sigmoid(x)), without overflow for large |x|. */
export function logSigmoid(x: number): number {
  return x >= 0 ? -Math.log1p(Math.exp(-x)) : x - Math.log1p(Math.exp(x));
}

function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

/** One pair's loss and its derivative by h. */
function pairLoss(s: PreferenceLossSettings, h: number): { loss: number; dh: number } {
  const { beta, label_smoothing: e } = s;
  switch (s.loss) {
    case 'sigmoid':
    case 'simpo': {
      const z = beta * (s.loss === 'simpo' ? h - s.simpo_gamma / beta : h);
      // d/dz -log s(z) = -s(-z); d/dz -log s(-z) = s(z).
      return { loss: -(1 - e) * logSigmoid(z) - e * logSigmoid(-z), dh: beta * (-(1 - e) * sigmoid(-z) + e * sigmoid(z)) };
    }
    case 'robust': {
      const z = beta * h;
      return { loss: (-(1 - e) * logSigmoid(z) + e * logSigmoid(-z)) / (1 - 2 * e), dh: (beta * (-(1 - e) * sigmoid(-z) - e * sigmoid(z))) / (1 - 2 * e) };
    }
    case 'hinge': {
      const margin = 1 - beta * h;
      return margin > 0 ? { loss: margin, dh: -beta } : { loss: 0, dh: 0 };
    }
    case 'ipo': {
      const d = h - 1 / (2 * beta);
      return { loss: d * d, dh: 2 * d };
    }
  }
}

export function preferenceLoss(s: PreferenceLossSettings, p: PairLogProbs): PreferenceLossResult {
  const B = p.chosen.length;
  const mean = averagesTokens(s.loss);
  const dChosen = new Float64Array(B);
  const dRejected = new Float64Array(B);
  let loss = 0;
  const sums = { chosen: 0, rejected: 0, accuracy: 0, logpChosen: 0, logpRejected: 0, nll: Number.NaN };
  for (let i = 0; i < B; i++) {
    const nc = mean ? Math.max(1, p.chosenTokens[i]!) : 1;
    const nr = mean ? Math.max(1, p.rejectedTokens[i]!) : 1;
    const chosen = p.chosen[i]! / nc;
    const rejected = p.rejected[i]! / nr;
    const refChosen = p.refChosen ? p.refChosen[i]! / nc : 0;
    const refRejected = p.refRejected ? p.refRejected[i]! / nr : 0;
    const h = chosen - rejected - (refChosen - refRejected);
    const one = pairLoss(s, h);
    loss += one.loss / B;
    dChosen[i] = one.dh / (B * nc);
    dRejected[i] = -one.dh / (B * nr);
    const rewardChosen = s.beta * (chosen - refChosen);
    const rewardRejected = s.beta * (rejected - refRejected);
    sums.chosen += rewardChosen;
    sums.rejected += rewardRejected;
    sums.accuracy += rewardChosen > rewardRejected ? 1 : 0;
    sums.logpChosen += chosen;
    sums.logpRejected += rejected;
  }
  const alpha = s.rpo_alpha ?? 0;
  if (alpha > 0) {
    const chosenTokens = p.chosenTokens.reduce((sum, n) => sum + n, 0);
    const nll = -p.chosen.reduce((sum, l) => sum + l, 0) / chosenTokens;
    loss += alpha * nll;
    for (let i = 0; i < B; i++) dChosen[i]! -= alpha / chosenTokens;
    sums.nll = nll;
  }
  return {
    loss,
    dChosen,
    dRejected,
    metrics: {
      'train/rewards/chosen': sums.chosen / B,
      'train/rewards/rejected': sums.rejected / B,
      'train/rewards/accuracies': sums.accuracy / B,
      'train/rewards/margins': (sums.chosen - sums.rejected) / B,
      'train/logps/chosen': sums.logpChosen / B,
      'train/logps/rejected': sums.logpRejected / B,
      // TRL logs nll_loss with rpo_alpha only.
      ...(alpha > 0 ? { 'losses/nll_loss': sums.nll } : {}),
    },
  };
}
