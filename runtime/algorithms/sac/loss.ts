// SAC's two losses (Haarnoja et al. 2018), as CleanRL computes them, each one GradientStep:
//
// - the critics': qf1_loss + qf2_loss, each mean((Q_i(s, a) - y)^2) with the soft target
//     continuous: y = r + gamma (1 - done) (min_i Q_targ_i(s', a') - alpha log pi(a'|s')), a' ~ pi(s')
//     discrete:   y = r + gamma (1 - done) sum_a' pi(a'|s') (min_i Q_targ_i(s', a') - alpha log pi(a'|s'))
//   computed in the same graph from the target weights and the actor, both frozen and behind a
//   stop-gradient: one run gives both critics' gradients and the target (CleanRL's no_grad block);
// - the actor's: mean(alpha log pi(a|s) - min_i Q_i(s, a)), a ~ pi(s) reparameterised
//   (continuous), or sum_a pi(a|s) (alpha log pi(a|s) - min_i Q_i(s, a)) averaged over rows and
//   actions (discrete, CleanRL's .mean()); the critics are frozen there, so the actor's loss
//   moves only the actor.
//
// Noise is fed (`eps` ~ N(0, 1), [B, A]), drawn by the learner from its own stream, so a seed
// gives the same run. Means are sums times `inv_n` (1 / rows, fed).
import { maskLogits } from '../../policies/distributions.js';
import type { SacActor, SacCritics } from './networks.js';
import { Graph, type Tensor } from '../../tensor/index.js';
import type { OffPolicyLoss } from '../replay/off-policy-step.js';

export const CRITIC_METRICS = ['qf1_loss', 'qf2_loss', 'qf1_values', 'qf2_values'] as const;
/** `entropy`: -mean log pi of the sampled actions (continuous), the mean entropy of pi (discrete); the temperature's loss reads it. */
export const ACTOR_METRICS = ['actor_loss', 'entropy'] as const;

/** A loss of SAC's, in the shape the shared gradient step takes. */
export type SacLoss = OffPolicyLoss;

/**
 * With `masked` (discrete actions under the env's masks) the graphs take `action_mask` and
 * `next_action_mask` [B, n] (1 legal, 0 not): pi is the masked softmax (illegal logits
 * MASKED_LOGIT, probability 0), so the target's expectation and the actor's loss run over
 * legal actions only; a next observation with none legal (a finished game's) adds no value.
 */
export interface SacLossOptions {
  readonly masked?: boolean;
}

