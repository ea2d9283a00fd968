// A cnn policy learns from pixels (issue 44): PPO with a small IMPALA CNN on Catch (10x10),
// where only the image says where the ball and the paddle are, must go from a random policy's
// return (about -0.5) to catching most balls in 12k steps, and the exported policy must play as
// well under `rlx eval`'s evaluation (the saved model read back). DQN with the same encoder
// trains and exports its Q-values. examples/catch-cnn.rlx is the full run (PPO, stopping at a
// greedy 0.9 within 40k steps).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import * as ort from 'onnxruntime-node';

import { makeVecEnv } from '../../../runtime/envs/registry.js';
import { evaluate, evalMetrics } from '../../../runtime/evaluate.js';
import { policySpaces } from '../../../runtime/policies/index.js';
import { OnnxPolicy } from '../../../runtime/policies/onnx-policy.js';
import { Rng } from '../../../shared/random.js';
import { train } from '../../../runtime/train.js';
import { makePlan, tempDir } from '../helpers.js';

const SIZE = 10;
const cnnPolicy = () => ({ name: 'Eyes', kind: 'cnn', params: { encoder: 'impala', channels: [8, 16], hidden: [64] } });
const SPACES = policySpaces({ kind: 'box', shape: [1, SIZE, SIZE], low: [], high: [] }, { kind: 'discrete', n: 3 });

describe('a cnn policy learns Catch from pixels', () => {
  it('PPO in 12k steps, and its exported policy plays as well', async () => {
    const plan = makePlan({ env: 'Catch', envParams: { size: SIZE }, algorithm: 'PPO', algorithmParams: { learning_rate: 1e-3, rollout_steps: 64, epochs: 4, minibatches: 4, entropy_coef: 0.01 }, budget: 12_000, envs: 8, seeds: [1] });
    plan.policy = cnnPolicy();
    const result = await train(plan, { out: tempDir() });
    const meanReturn = result.metrics['train/mean_return'];
    console.log(`PPO + cnn on Catch: train/mean_return ${meanReturn} after ${result.step} steps`);
    assert.ok(meanReturn > 0.5, `mean return of the last 20 episodes after ${result.step} steps: ${meanReturn}`);
    const vec = makeVecEnv('Catch', { size: SIZE }, 4);
    const policy = await OnnxPolicy.load(path.join(result.runDir, 'checkpoints', 'policy-final.onnx'), SPACES);
    try {
      const evaluated = evalMetrics(await evaluate(policy, vec, 40, true, new Rng(1), 1, 1 << 30));
      assert.ok(evaluated['eval/mean_return'] > 0.6, `greedy evaluation of the exported policy: ${evaluated['eval/mean_return']}`);
    } finally {
      await policy.release();
    }
  });

  it('DQN trains over the same encoder and exports its Q-values', async () => {
    const plan = makePlan({ env: 'Catch', envParams: { size: SIZE }, algorithm: 'DQN', algorithmParams: { learning_starts: 200, batch_size: 32, buffer: 2000, train_every: 4, target_update: 100 }, budget: 1000, envs: 2, seeds: [1] });
    plan.policy = cnnPolicy();
    const result = await train(plan, { out: tempDir() });
    assert.equal(result.step, 1000);
    const session = await ort.InferenceSession.create(fs.readFileSync(path.join(result.runDir, 'checkpoints', 'policy-final.onnx')));
    const obs = new Float32Array(2 * SIZE * SIZE).fill(0);
    obs[3] = 255;
    const out = await session.run({ obs: new ort.Tensor('float32', obs, [2, SIZE * SIZE]) });
    assert.deepEqual(out.q_values!.dims, [2, 3]);
    await session.release();
  });
});
