// TD3+BC's two losses (Fujimoto and Gu 2021), as CORL's td3_bc.py computes them, each one
// GradientStep over observations already normalised:
//
// - the critics': mse(Q1(s, a), y) + mse(Q2(s, a), y) with
//     y = r + gamma (1 - done) min_i Q_targ_i(s', clip(pi_targ(s') + noise, low, high)),
//   the noise N(0, policy_noise) clipped to +-noise_clip (both in half-ranges of the action,
//   CORL's times max_action) drawn by the learner and fed; y behind a stop-gradient;
// - the actor's: -lambda mean(Q1(s, pi(s))) + mean((pi(s) - a)^2), lambda = alpha / mean|Q1(s, pi(s))|
//   with the mean behind a stop-gradient (CORL's .detach()); the critics frozen.
import { Graph, type Tensor } from '../../tensor/index.js';
import type { OfflineActor } from '../offline/actor.js';
import type { OffPolicyLoss } from '../replay/off-policy-step.js';
import type { TwinCritics } from '../replay/twin-critics.js';

/** The critics' loss. Inputs: obs, action, reward, next_obs, done, noise ([B, A], env units, clipped), gamma. */
export function buildTd3bcCriticLoss(actor: OfflineActor, critics: TwinCritics): OffPolicyLoss {
  const g = new Graph();
  const { obsDim } = actor.spaces;
  const a = actor.actionDim;
  const obs = g.input('obs', 'float32', ['B', obsDim]);
  const action = g.input('action', 'float32', ['B', a]);
  const reward = g.input('reward', 'float32', ['B']);
  const nextObs = g.input('next_obs', 'float32', ['B', obsDim]);
  const done = g.input('done', 'float32', ['B']);
  const noise = g.input('noise', 'float32', ['B', a]);
  const gamma = g.input('gamma', 'float32', []);
  const nextAction = g.clip(g.add(actor.action(g, nextObs, true), noise), g.const(actor.low), g.const(actor.high));
  const minQ = g.min(critics.q(g, 'q1', nextObs, nextAction, true), critics.q(g, 'q2', nextObs, nextAction, true));
  const y = g.stopGradient(g.add(reward, g.mul(g.mul(gamma, g.sub(1, done)), minQ)));
  const q1 = critics.q(g, 'q1', obs, action);
  const q2 = critics.q(g, 'q2', obs, action);
  const qf1Loss = g.reduceMean(g.square(g.sub(q1, y)));
  const qf2Loss = g.reduceMean(g.square(g.sub(q2, y)));
  const metrics = { qf1_loss: qf1Loss, qf2_loss: qf2Loss, qf1_values: g.reduceMean(q1), qf2_values: g.reduceMean(q2) };
  return {
    graph: g,
    loss: g.add(qf1Loss, qf2Loss),
    metrics,
    parts: [
      { loss: qf1Loss, prefix: 'q1.', metrics: { qf1_loss: qf1Loss, qf1_values: metrics.qf1_values } },
      { loss: qf2Loss, prefix: 'q2.', metrics: { qf2_loss: qf2Loss, qf2_values: metrics.qf2_values } },
    ],
  };
}

/** The actor's loss. Inputs: obs, action, alpha. */
export function buildTd3bcActorLoss(actor: OfflineActor, critics: TwinCritics): OffPolicyLoss {
  const g = new Graph();
  const obs = g.input('obs', 'float32', ['B', actor.spaces.obsDim]);
  const action = g.input('action', 'float32', ['B', actor.actionDim]);
  const alpha = g.input('alpha', 'float32', []);
  const pi = actor.action(g, obs);
  const q: Tensor = critics.q(g, 'q1', obs, pi);
  const lambda = g.div(alpha, g.stopGradient(g.reduceMean(g.abs(q))));
  const bc = g.reduceMean(g.square(g.sub(pi, action)));
  const loss = g.add(g.neg(g.mul(lambda, g.reduceMean(q))), bc);
  return { graph: g, loss, metrics: { actor_loss: loss, bc_loss: bc, lambda } };
}
