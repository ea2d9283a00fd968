// DQN's loss (Mnih et al. 2015) as CleanRL dqn.py computes it:
//
//   td_target = r + gamma * max_a' Q_target(s', a') * (1 - done)
//   loss      = mean((Q(s, a) - td_target)^2)              (CleanRL: F.mse_loss)
//             = mean(huber(Q(s, a) - td_target))           (SB3: F.smooth_l1_loss)
//
// Double DQN (van Hasselt et al. 2016) takes a' = argmax_a' Q(s', a') from the online network
// and its value from the target network. The target is computed in JS from the two networks'
// fast forward passes (it is CleanRL's torch.no_grad() block: no gradient flows through it) and
// fed to the gradient step, whose graph is only Q(s, a) and the loss.
import type { QNetworkPolicy } from '../../policies/index.js';
import { argmax } from '../../policies/index.js';
import { huber } from '../../tensor/nn.js';
import { Graph, GradientStep, type Compute } from '../../tensor/index.js';

/** The loss metrics, in the order the update reports them (CleanRL's names). */
export const LOSS_METRICS = ['td_loss', 'q_values'] as const;

/**
 * td_target[j] = rewards[j] + gamma * (1 - dones[j]) * Q_target(s'_j, a'_j), where a'_j is the
 * argmax of `selector` (the target's own Q-values; the online network's with Double DQN).
 * `targetQ` and `selectorQ` are [rows, actions].
 */
export function tdTargets(rewards: Float32Array, dones: Float32Array, targetQ: Float32Array, selectorQ: Float32Array, rows: number, actions: number, gamma: number, out: Float32Array): void {
  for (let j = 0; j < rows; j++) {
    const best = argmax(selectorQ, j * actions, actions);
    // dones are terminations only: a truncated episode's final state is bootstrapped.
    out[j] = rewards[j] + gamma * (1 - dones[j]) * targetQ[j * actions + best];
  }
}

/**
 * The gradient step of the TD loss over the Q-network's weights. Feeds: `obs` [B, obsDim],
 * `action_mask` [B, actions] (one-hot of the taken action), `td_target` [B], `inv_n` (1 / B).
 */
export function dqnGradientStep(policy: QNetworkPolicy, loss: 'mse' | 'huber', options: { readonly compute: Compute; readonly maxRows: number }): Promise<GradientStep> {
  const g = new Graph();
  const obs = g.input('obs', 'float32', ['B', policy.spaces.obsDim]);
  const actionMask = g.input('action_mask', 'float32', ['B', policy.actions]);
  const tdTarget = g.input('td_target', 'float32', ['B']);
  const invN = g.input('inv_n', 'float32', []);
  const q = policy.build(g, obs);
  const qTaken = g.reduceSum(g.mul(q, actionMask), { axes: [1] });
  const tdError = g.sub(qTaken, tdTarget);
  const mean = (x: Parameters<typeof g.reduceSum>[0]) => g.mul(g.reduceSum(x), invN);
  const tdLoss = mean(loss === 'mse' ? g.square(tdError) : huber(tdError));
  const metrics = { td_loss: tdLoss, q_values: mean(g.stopGradient(qTaken)) };
  return GradientStep.create(g, [{ loss: tdLoss, weights: policy.weights.names, metrics }], {
    weights: policy.weights,
    compute: options.compute,
    dimLimits: { B: options.maxRows },
  });
}
