// The text policy-gradient objective (policy-gradient.ts): GRPO's loss (Shao et al. 2024, eq. 3),
// of which REINFORCE/RLOO on text is the special case with one pass, no clip and no KL. Per token
// t of completion i with advantage A_i:
//
//   ratio_it = pi(o_it) / pi_old(o_it)
//   J_it     = min(ratio_it A_i, clip(ratio_it, ratio_low, ratio_high) A_i) - kl_coef * KL_it
//   ratio_low = 1 - clip, ratio_high = 1 + clip_high   (the bounds themselves are fed)
//   KL_it    = pi_ref / pi - log(pi_ref / pi) - 1          (the k3 estimator, always >= 0)
//
//   loss = -sum_it w_it J_it - ent_coef * sum_it w_it H_it
//          w_it = mask_it / (G |o_i|)       (loss: sequence, the paper)
//          w_it = mask_it / sum_i |o_i|      (loss: token, DAPO)
//          w_it = mask_it / G                (REINFORCE: sequence log-probabilities, averaged)
//
// H_it is the entropy of the policy at token t (REINFORCE's optional bonus; GRPO feeds 0).
//
// The weights are computed in JS and fed (`token_weight`), so one graph serves both averages.
// With one gradient step per batch (`iterations: 1`, GRPO's default and REINFORCE's) pi_old is
// the policy being differentiated, so the graph takes it from its own log-probabilities with the
// gradient stopped (TRL does the same): the ratio is exactly 1 and a forward pass over the batch
// is saved. Without a reference (kl_coef 0) pi_ref is taken the same way, and the KL is 0.
// log-probabilities are of the logits divided by the sampling temperature (as TRL computes them),
// so the ratio compares the distribution the completions were drawn from.
import type { LanguageModel } from '../../policies/index.js';
import { Graph, type Dim, type Tensor } from '../../tensor/index.js';
import { tokenBatchInputs, tokenLogProbs } from './tokens.js';

export const LOSS_METRICS = ['policy_loss', 'kl', 'clip_fraction', 'entropy'] as const;

export interface GrpoLoss {
  readonly graph: Graph;
  readonly loss: Tensor;
  readonly metrics: Readonly<Record<(typeof LOSS_METRICS)[number], Tensor>>;
}

export interface GrpoLossOptions {
  /** pi_old fed as `old_logp` (several gradient steps per batch), else the policy itself. Default true. */
  readonly oldFed?: boolean;
  /** pi_ref fed as `ref_logp` (a KL reference), else the policy itself. Default true. */
  readonly referenceFed?: boolean;
}

/**
 * Inputs besides the token batch: `advantages` [B], `old_logp` and `ref_logp` [B, T] (each
 * unless its option says otherwise), `token_weight` [B, T], and scalars: `inv_tokens`, the
 * ratio's bounds `ratio_low` (1 - clip) and `ratio_high` (1 + clip_high), `kl_coef`,
 * `inv_temperature`, `ent_coef`.
 */
export function buildGrpoLoss(model: LanguageModel, T: Dim, options: GrpoLossOptions = {}): GrpoLoss {
  const g = new Graph();
  const batch = tokenBatchInputs(g, T);
  const advantages = g.unsqueeze(g.input('advantages', 'float32', ['B']), [1]); // [B, 1]
  const fedOldLogp = options.oldFed !== false ? g.input('old_logp', 'float32', ['B', T]) : null;
  const fedRefLogp = options.referenceFed !== false ? g.input('ref_logp', 'float32', ['B', T]) : null;
  const weight = g.input('token_weight', 'float32', ['B', T]);
  const invTokens = g.input('inv_tokens', 'float32', []);
  const ratioLow = g.input('ratio_low', 'float32', []); // 1 - clip
  const ratioHigh = g.input('ratio_high', 'float32', []); // 1 + clip_high
  const klCoef = g.input('kl_coef', 'float32', []);
  const invTemperature = g.input('inv_temperature', 'float32', []);
  const entCoef = g.input('ent_coef', 'float32', []);

  const { logProb, logSoftmax } = tokenLogProbs(g, model, batch, invTemperature);
  const oldLogp = fedOldLogp ?? g.stopGradient(logProb);
  const refLogp = fedRefLogp ?? g.stopGradient(logProb);
  const ratio = g.exp(g.sub(logProb, oldLogp));
  const surrogate = g.min(g.mul(ratio, advantages), g.mul(g.clip(ratio, ratioLow, ratioHigh), advantages));
  const logRefRatio = g.sub(refLogp, logProb);
  const kl = g.sub(g.sub(g.exp(logRefRatio), logRefRatio), 1); // k3
  const policyLoss = g.neg(g.reduceSum(g.mul(weight, surrogate)));
  const tokenEntropy = entropy(g, logSoftmax);
  const loss = g.sub(g.add(policyLoss, g.mul(klCoef, g.reduceSum(g.mul(weight, kl)))), g.mul(entCoef, g.reduceSum(g.mul(weight, tokenEntropy))));
  const meanOverTokens = (x: Tensor) => g.mul(g.reduceSum(g.mul(x, batch.mask)), invTokens);
  return { graph: g, loss, metrics: { policy_loss: policyLoss, kl: meanOverTokens(kl), clip_fraction: meanOverTokens(clipped(g, ratio, advantages, ratioLow, ratioHigh)), entropy: meanOverTokens(tokenEntropy) } };
}

/** 1 where the clip took the gradient away: ratio below the range with A < 0, or above it with A > 0. */
function clipped(g: Graph, ratio: Tensor, advantages: Tensor, ratioLow: Tensor, ratioHigh: Tensor): Tensor {
  const below = g.and(g.less(ratio, ratioLow), g.less(advantages, 0));
  const above = g.and(g.greater(ratio, ratioHigh), g.greater(advantages, 0));
  // The two never hold together (ratioLow < ratioHigh): their sum is their Or, without an Or node, which
  // onnxruntime's WebGPU provider runs on the CPU.
  return g.add(g.cast(below, 'float32'), g.cast(above, 'float32'));
}

/** -sum_v p log p at every position. */
function entropy(g: Graph, logSoftmax: Tensor): Tensor {
  return g.neg(g.reduceSum(g.mul(g.exp(logSoftmax), logSoftmax), { axes: [-1] }));
}
