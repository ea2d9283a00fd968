// DQN's loss (Mnih et al. 2015) as CleanRL dqn.py computes it:
//
//   td_target = r + gamma * max_a' Q_target(s', a') * (1 - done)
//   loss      = mean((Q(s, a) - td_target)^2)              (CleanRL: F.mse_loss)
//             = mean(huber(Q(s, a) - td_target))           (SB3: F.smooth_l1_loss)
//
// Double DQN (van Hasselt et al. 2016) takes a' = argmax_a' Q(s', a') from the online network
// and its value from the target network. The target is CleanRL's torch.no_grad() block: the
// networks' Q-values of the batch's next observations (BatchQValues, forward only) and the TD
// target from them in JS, fed to the gradient step, whose graph is only Q(s, a) and the loss.
import { argmax } from '../../policies/index.js';
import type { QNetworkPolicy } from './q-network.js';
import { huber } from '../../tensor/nn.js';
import { Graph, GradientStep, Session, type Compute, type WeightStore } from '../../tensor/index.js';

/** The loss metrics, in the order the update reports them (CleanRL's names). */
export const LOSS_METRICS = ['td_loss', 'q_values'] as const;

/**
 * td_target[j] = rewards[j] + gamma * (1 - dones[j]) * Q_target(s'_j, a'_j), where a'_j is the
 * argmax of `selector` (the target's own Q-values; the online network's with Double DQN).
 * `targetQ` and `selectorQ` are [rows, actions]. With `nextMask` ([rows, actions], 1 legal) a'_j
 * is the best legal action; a next observation with none legal (a finished game's) adds nothing.
 */
export function tdTargets(rewards: Float32Array, dones: Float32Array, targetQ: Float32Array, selectorQ: Float32Array, rows: number, actions: number, gamma: number, out: Float32Array, nextMask: Float32Array | null = null): void {
  for (let j = 0; j < rows; j++) {
    const best = nextMask === null ? argmax(selectorQ, j * actions, actions) : legalArgmax(selectorQ, nextMask, j * actions, actions);
    if (best < 0) {
      out[j] = rewards[j];
      continue;
    }
    // dones are terminations only: a truncated episode's final state is bootstrapped.
    out[j] = rewards[j] + gamma * (1 - dones[j]) * targetQ[j * actions + best];
  }
}

/** The index of the largest of xs[from .. from + n) where mask is 1 (the first on ties); -1 where none is. */
export function legalArgmax(xs: ArrayLike<number>, mask: ArrayLike<number>, from: number, n: number): number {
  let best = -1;
  for (let k = 0; k < n; k++) if (mask[from + k] !== 0 && (best < 0 || xs[from + k] > xs[from + best])) best = k;
  return best;
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

/**
 * The Q-values [rows, actions] of a batch of `rows` observations under a store of the Q-network's
 * weights (the target's, or the online one's for Double DQN), read live at each run.
 *
 * Through onnxruntime, not the SIMD kernel that acts: on a whole batch its matrix products win.
 * Measured on 2 cores (the network's forward, per batch): CleanRL's 128 rows of 4-120-84-2,
 * 120 us against 200-280 us; rl-zoo's 64 rows of 4-256-256-2, 190-300 against 620-680 us. Only
 * tiny products lose (32 rows of 4-64-64-2: 50 against 20 us), where the gradient step beside
 * it costs several times that anyway.
 */
export class BatchQValues {
  private constructor(
    private readonly session: Session,
    private readonly rows: number,
    private readonly obsDim: number,
  ) {}

  static async create(policy: QNetworkPolicy, weights: WeightStore, rows: number, compute: Compute): Promise<BatchQValues> {
    const g = new Graph();
    const obsDim = policy.spaces.obsDim;
    const q = policy.build(g, g.input('obs', 'float32', [rows, obsDim]));
    // build() declares the policy's own weight names; `weights` holds the same names (a clone).
    const session = await Session.create(g, { q_values: q }, { weights, providers: compute.providers });
    return new BatchQValues(session, rows, obsDim);
  }

  /** Q-values of `obs` ([rows, obsDim]); the array is overwritten by the next run. */
  async run(obs: Float32Array): Promise<Float32Array> {
    const out = await this.session.runReusingOutputs({ obs: { data: obs, dims: [this.rows, this.obsDim] } });
    return out.q_values!;
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
