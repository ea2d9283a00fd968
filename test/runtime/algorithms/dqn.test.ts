// DQN (runtime/algorithms/dqn/): the TD target against a hand computation (Double DQN or not,
// terminations against truncations), learning on CartPole well above the random policy, the
// exported Q-network acting greedily under `rlx eval`'s loader, a resume continuing from the
// checkpointed replay buffer, and hindsight relabeling on GridWorld.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { tdTargets } from '../../../runtime/algorithms/dqn/loss.js';
import { loadCheckpoint } from '../../../runtime/run/checkpoint.js';
import { readEvents } from '../../../runtime/run/events.js';
import { OnnxPolicy } from '../../../runtime/policies/onnx-policy.js';
import { Rng } from '../../../shared/random.js';
import { resume, train } from '../../../runtime/train.js';
import { makePlan, tempDir } from '../helpers.js';

describe('DQN TD target', () => {
  // Two rows, three actions. Row 0 terminated, row 1 was truncated (done 0: it bootstraps).
  const rewards = Float32Array.of(1, 0.5);
  const dones = Float32Array.of(1, 0);
  const targetQ = Float32Array.of(9, 9, 9, /* row 1 */ 2, 5, 3);
  const onlineQ = Float32Array.of(0, 0, 0, /* row 1 */ 4, 1, 0);
  const gamma = 0.9;

  it('is r + gamma * max_a Q_target(s\', a) * (1 - done)', () => {
    const out = new Float32Array(2);
    tdTargets(rewards, dones, targetQ, targetQ, 2, 3, gamma, out);
    assert.deepEqual([...out], [1, Math.fround(0.5 + 0.9 * 5)]);
  });

  it('with Double DQN, values the online network\'s argmax with the target network', () => {
    const out = new Float32Array(2);
    tdTargets(rewards, dones, targetQ, onlineQ, 2, 3, gamma, out);
    assert.deepEqual([...out], [1, Math.fround(0.5 + 0.9 * 2)]);
  });
});

const CARTPOLE_DQN = {
  learning_rate: 2.3e-3,
  batch_size: 64,
  buffer: 100_000,
  learning_starts: 1000,
  target_update: 10,
  train_every: 256,
  gradient_steps: 128,
  epsilon: { schedule: 'linear', from: 1, to: 0.04, over: 0.16 },
  loss: 'huber',
  max_grad_norm: 10,
};

describe('DQN on CartPole', () => {
  it('learns well above the random policy (~22) within 20k steps, and its export acts greedily', async () => {
    // Scored as rl-zoo scores: greedy episodes of the final model. The training return swings
    // with these settings, in SB3 as here (SB3 2.3.2's mean-20 at 20k: 63 / 78 / 112 on seeds
    // 1-3; its greedy evaluation 139 / 130 on seeds 1 and 3), so its last value says little.
    const plan = makePlan({ algorithm: 'DQN', algorithmParams: CARTPOLE_DQN, policyParams: { hidden: [256, 256], activation: 'relu' }, envs: 1, budget: 20_000, eval: { every: 20_000, episodes: 10, deterministic: true } });
    const result = await train(plan, { out: tempDir() });
    assert.equal(result.status, 'finished');
    const events = readEvents(path.join(result.runDir, 'events.jsonl'));
    const metrics = events.filter((e) => e.type === 'metrics');
    const last = events.filter((e) => e.type === 'eval').at(-1)!;
    assert.equal(last.step, 20_000);
    assert.ok(last.values['eval/mean_return'] >= 100, `mean return of 10 greedy episodes at 20k: ${last.values['eval/mean_return']}`);
    for (const name of ['losses/td_loss', 'losses/q_values', 'charts/epsilon', 'charts/learning_rate']) assert.ok(metrics.some((e) => Number.isFinite(e.values[name])), name);

    const file = path.join(result.runDir, 'checkpoints', 'policy-final.onnx');
    const policy = await OnnxPolicy.load(file, { obsDim: 4, actionSpace: { kind: 'discrete', n: 2 } });
    const obs = Float32Array.from({ length: 4 * 16 }, (_, i) => Math.sin(i) * 0.2);
    const { q_values: q } = await policy.run(obs, 16);
    const actions = new Int32Array(16);
    await policy.act(obs, 16, actions, false, new Rng(1));
    const data = q.data as Float32Array;
    assert.deepEqual([...actions], Array.from({ length: 16 }, (_, i) => (data[2 * i + 1] > data[2 * i] ? 1 : 0)), 'the argmax of q_values');
    await policy.release();
  });
});

describe('DQN checkpoints', () => {
  it('resumes from the replay buffer it saved; only the newest checkpoint keeps its buffer', async () => {
    const plan = makePlan({ algorithm: 'DQN', algorithmParams: { learning_starts: 256, train_every: 64, buffer: 10_000 }, policyParams: { hidden: [16] }, envs: 2, budget: 4096 });
    const controller = new AbortController();
    const first = await train(plan, { out: tempDir(), checkpointEvery: 512, signal: controller.signal, onProgress: (p) => p.step >= 2048 && controller.abort() });
    assert.equal(first.status, 'stopped');
    const dir = path.join(first.runDir, 'checkpoints');
    const names = fs.readdirSync(dir);
    assert.deepEqual(names.filter((n) => n.endsWith('.bin')), [`state-${first.step}.bin`], 'one side file, the newest checkpoint\'s');
    // DQN's iterate() covers ~1000 steps, so the checkpoints fall at 1024 and at the stop.
    const older = names.filter((n) => n.startsWith('state-') && n.endsWith('.json') && n !== `state-${first.step}.json`);
    assert.ok(older.length > 0, names.join(', '));
    assert.equal((loadCheckpoint(path.join(dir, older[0])).algorithmState as { buffer: unknown }).buffer, null, 'an older checkpoint loads without its buffer');
    const saved = (loadCheckpoint(path.join(dir, `state-${first.step}.json`)).algorithmState as { buffer: { obs: Float32Array; pos: number } }).buffer;
    assert.equal(saved.pos * 2, first.step);

    const second = await resume(first.runDir);
    assert.equal(second.status, 'finished');
    const after = (loadCheckpoint(path.join(dir, 'state-4096.json')).algorithmState as { buffer: { obs: Float32Array; pos: number } }).buffer;
    assert.equal(after.pos * 2, 4096, 'the resumed run added to the buffer it loaded');
    const rows = first.step * 4; // obsDim 4
    assert.deepEqual(after.obs.subarray(0, rows), saved.obs.subarray(0, rows), 'the transitions before the stop are the saved ones');
  });
});
