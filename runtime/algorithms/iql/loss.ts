// IQL's three losses (Kostrikov et al. 2021), as CORL's iql.py computes them with its
// deterministic actor, each one GradientStep over observations already normalised:
//
// - V's: the expectile regression of V(s) on the target critics' min_i Q_targ_i(s, a):
//     u = Q_targ(s, a) - V(s), mean(|tau - 1(u < 0)| u^2), written tau relu(u)^2 + (1 - tau) relu(-u)^2;
// - the critics': (mse(Q1(s, a), y) + mse(Q2(s, a), y)) / 2 with y = r + gamma (1 - done) V(s'),
//   V behind a stop-gradient;
// - the actor's: mean(min(exp(beta A), 100) sum_k (pi(s)_k - a_k)^2), A = Q_targ(s, a) - V(s)
//   behind a stop-gradient (advantage-weighted regression; CORL's EXP_ADV_MAX 100).
import { Graph, type Tensor } from '../../tensor/index.js';
import type { OfflineActor } from '../offline/actor.js';
import type { ValueNetwork } from '../offline/value-network.js';
import type { OffPolicyLoss } from '../replay/off-policy-step.js';
import type { TwinCritics } from '../replay/twin-critics.js';

/** CORL's EXP_ADV_MAX: the largest advantage weight. */
export const MAX_ADVANTAGE_WEIGHT = 100;

function targetQ(g: Graph, critics: TwinCritics, obs: Tensor, action: Tensor): Tensor {
  return g.min(critics.q(g, 'q1', obs, action, true), critics.q(g, 'q2', obs, action, true));
}

/** V's loss. Inputs: obs, action, expectile. */
export function buildValueLoss(actor: OfflineActor, critics: TwinCritics, value: ValueNetwork): OffPolicyLoss {
  const g = new Graph();
  const obs = g.input('obs', 'float32', ['B', actor.spaces.obsDim]);
  const action = g.input('action', 'float32', ['B', actor.actionDim]);
  const expectile = g.input('expectile', 'float32', []);
  const v = value.v(g, obs);
  const u = g.sub(g.stopGradient(targetQ(g, critics, obs, action)), v);
  const loss = g.reduceMean(g.add(g.mul(expectile, g.square(g.relu(u))), g.mul(g.sub(1, expectile), g.square(g.relu(g.neg(u))))));
  return { graph: g, loss, metrics: { value_loss: loss, values: g.reduceMean(v) } };
}

/** The critics' loss. Inputs: obs, action, reward, next_obs, done, gamma. */
export function buildIqlCriticLoss(actor: OfflineActor, critics: TwinCritics, value: ValueNetwork): OffPolicyLoss {
  const g = new Graph();
  const { obsDim } = actor.spaces;
  const obs = g.input('obs', 'float32', ['B', obsDim]);
  const action = g.input('action', 'float32', ['B', actor.actionDim]);
  const reward = g.input('reward', 'float32', ['B']);
  const nextObs = g.input('next_obs', 'float32', ['B', obsDim]);
  const done = g.input('done', 'float32', ['B']);
  const gamma = g.input('gamma', 'float32', []);
  const y = g.stopGradient(g.add(reward, g.mul(g.mul(gamma, g.sub(1, done)), value.v(g, nextObs))));
  const q1 = critics.q(g, 'q1', obs, action);
  const q2 = critics.q(g, 'q2', obs, action);
  const qf1Loss = g.mul(g.reduceMean(g.square(g.sub(q1, y))), 0.5);
  const qf2Loss = g.mul(g.reduceMean(g.square(g.sub(q2, y))), 0.5);
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

/** The actor's loss. Inputs: obs, action, beta. */
export function buildIqlActorLoss(actor: OfflineActor, critics: TwinCritics, value: ValueNetwork): OffPolicyLoss {
  const g = new Graph();
  const obs = g.input('obs', 'float32', ['B', actor.spaces.obsDim]);
  const action = g.input('action', 'float32', ['B', actor.actionDim]);
  const beta = g.input('beta', 'float32', []);
  const advantage = g.stopGradient(g.sub(targetQ(g, critics, obs, action), value.v(g, obs)));
  const weight = g.min(g.exp(g.mul(beta, advantage)), MAX_ADVANTAGE_WEIGHT);
  const squared = g.reduceSum(g.square(g.sub(actor.action(g, obs), action)), { axes: [-1] });
  const loss = g.reduceMean(g.mul(weight, squared));
  return { graph: g, loss, metrics: { actor_loss: loss, advantage: g.reduceMean(advantage), advantage_weight: g.reduceMean(weight) } };
}
