// Every learner's gradient step goes through one checked step (runtime/algorithms/checked-step.ts):
// a short run of each gives the losses it gave before the learners shared it, and a NaN in any
// learner fails the run naming the learner, the step and the last good checkpoint, whose
// weights are finite.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { readEvents } from '../../../runtime/run/events.js';
import { train } from '../../../runtime/train.js';
import { tempDir } from '../helpers.js';
import { LEARNERS, learnerPlan, type Learner } from './learners.js';

/**
 * The losses of each learner's first update on seed 1, recorded before the learners shared the
 * checked step (bit-identical on this machine; the tolerance allows another CPU's kernels).
 */
const FIRST_LOSSES: Record<Learner, Record<string, number>> = {
  PPO: { 'losses/grad_norm': 6.9218200368915275, 'losses/gradient_steps': 4, 'losses/policy_loss': -0.00015436112880706787, 'losses/value_loss': 37.20689392089844, 'losses/entropy': 0.6931441724300385, 'losses/old_approx_kl': 0.00011364277452230453, 'losses/approx_kl': 7.557682693004608e-07, 'losses/clipfrac': 0, 'losses/explained_variance': 0.007668084862512026 },
  DQN: { 'losses/grad_norm': 2.324814951914877, 'losses/td_loss': 1.0733087729840052, 'losses/q_values': 0.07197442169057294 },
  SAC: { 'losses/alpha': 0.9321860686830985, 'losses/qf1_loss': 40.65315440121819, 'losses/qf2_loss': 42.096369462854724, 'losses/qf1_values': -0.42017799309071374, 'losses/qf2_values': -0.288021287004299, 'losses/actor_loss': -0.014666883987100685, 'losses/entropy': 0.539019405403558, 'losses/alpha_loss': 1.4846487246995728, 'losses/qf_values': -0.3540996400475064, 'losses/gradient_steps': 68 },
  REINFORCE: { 'losses/grad_norm': 58.306917033714164, 'losses/gradient_steps': 1, 'losses/policy_loss': 106.94483947753906, 'losses/entropy': 0.6931418776512146 },
  SFT: { 'losses/sft_loss': 2.616712808609009, 'losses/grad_norm': 2.3889025991041266 },
  GRPO: { 'losses/grad_norm': 0.7701143196795517, 'losses/policy_loss': -0.0020873351022601128, 'losses/kl': 2.276897430419922e-05, 'losses/clip_fraction': 0, 'losses/entropy': 2.5602898597717285 },
  RLOO: { 'losses/grad_norm': 4.183973271517793, 'losses/policy_loss': -0.16666662693023682, 'losses/kl': 0, 'losses/clip_fraction': 0, 'losses/entropy': 2.560044288635254 },
};

/** A loss each learner logs with every update. */
const LOSS: Record<Learner, string> = {
  PPO: 'losses/policy_loss',
  DQN: 'losses/td_loss',
  SAC: 'losses/qf1_loss',
  REINFORCE: 'losses/policy_loss',
  SFT: 'losses/sft_loss',
  GRPO: 'losses/policy_loss',
  RLOO: 'losses/policy_loss',
};

describe('a short run of every learner', () => {
  for (const learner of LEARNERS) {
    it(`${learner}: the first update's losses are unchanged`, async () => {
      const result = await train(learnerPlan(learner), { out: tempDir() });
      const first = readEvents(`${result.runDir}/events.jsonl`).find((e) => e.type === 'metrics' && e.values[LOSS[learner]] !== undefined);
      assert.ok(first && first.type === 'metrics', 'an update was logged');
      const losses = Object.fromEntries(Object.entries(first.values).filter(([name]) => name.startsWith('losses/')));
      const expected = FIRST_LOSSES[learner];
      assert.deepEqual(Object.keys(losses).sort(), Object.keys(expected).sort(), JSON.stringify(losses));
      for (const [name, value] of Object.entries(expected)) {
        assert.ok(Math.abs(losses[name]! - value) <= 1e-5 * Math.max(1, Math.abs(value)), `${name}: ${losses[name]} (was ${value}); ${JSON.stringify(losses)}`);
      }
    });
  }
});
