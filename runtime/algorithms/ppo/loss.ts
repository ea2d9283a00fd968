// PPO's loss (Schulman et al. 2017, eq. 9, as CleanRL computes it), twice:
//
// - ppoLossAsWritten: the objective as the paper writes it, the clipped surrogate
//     L_clip = mean(min(r A, clip(r, 1 - c, 1 + c) A)),
//   with CleanRL's clipped value loss 0.5 mean(max((V - R)^2, (V_clip - R)^2)), and
//     loss = -L_clip - ent_coef * entropy + value_coef * value_loss.
//   It is the reference: the test suite checks that the two have the same loss and gradients.
// - buildPpoLoss: the same numbers in the form the trainer runs. Clipping is written with
//   masks instead of min/clip of tensors: the gradient of min(r A, clip(r) A) is that of r A
//   where the unclipped side is the smaller (A >= 0 and r <= 1 + c, or A < 0 and r >= 1 - c)
//   and 0 elsewhere, and likewise for the value; the masks are gradient-free comparisons, so
//   the backward graph is about half the ops. The surrogate's gradient with respect to
//   log pi, and the categorical distribution's with respect to the logits, are closed forms
//   (Graph.withGradient): the actor's gradient model is ~70 nodes instead of ~85, at ~1 us
//   each per step. Means are sums times `inv_n` (1 / rows, fed), so no run-time size ops.
//
// Both are cut into a policy term (actor weights only) and a value term (critic only), so
// that separate actor and critic networks get their gradients from two models that run at
// once (tensor/gradient-step.ts).
import { maskLogits } from '../../policies/distributions.js';
import type { ActorCriticGraph, ActorCriticPolicy, RecurrentActorCritic } from '../../policies/index.js';
import { isZeroThroughout } from '../../schedule.js';
import { Graph, GradientStep, type Compute, type StepPart, type Tensor } from '../../tensor/index.js';
import type { PpoSettings } from './settings.js';

/** The loss metrics, in the order the update reports them. */
export const LOSS_METRICS = ['policy_loss', 'value_loss', 'entropy', 'old_approx_kl', 'approx_kl', 'clipfrac'] as const;
export type LossMetric = (typeof LOSS_METRICS)[number];
/** The metrics of each term: computed with the term's part of the policy (actor or critic). */
const POLICY_METRICS: readonly LossMetric[] = ['policy_loss', 'entropy', 'old_approx_kl', 'approx_kl', 'clipfrac'];
const VALUE_METRICS: readonly LossMetric[] = ['value_loss'];

type LossSettings = Pick<PpoSettings, 'clip_value' | 'value_coef' | 'entropy_coef'>;

/** With `masked`, the graph takes `action_mask` [B, A] (1 legal, 0 not) and its log-probabilities and entropy are the masked categorical's. */
export interface LossOptions {
  readonly masked?: boolean;
  /**
   * The policy's pass over the minibatch, declaring its own inputs (a recurrent policy's
   * sequences: recurrent.ts); by default `obs` [B, obsDim] through ActorCriticPolicy.build.
   */
  readonly forward?: (g: Graph) => ActorCriticGraph;
}

/** The policy a loss is built for: an actor-critic over rows, or a recurrent one with a `forward` over sequences. */
export type LossPolicy = ActorCriticPolicy | RecurrentActorCritic;

/** A built PPO loss: the graph, its two terms, their sum, and the metrics. */
export interface PpoLoss {
  readonly graph: Graph;
  readonly policyTerm: Tensor;
  readonly valueTerm: Tensor;
  readonly loss: Tensor;
  readonly metrics: Readonly<Record<LossMetric, Tensor>>;
}

/** The minibatch inputs both forms are fed, and the policy's forward pass on it. */
function minibatchInputs(g: Graph, policy: LossPolicy, options: LossOptions) {
  const dist = policy.distribution;
  const forward = options.forward ?? ((graph: Graph) => (policy as ActorCriticPolicy).build(graph, graph.input('obs', 'float32', ['B', policy.spaces.obsDim])));
  const input = {
    action: g.input('action', 'float32', ['B', dist.encodedWidth]),
    oldLogProb: g.input('old_logprob', 'float32', ['B']),
    advantages: g.input('advantages', 'float32', ['B']),
    returns: g.input('returns', 'float32', ['B']),
    oldValues: g.input('old_values', 'float32', ['B']),
    clipCoef: g.input('clip_coef', 'float32', []),
    entCoef: g.input('ent_coef', 'float32', []),
    invN: g.input('inv_n', 'float32', []),
  };
  const built = forward(g);
  const { value } = built;
  // The rollout sampled from the masked distribution: the update's ratio and entropy are of the same one.
  const actor = options.masked ? { ...built.actor, head: maskLogits(g, built.actor.head, g.input('action_mask', 'float32', ['B', dist.headWidth])) } : built.actor;
  const logProb = dist.logProb(g, actor, input.action);
  const logRatio = g.sub(logProb, input.oldLogProb);
  return { ...input, actor, value, logProb, logRatio, ratio: g.exp(logRatio) };
}

/** PPO's loss as the paper writes it; the reference for buildPpoLoss. */
export function ppoLossAsWritten(policy: LossPolicy, settings: LossSettings, options: LossOptions = {}): PpoLoss {
  const g = new Graph();
  const x = minibatchInputs(g, policy, options);
  const mean = (t: Tensor) => g.mul(g.reduceSum(t), x.invN);
  const c = x.clipCoef;
  const surrogate = g.min(g.mul(x.ratio, x.advantages), g.mul(g.clip(x.ratio, g.sub(1, c), g.add(1, c)), x.advantages));
  const policyLoss = g.neg(mean(surrogate));
  const unclipped = g.square(g.sub(x.value, x.returns));
  const valueClipped = g.add(x.oldValues, g.clip(g.sub(x.value, x.oldValues), g.neg(c), c));
  const valueRows = settings.clip_value ? g.max(unclipped, g.square(g.sub(valueClipped, x.returns))) : unclipped;
  const valueLoss = g.mul(mean(valueRows), 0.5);
  const entropy = policy.distribution.meanEntropy(g, x.actor, x.invN);
  return finish(g, x, settings, policyLoss, valueLoss, entropy);
}

