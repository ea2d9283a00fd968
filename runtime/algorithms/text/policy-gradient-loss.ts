// The text policy-gradient objective (policy-gradient.ts): GRPO's loss (Shao et al. 2024, eq. 3),
// of which REINFORCE/RLOO on text is the special case with one pass, no clip and no KL. Per token
// t of completion i with advantage A_it:
//
//   ratio_it = pi(o_it) / pi_old(o_it)
//   J_it     = min(ratio_it A_it, clip(ratio_it, ratio_low, ratio_high) A_it) - kl_coef * KL_it
//   ratio_low = 1 - clip, ratio_high = 1 + clip_high   (the bounds themselves are fed)
//   KL_it    = pi_ref / pi - log(pi_ref / pi) - 1          (k3 by default; k1 or k2: kl.ts)
//
//   loss = -sum_it w_it J_it - ent_coef * sum_it w_it H_it
//
// A_it is fed per token [B, T] (turn-credit.ts): the sample's one advantage on each of its tokens
// (the products are the same floats as with a [B] input broadcast), or each dialogue turn's own.
// with w_it the token weights (token-weights.ts: sequence, token or constant averages, or
// REINFORCE's sums), computed in JS and fed (`token_weight`), so one graph serves them all.
// H_it is the entropy of the policy at token t (REINFORCE's optional bonus; GRPO feeds 0).
// The terms are loss-terms.ts's.
// With one gradient step per batch (`iterations: 1`, GRPO's default and REINFORCE's) pi_old is
// the policy being differentiated, so the graph takes it from its own log-probabilities with the
// gradient stopped (TRL does the same): the ratio is exactly 1 and a forward pass over the batch
// is saved. Without a reference (kl_coef 0) pi_ref is taken the same way, and the KL is 0.
// log-probabilities are of the logits divided by the sampling temperature (as TRL computes them),
// so the ratio compares the distribution the completions were drawn from.
import type { LanguageModel } from '../../policies/index.js';
import { Graph, type Dim, type Tensor } from '../../tensor/index.js';
import { klTerm, type KlEstimator } from './kl.js';
import { clipped, clippedSurrogate, demoCrossEntropy, entropy } from './loss-terms.js';
import { tokenBatchInputs, tokenLogProbs } from './tokens.js';

export const LOSS_METRICS = ['policy_loss', 'kl', 'clip_fraction', 'entropy'] as const;

/**
 * The per-token feeds whose non-zero entries are the only tokens this loss reads: every term is
 * weighted by the token weights, the demonstrations' sft_weight or the mask (the metrics), so a
 * segmented step computes the head over those tokens alone (lm/segmented-step.ts).
 */
export const GRPO_LOSS_TOKENS = ['mask', 'token_weight', 'sft_weight'] as const;

export interface GrpoLoss {
  readonly graph: Graph;
  readonly loss: Tensor;
  readonly metrics: Readonly<Record<(typeof LOSS_METRICS)[number], Tensor>> & { readonly sft?: Tensor; readonly sampler_kl?: Tensor };
}

export interface GrpoLossOptions {
  /** pi_old fed as `old_logp` (several gradient steps per batch), else the policy itself. Default true. */
  readonly oldFed?: boolean;
  /** pi_ref fed as `ref_logp` (a KL reference), else the policy itself. Default true. */
  readonly referenceFed?: boolean;
  /** The KL estimator of the penalty term. Default k3. */
  readonly klEstimator?: KlEstimator;
  /**
   * Demonstration rows in the batch with their own cross-entropy term (CHORD's SFT loss),
   * fed `sft_weight` [B, T] and `sft_coef`; `samplingTemperature` says whether the
   * cross-entropy may reuse the log-probabilities of the sampling temperature (it is 1).
   * Absent: no such inputs, the graph of plain GRPO.
   */
  readonly demos?: { readonly samplingTemperatureIsOne: boolean };
  /**
   * The sampler's own log-probabilities of the sampled tokens fed as `sampler_logp` [B, T] (the
   * distribution each token was drawn from, as the sampler computed it), with the metric
   * `sampler_kl`: the mean over the learned tokens of k3 = r - log r - 1, r = pi_old / pi_sampler,
   * an estimate of KL(sampler || trainer) (verl's and TRL's rollout/trainer mismatch). `tisCap`:
   * truncated importance sampling (Yao et al. 2025), each token's surrogate weighted by
   * min(pi_old / pi_sampler, cap), the weight's gradient stopped. Absent: neither.
   */
  readonly sampler?: { readonly tisCap: number | null };
}

