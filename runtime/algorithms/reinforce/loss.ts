// REINFORCE's loss (Williams 1992), the score-function estimator of the policy gradient:
//
//   grad J ~ (1/N) sum_i A_i sum_t grad log pi(a_it | s_it),
//
// over a group of N samples (episodes here; completions for a text policy), A_i the sample's
// return minus its baseline (advantages.ts). As a loss whose gradient is minus that:
//
//   policy_loss = -(1/N) sum_rows A_row log pi(a_row | s_row),    loss = policy_loss - ent_coef * entropy,
//
// where a row is one step (a token for a text policy) and carries its sample's advantage, so
// the sum over a sample's rows is its log-probability sum times its advantage: the same
// term serves any policy that gives a log-probability per row (policyGradientTerm).
// The entropy is the mean over rows.
import type { ActorCriticPolicy } from '../../policies/index.js';
import { isZeroThroughout } from '../../schedule.js';
import { Graph, GradientStep, paramsReachedByGradient, type Compute, type Tensor } from '../../tensor/index.js';
import type { ReinforceSettings } from './settings.js';

/** The loss metrics, in the order the update reports them. */
export const LOSS_METRICS = ['policy_loss', 'entropy'] as const;
export type LossMetric = (typeof LOSS_METRICS)[number];

/** A built REINFORCE loss: the graph, the loss, and the metrics. */
export interface ReinforceLoss {
  readonly graph: Graph;
  readonly loss: Tensor;
  readonly metrics: Readonly<Record<LossMetric, Tensor>>;
}

/**
 * -(1/N) sum_rows A_row log pi_row: the policy-gradient term for any policy that gives a
 * log-probability per row, each row carrying its sample's advantage. `invSamples` is 1 / N
 * (fed): N counts samples (episodes, completions), not rows.
 */
export function policyGradientTerm(g: Graph, logProb: Tensor, advantages: Tensor, invSamples: Tensor): Tensor {
  return g.neg(g.mul(g.reduceSum(g.mul(advantages, logProb)), invSamples));
}

/**
 * The loss on a batch of steps: `obs` [B, obsDim], `action` [B, encoded width],
 * `advantages` [B] (each step its episode's), and the scalars `inv_samples` (1 / episodes),
 * `inv_rows` (1 / B) and `ent_coef`.
 */
export function buildReinforceLoss(policy: ActorCriticPolicy, settings: Pick<ReinforceSettings, 'entropy_coef'>): ReinforceLoss {
  const g = new Graph();
  const dist = policy.distribution;
  const obs = g.input('obs', 'float32', ['B', policy.spaces.obsDim]);
  const action = g.input('action', 'float32', ['B', dist.encodedWidth]);
  const advantages = g.input('advantages', 'float32', ['B']);
  const invSamples = g.input('inv_samples', 'float32', []);
  const invRows = g.input('inv_rows', 'float32', []);
  const entCoef = g.input('ent_coef', 'float32', []);
  const { actor } = policy.build(g, obs);
  const policyLoss = policyGradientTerm(g, dist.logProb(g, actor, action), advantages, invSamples);
  const entropy = dist.meanEntropy(g, actor, invRows);
  // A bonus whose weight is 0 throughout adds exactly nothing: its gradient is left out.
  const loss = isZeroThroughout(settings.entropy_coef) ? policyLoss : g.sub(policyLoss, g.mul(entCoef, entropy));
  return { graph: g, loss, metrics: { policy_loss: policyLoss, entropy } };
}

/**
 * The loss as one gradient step. REINFORCE reads only the actor, but the actor-critic family
 * also holds a critic: the weights the loss does not reach are frozen (no gradient computed,
 * Adam leaves them as they are).
 */
export function reinforceGradientStep(loss: ReinforceLoss, policy: ActorCriticPolicy, options: { readonly compute: Compute }): Promise<GradientStep> {
  const reached = paramsReachedByGradient(loss.loss);
  const frozen = policy.weights.names.filter((name) => !reached.has(name));
  const trained = policy.weights.names.filter((name) => !frozen.includes(name));
  const metrics = Object.fromEntries(LOSS_METRICS.map((m) => [m, loss.metrics[m]]));
  return GradientStep.create(loss.graph, [{ loss: loss.loss, weights: trained, metrics }], { weights: policy.weights, compute: options.compute, frozen });
}
