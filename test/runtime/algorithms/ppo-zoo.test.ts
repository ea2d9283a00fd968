// examples/cartpole-zoo.rlx says it follows rl-baselines3-zoo's CartPole-v1 PPO entry (SB3 2.3.2,
// hyperparams/ppo.yml): its plan, read as the trainer reads it, must mean what SB3 runs.
// The differences between the two references are in runtime/algorithms/ppo/README.md.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { planFile } from '../../../cli/commands/plan.js';
import { ppoSettings } from '../../../runtime/algorithms/index.js';
import { minibatchRows } from '../../../runtime/algorithms/ppo/settings.js';
import { repoRoot } from '../../helpers/repo.js';

/** rlx's value loss is CleanRL's: 0.5 * MSE, times value_coef (runtime/algorithms/ppo/loss.ts). */
const CLEANRL_VALUE_LOSS_FACTOR = 0.5;

test('the rl-zoo example weighs the value MSE as SB3 does (vf_coef 0.5), with the zoo\'s other settings', () => {
  const [plan] = planFile(path.join(repoRoot(), 'examples', 'cartpole-zoo.rlx'));
  const s = ppoSettings(plan.stages[0].algorithm.params);
  // SB3: loss = policy_loss + ent_coef * entropy_loss + vf_coef * F.mse_loss(returns, values).
  assert.equal(s.value_coef * CLEANRL_VALUE_LOSS_FACTOR, 0.5, 'the weight on the value MSE: SB3 vf_coef 0.5');
  assert.equal(s.clip_value, false, 'SB3 clip_range_vf=None');
  assert.deepEqual(s.entropy_coef, { schedule: 'constant', value: 0 }, 'ent_coef 0.0');
  assert.deepEqual(s.learning_rate, { schedule: 'linear', from: 1e-3, to: 0, over: 1 }, 'lin_0.001');
  assert.deepEqual(s.clip, { schedule: 'linear', from: 0.2, to: 0, over: 1 }, 'lin_0.2');
  assert.equal(plan.envs, 8);
  assert.equal(s.rollout_steps, 32, 'n_steps');
  assert.equal(minibatchRows(s, plan.envs), 256, 'batch_size');
  assert.equal(s.epochs, 20, 'n_epochs');
  assert.equal(s.gamma, 0.98);
  assert.equal(s.gae_lambda, 0.8);
  assert.equal(s.max_grad_norm, 0.5);
  assert.equal(s.normalize_advantages, true);
  assert.equal(plan.stages[0].budget, 100_000, 'n_timesteps 1e5');
});