/** The critics' loss and its metrics. Inputs: obs, action ([B, A] env units, or one-hot [B, n]), reward, next_obs, done, eps (continuous), alpha, gamma, inv_n. */
export function buildCriticLoss(actor: SacActor, critics: SacCritics, options: SacLossOptions = {}): SacLoss {
  const g = new Graph();
  const { obsDim } = actor.spaces;
  const a = actor.actionDim;
  const obs = g.input('obs', 'float32', ['B', obsDim]);
  const action = g.input('action', 'float32', ['B', a]);
  const reward = g.input('reward', 'float32', ['B']);
  const nextObs = g.input('next_obs', 'float32', ['B', obsDim]);
  const done = g.input('done', 'float32', ['B']);
  const alpha = g.input('alpha', 'float32', []);
  const gamma = g.input('gamma', 'float32', []);
  const invN = g.input('inv_n', 'float32', []);

  const next = actor.build(g, nextObs);
  let nextValue: Tensor;
  if (next.kind === 'continuous') {
    const eps = g.input('eps', 'float32', ['B', a]);
    const { action: nextAction, logProb } = actor.squashedSample(g, next, eps);
    const minQ = g.min(critics.q(g, 'q1', nextObs, nextAction, true), critics.q(g, 'q2', nextObs, nextAction, true));
    nextValue = g.sub(minQ, g.mul(alpha, logProb));
  } else {
    // The expectation over the next action is exact for a softmax: no sample (sac_atari.py).
    const nextMask = options.masked ? g.input('next_action_mask', 'float32', ['B', a]) : null;
    const logp = g.logSoftmax(nextMask !== null ? maskLogits(g, next.logits, nextMask) : next.logits);
    const minQ = g.min(critics.q(g, 'q1', nextObs, null, true), critics.q(g, 'q2', nextObs, null, true));
    nextValue = g.reduceSum(g.mul(g.exp(logp), g.sub(minQ, g.mul(alpha, logp))), { axes: [-1] });
    if (nextMask !== null) nextValue = g.mul(nextValue, g.cast(g.greater(g.reduceSum(nextMask, { axes: [-1] }), 0.5), 'float32'));
  }
  // The easy step to get wrong: no bootstrap past a terminal state, but past a time limit yes (done is 0 there).
  const y = g.stopGradient(g.add(reward, g.mul(g.mul(gamma, g.sub(1, done)), nextValue)));

  const qOf = (which: 'q1' | 'q2') => (critics.discrete ? g.reduceSum(g.mul(critics.q(g, which, obs, null), action), { axes: [-1] }) : critics.q(g, which, obs, action));
  const mean = (t: Tensor) => g.mul(g.reduceSum(t), invN);
  const q1 = qOf('q1');
  const q2 = qOf('q2');
  const qf1Loss = mean(g.square(g.sub(q1, y)));
  const qf2Loss = mean(g.square(g.sub(q2, y)));
  const metrics = { qf1_loss: qf1Loss, qf2_loss: qf2Loss, qf1_values: mean(q1), qf2_values: mean(q2) };
  return {
    graph: g,
    loss: g.add(qf1Loss, qf2Loss),
    metrics,
    parts: [
      { loss: qf1Loss, prefix: 'q1.', metrics: { qf1_loss: metrics.qf1_loss, qf1_values: metrics.qf1_values } },
      { loss: qf2Loss, prefix: 'q2.', metrics: { qf2_loss: metrics.qf2_loss, qf2_values: metrics.qf2_values } },
    ],
  };
}

/** The actor's loss and its metrics. Inputs: obs, eps (continuous), alpha, inv_n. */
export function buildActorLoss(actor: SacActor, critics: SacCritics, options: SacLossOptions = {}): SacLoss {
  const g = new Graph();
  const obs = g.input('obs', 'float32', ['B', actor.spaces.obsDim]);
  const alpha = g.input('alpha', 'float32', []);
  const invN = g.input('inv_n', 'float32', []);
  const out = actor.build(g, obs);
  const mean = (t: Tensor) => g.mul(g.reduceSum(t), invN);
  if (out.kind === 'continuous') {
    const eps = g.input('eps', 'float32', ['B', actor.actionDim]);
    const { action, logProb } = actor.squashedSample(g, out, eps);
    // The gradient reaches the actor through the action the critics value (reparameterisation).
    const minQ = g.min(critics.q(g, 'q1', obs, action), critics.q(g, 'q2', obs, action));
    const loss = mean(g.sub(g.mul(alpha, logProb), minQ));
    return { graph: g, loss, metrics: { actor_loss: loss, entropy: g.neg(mean(logProb)) } };
  }
  const logits = options.masked ? maskLogits(g, out.logits, g.input('action_mask', 'float32', ['B', actor.actionDim])) : out.logits;
  const logp = g.logSoftmax(logits);
  const p = g.exp(logp);
  const minQ = g.stopGradient(g.min(critics.q(g, 'q1', obs, null), critics.q(g, 'q2', obs, null)));
  const perAction = 1 / actor.actionDim;
  const loss = g.mul(mean(g.reduceSum(g.mul(p, g.sub(g.mul(alpha, logp), minQ)), { axes: [-1] })), perAction);
  return { graph: g, loss, metrics: { actor_loss: loss, entropy: g.neg(mean(g.reduceSum(g.mul(p, logp), { axes: [-1] }))) } };
}

/** A loss as one gradient step over one network's weights (shared with numeric learner modules). */
export { offPolicyGradientStep as sacGradientStep } from '../replay/off-policy-step.js';
