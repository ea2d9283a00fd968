// CI smoke run: a short CartPole training must learn, so that a broken learner is caught
// without a long run. A random policy averages a return of about 22; 30k steps with the
// rl-zoo settings (examples/cartpole-zoo.rlx) reach several hundred. How fast is `npm run bench -- ppo`'s
// to say, not a test's.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { train } from '../../../runtime/train.js';
import { makePlan, tempDir, ZOO_PPO } from '../helpers.js';

it('PPO lifts the CartPole return far above a random policy in 30k steps', async () => {
  const plan = makePlan({ budget: 30_000, envs: 8, algorithmParams: ZOO_PPO, seeds: [1] });
  const result = await train(plan, { out: tempDir() });
  const meanReturn = result.metrics['train/mean_return'];
  assert.ok(meanReturn > 100, `mean return of the last 20 episodes after ${result.step} steps: ${meanReturn}`);
});