/** PPO's loss with masks and closed-form gradients: the numbers of ppoLossAsWritten, faster. */
export function buildPpoLoss(policy: LossPolicy, settings: LossSettings, options: LossOptions = {}): PpoLoss {
  const g = new Graph();
  const x = minibatchInputs(g, policy, options);
  const { ratio, clipCoef, invN } = x;
  const mean = (t: Tensor) => g.mul(g.reduceSum(t), invN);
  const lo = g.sub(1, clipCoef);
  const hi = g.add(1, clipCoef);
  const positive = g.greaterOrEqual(x.advantages, 0);
  // The ratio is unclipped on the side of its bound that does not cut the gradient: r <= hi
  // for A >= 0, r >= lo for A < 0, i.e. (r - bound) * sign(A) <= 0 (exact in floats). Not
  // written with Or: onnxruntime's WebGPU provider has no Or kernel (it would run on the CPU,
  // with a copy each way per step); and these are two nodes fewer than Or/And/And/Not.
  const bound = g.where(positive, hi, lo);
  const unclipped = g.lessOrEqual(g.mul(g.sub(ratio, bound), g.where(positive, g.scalar(1, 'float32'), -1)), 0);
  const negAdvantages = g.neg(x.advantages);
  const pgRow = g.mul(negAdvantages, g.where(unclipped, ratio, bound));
  // d pg / d log pi = -A r / n on the unclipped side, 0 elsewhere: 4 nodes, not the 7 derived.
  const policyLoss = g.withGradient(mean(pgRow), [x.logProb], (dy) => [g.where(unclipped, g.mul(g.mul(negAdvantages, ratio), g.mul(dy, invN)), 0)]);

  const vLossUnclipped = g.square(g.sub(x.value, x.returns));
  let vRow = vLossUnclipped;
  if (settings.clip_value) {
    // The value may move at most clip_coef from the value it had when the rollout was taken.
    const change = g.stopGradient(g.sub(x.value, x.oldValues));
    const vLossClipped = g.square(g.sub(g.add(x.oldValues, g.clip(change, g.neg(clipCoef), clipCoef)), x.returns));
    // |change| <= c or unclipped >= clipped, written without Or (no WebGPU kernel, see above).
    const useUnclipped = g.not(g.and(g.greater(g.abs(change), clipCoef), g.less(g.stopGradient(vLossUnclipped), vLossClipped)));
    vRow = g.where(useUnclipped, vLossUnclipped, vLossClipped);
  }
  const valueLoss = g.mul(mean(vRow), 0.5);
  const entropy = policy.distribution.meanEntropy(g, x.actor, invN);
  return finish(g, x, settings, policyLoss, valueLoss, entropy);
}

/** The terms, their sum and the metrics, the same for both forms. */
function finish(g: Graph, x: ReturnType<typeof minibatchInputs>, settings: LossSettings, policyLoss: Tensor, valueLoss: Tensor, entropy: Tensor): PpoLoss {
  const mean = (t: Tensor) => g.mul(g.reduceSum(t), x.invN);
  // A bonus whose weight is 0 throughout adds exactly nothing: its gradient is left out.
  const policyTerm = isZeroThroughout(settings.entropy_coef) ? policyLoss : g.sub(policyLoss, g.mul(x.entCoef, entropy));
  const valueTerm = g.mul(valueLoss, settings.value_coef);
  const metrics: Record<LossMetric, Tensor> = {
    policy_loss: policyLoss,
    value_loss: valueLoss,
    entropy,
    old_approx_kl: mean(g.neg(x.logRatio)),
    approx_kl: mean(g.sub(g.sub(x.ratio, 1), x.logRatio)),
    clipfrac: mean(g.cast(g.greater(g.abs(g.sub(x.ratio, 1)), x.clipCoef), 'float32')),
  };
  return { graph: g, policyTerm, valueTerm, loss: g.add(policyTerm, valueTerm), metrics };
}

/**
 * The loss as a gradient step (tensor/gradient-step.ts): the policy term and the value term
 * as two parts when the actor and critic are separate networks (they then run at once on
 * two threads), the whole loss as one part otherwise (a shared trunk).
 */
export function ppoGradientStep(
  loss: PpoLoss,
  policy: LossPolicy,
  options: { readonly compute: Compute; readonly maxRows: number; readonly dimLimits?: Readonly<Record<string, number>> },
): Promise<GradientStep> {
  const pick = (names: readonly LossMetric[]) => Object.fromEntries(names.map((m) => [m, loss.metrics[m]]));
  const networks = policy.separateNetworks();
  const parts: StepPart[] = networks
    ? [
        { loss: loss.policyTerm, weights: networks.actor, metrics: pick(POLICY_METRICS) },
        { loss: loss.valueTerm, weights: networks.critic, metrics: pick(VALUE_METRICS) },
      ]
    : [{ loss: loss.loss, weights: policy.weights.names, metrics: pick(LOSS_METRICS) }];
  return GradientStep.create(loss.graph, parts, { weights: policy.weights, compute: options.compute, dimLimits: { B: options.maxRows, ...options.dimLimits } });
}