/**
 * Inputs besides the token batch: `advantages` [B, T], `old_logp` and `ref_logp` [B, T] (each
 * unless its option says otherwise), `token_weight` [B, T], and scalars: `inv_tokens`, the
 * ratio's bounds `ratio_low` (1 - clip) and `ratio_high` (1 + clip_high), `kl_coef`,
 * `inv_temperature`, `ent_coef`.
 */
export function buildGrpoLoss(model: LanguageModel, T: Dim, options: GrpoLossOptions = {}): GrpoLoss {
  const g = new Graph();
  const batch = tokenBatchInputs(g, T);
  const advantages = g.input('advantages', 'float32', ['B', T]);
  const fedOldLogp = options.oldFed !== false ? g.input('old_logp', 'float32', ['B', T]) : null;
  const fedRefLogp = options.referenceFed !== false ? g.input('ref_logp', 'float32', ['B', T]) : null;
  const weight = g.input('token_weight', 'float32', ['B', T]);
  const invTokens = g.input('inv_tokens', 'float32', []);
  const ratioLow = g.input('ratio_low', 'float32', []); // 1 - clip
  const ratioHigh = g.input('ratio_high', 'float32', []); // 1 + clip_high
  const klCoef = g.input('kl_coef', 'float32', []);
  const invTemperature = g.input('inv_temperature', 'float32', []);
  const entCoef = g.input('ent_coef', 'float32', []);

  const { logProb, logSoftmax, logits } = tokenLogProbs(g, model, batch, invTemperature);
  const oldLogp = fedOldLogp ?? g.stopGradient(logProb);
  const refLogp = fedRefLogp ?? g.stopGradient(logProb);
  const ratio = g.exp(g.sub(logProb, oldLogp));
  const samplerLogp = options.sampler ? g.input('sampler_logp', 'float32', ['B', T]) : null;
  // log(pi_old / pi_sampler) per token, no gradient: pi_old is the trainer's view of the sampling policy.
  const samplerGap = samplerLogp ? g.stopGradient(g.sub(oldLogp, samplerLogp)) : null;
  const plainSurrogate = clippedSurrogate(g, ratio, advantages, ratioLow, ratioHigh);
  const tisCap = options.sampler?.tisCap;
  const surrogate = samplerGap && tisCap != null ? g.mul(plainSurrogate, g.min(g.exp(samplerGap), tisCap)) : plainSurrogate;
  const kl = klTerm(g, g.sub(refLogp, logProb), options.klEstimator ?? 'k3');
  const policyLoss = g.neg(g.reduceSum(g.mul(weight, surrogate)));
  const tokenEntropy = entropy(g, logSoftmax);
  const loss = g.sub(g.add(policyLoss, g.mul(klCoef, g.reduceSum(g.mul(weight, kl)))), g.mul(entCoef, g.reduceSum(g.mul(weight, tokenEntropy))));
  const meanOverTokens = (x: Tensor) => g.mul(g.reduceSum(g.mul(x, batch.mask)), invTokens);
  const metrics = {
    policy_loss: policyLoss,
    kl: meanOverTokens(kl),
    clip_fraction: meanOverTokens(clipped(g, ratio, advantages, ratioLow, ratioHigh)),
    entropy: meanOverTokens(tokenEntropy),
    ...(samplerGap ? { sampler_kl: meanOverTokens(g.sub(g.sub(g.exp(samplerGap), samplerGap), 1)) } : {}),
  };
  if (!options.demos) return { graph: g, loss, metrics };
  // The demonstrations' rows are part of the batch: one forward pass and one gradient step for
  // both terms. Their advantages and token weights are 0, so the policy-gradient terms ignore them;
  // their cross-entropy is the model's own (temperature 1), as SFT's.
  const sftWeight = g.input('sft_weight', 'float32', ['B', T]);
  const sftCoef = g.input('sft_coef', 'float32', []);
  const demoLogProb = options.demos.samplingTemperatureIsOne ? logProb : g.gatherLast(g.logSoftmax(logits), batch.targets);
  const sft = demoCrossEntropy(g, demoLogProb, sftWeight);
  return { graph: g, loss: g.add(loss, g.mul(sftCoef, sft)), metrics: { ...metrics, sft } };
}

