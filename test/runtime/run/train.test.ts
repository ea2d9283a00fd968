// train() and resume() end to end on small CartPole plans: the run directory's contents,
// readable at every moment; same seed -> same events; stop conditions; resuming continues
// the step count; plans the runtime cannot run are refused before any directory exists.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { readEvents, type RunEvent } from '../../../runtime/run/events.js';
import { PlanError, resume, RunFailedError, train, type TrainOptions } from '../../../runtime/train.js';
import { makePlan, tempDir, type PlanOptions } from '../helpers.js';

const SHAPED: PlanOptions['reward'] = {
  name: 'Upright',
  replace_env_reward: true,
  terms: [
    { name: 'alive', expr: { const: 1 } },
    { name: 'tilt', expr: { op: '*', args: [{ const: -0.1 }, { call: 'abs', args: [{ ref: 'next_obs.theta' }] }] } },
  ],
};

function allFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).map((f) => f.split(path.sep).join('/')).sort();
}

/** Events with what legitimately differs between two identical runs taken out. */
function comparable(events: RunEvent[]): unknown[] {
  return events.map((e) => {
    const { time: _time, ...rest } = e as RunEvent & { time: number; pid?: number };
    if (rest.type === 'status') delete (rest as { pid?: number }).pid;
    if (rest.type === 'metrics') {
      const { 'charts/sps': _sps, ...values } = rest.values;
      return { ...rest, values };
    }
    return rest;
  });
}

async function run(plan: ReturnType<typeof makePlan>, options: TrainOptions = {}) {
  const out = tempDir();
  const result = await train(plan, { out, ...options });
  return { out, result, events: readEvents(path.join(result.runDir, 'events.jsonl')) };
}

describe('train()', () => {
  it('writes the run directory of ARCHITECTURE.md, readable after every update', async () => {
    const plan = makePlan({ budget: 4096, eval: { every: 2048, episodes: 3, deterministic: true }, reward: SHAPED });
    const sources = [{ path: 'test.rlx', text: 'experiment Test { }\n' }];
    let checks = 0;
    const { result, events } = await run(plan, {
      sources,
      checkpointEvery: 2048,
      rolloutEvery: 1024,
      onProgress: (p) => {
        // Between updates every file parses: nothing is ever half-written.
        JSON.parse(fs.readFileSync(path.join(p.runDir, 'status.json'), 'utf8'));
        readEvents(path.join(p.runDir, 'events.jsonl'));
        assert.deepEqual(allFiles(p.runDir).filter((f) => f.includes('.tmp')), []);
        checks++;
      },
    });
    assert.equal(checks, 8);
    assert.equal(result.status, 'finished');
    assert.equal(result.step, 4096);
    assert.equal(result.reason, 'budget reached (4096 of 4096 steps)');
    const dir = result.runDir;
    assert.match(path.relative(path.dirname(path.dirname(dir)), dir), /^Test[/\\]\d{8}-\d{6}-seed1$/);
    const files = allFiles(dir);
    for (const f of [
      'plan.json', 'source/test.rlx', 'events.jsonl', 'status.json',
      'checkpoints/policy-2048.onnx', 'checkpoints/state-2048.json', 'checkpoints/policy-4096.onnx', 'checkpoints/state-4096.json', 'checkpoints/policy-final.onnx',
    ]) assert.ok(files.includes(f), `${f} in ${files.join(', ')}`);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, 'plan.json'), 'utf8')), plan);
    assert.equal(fs.readFileSync(path.join(dir, 'source/test.rlx'), 'utf8'), sources[0].text);

    const status = JSON.parse(fs.readFileSync(path.join(dir, 'status.json'), 'utf8'));
    assert.equal(status.status, 'finished');
    assert.equal(status.pid, process.pid);
    assert.equal(status.step, 4096);
    for (const key of ['started', 'updated', 'ended']) assert.ok(!Number.isNaN(Date.parse(status[key])), key);
    assert.equal(typeof status.metrics['losses/policy_loss'], 'number');

    const types = events.map((e) => e.type);
    assert.deepEqual(types.slice(0, 2), ['status', 'hparams']);
    assert.equal(types[types.length - 1], 'status');
    const metrics = events.filter((e) => e.type === 'metrics');
    assert.deepEqual(metrics.map((e) => e.step), [512, 1024, 1536, 2048, 2560, 3072, 3584, 4096]);
    for (const key of [
      'charts/episodic_return', 'charts/episodic_length', 'train/mean_return', 'charts/learning_rate', 'charts/sps',
      'losses/policy_loss', 'losses/value_loss', 'losses/entropy', 'losses/approx_kl', 'losses/clipfrac', 'rewards/alive', 'rewards/tilt', 'rewards/total',
    ]) assert.equal(typeof metrics[0].values[key], 'number', key);
    const evals = events.filter((e) => e.type === 'eval');
    assert.deepEqual(evals.map((e) => [e.step, e.returns.length]), [[2048, 3], [4096, 3]]);
    const episodes = events.filter((e) => e.type === 'episode');
    assert.ok(episodes.length > 20 && episodes.every((e) => e.terms && typeof e.terms.tilt === 'number'));
    const rollouts = events.filter((e) => e.type === 'rollout');
    assert.ok(rollouts.length >= 2, 'sampled episodes');
    for (const r of rollouts) {
      const lines = fs.readFileSync(path.join(dir, r.file), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.deepEqual(lines[0].obs_fields, ['x', 'x_dot', 'theta', 'theta_dot']);
      assert.deepEqual(lines[0].terms, ['alive', 'tilt']);
      assert.equal(lines.length - 1, r.length);
      const last = lines[lines.length - 1];
      assert.ok(last.terminated || last.truncated);
      assert.deepEqual(Object.keys(lines[1].terms), ['alive', 'tilt']);
    }
    const checkpoints = events.filter((e) => e.type === 'checkpoint');
    assert.deepEqual(checkpoints.map((e) => e.policy), ['checkpoints/policy-2048.onnx', 'checkpoints/policy-4096.onnx']);
  });

  it('gives the same events for the same seed, and different ones for another', async () => {
    const plan = makePlan({ budget: 2048, reward: SHAPED, eval: { every: 1024, episodes: 2, deterministic: false } });
    const a = await run(plan);
    const b = await run(plan);
    assert.deepEqual(comparable(b.events), comparable(a.events));
    const c = await run(plan, { seed: 2 });
    assert.notDeepEqual(comparable(c.events), comparable(a.events));
  });

  it('gives the same events with the gradients on one thread or two', async () => {
    const plan = makePlan({ budget: 2048, reward: SHAPED });
    const one = await run(plan, { compute: { threads: false } });
    const two = await run(plan, { compute: { threads: true } });
    assert.deepEqual(comparable(two.events), comparable(one.events));
  });

  it('stops early when the stop condition holds, and says why', async () => {
    const plan = makePlan({ budget: 100_000, stop: { op: '>=', args: [{ ref: 'steps' }, { const: 1500 }] } });
    const { result, events } = await run(plan);
    assert.equal(result.status, 'finished');
    assert.equal(result.step, 1536);
    assert.equal(result.reason, 'stop condition steps >= 1500 met (steps = 1536)');
    const last = events[events.length - 1];
    assert.deepEqual([last.type, (last as { reason?: string }).reason], ['status', result.reason]);
  });

  it('stops cleanly on a signal, and resume continues the step count in the same events.jsonl', async () => {
    const plan = makePlan({ budget: 3072 });
    const controller = new AbortController();
    const first = await run(plan, {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.step >= 1024) controller.abort();
      },
    });
    assert.equal(first.result.status, 'stopped');
    assert.equal(first.result.step, 1024);
    const dir = first.result.runDir;
    assert.ok(fs.existsSync(path.join(dir, 'checkpoints/state-1024.json')) && fs.existsSync(path.join(dir, 'checkpoints/policy-final.onnx')));
    assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'status.json'), 'utf8')).status, 'stopped');

    const second = await resume(dir);
    assert.equal(second.status, 'finished');
    assert.equal(second.step, 3072);
    const events = readEvents(path.join(dir, 'events.jsonl'));
    assert.deepEqual(events.filter((e) => e.type === 'metrics').map((e) => e.step), [512, 1024, 1536, 2048, 2560, 3072]);
    assert.deepEqual(
      events.filter((e) => e.type === 'status').map((e) => [e.status, e.step, e.resumed ?? false]),
      [['running', 0, false], ['stopped', 1024, false], ['running', 1024, true], ['finished', 3072, false]],
    );
    const lr = events.filter((e) => e.type === 'metrics').map((e) => e.values['charts/learning_rate']);
    assert.deepEqual(lr, [...lr].sort((x, y) => y - x), 'the learning-rate schedule goes on where it was');
    await assert.rejects(resume(dir), /finished already/);
  });

  it('marks a run that crashes failed, with the error', async () => {
    const out = tempDir();
    await assert.rejects(
      train(makePlan({ budget: 4096 }), {
        out,
        onProgress: (p) => {
          if (p.step >= 1024) throw new Error('the disk is on fire');
        },
      }),
      (err: unknown) => err instanceof RunFailedError && err.message === 'the disk is on fire',
    );
    const dir = path.join(out, 'Test', fs.readdirSync(path.join(out, 'Test'))[0]);
    const status = JSON.parse(fs.readFileSync(path.join(dir, 'status.json'), 'utf8'));
    assert.deepEqual([status.status, status.error, status.step], ['failed', 'the disk is on fire', 1024]);
    const last = readEvents(path.join(dir, 'events.jsonl')).slice(-2);
    assert.deepEqual(last.map((e) => [e.type, (e as { level?: string }).level ?? (e as { status?: string }).status]), [['log', 'error'], ['status', 'failed']]);
  });

  it('trains continuous actions (Pendulum) into a Gaussian policy', async () => {
    const { result, events } = await run(makePlan({ env: 'Pendulum', budget: 2048, envs: 2, algorithmParams: { rollout_steps: 256, minibatches: 8 } }));
    assert.equal(result.step, 2048);
    const metrics = events.filter((e) => e.type === 'metrics');
    assert.ok(metrics.every((e) => Number.isFinite(e.values['losses/policy_loss']) && Number.isFinite(e.values['losses/entropy'])));
    const policy = fs.readFileSync(path.join(result.runDir, 'checkpoints/policy-final.onnx'));
    assert.ok(policy.includes(Buffer.from('log_std')) && policy.includes(Buffer.from('mean')));
  });

  it('refuses what the runtime does not implement, before creating anything', async () => {
    const out = tempDir();
    const refuse = async (plan: ReturnType<typeof makePlan>, message: RegExp) => {
      await assert.rejects(train(plan, { out }), (err: unknown) => err instanceof PlanError && message.test(err.message));
    };
    await refuse(makePlan({ algorithm: 'DQN', algorithmParams: { relabel: 'final' } }), /DQN relabels goals \(relabel: final\), but CartPole is not goal-conditioned; use GridWorld or set relabel: none/);
    await refuse(makePlan({ env: 'TextTask' }), /PPO does not train on text actions \(TextTask\)/);
    await refuse({ ...makePlan(), curriculum: { param: 'env.size', from: 5, to: 9, step: 1, advance: { const: true } } }, /curriculum/);
    await refuse({ ...makePlan(), env: { name: 'Mine', kind: 'module', module: 'mine.ts', params: {} } }, /env Mine is user code \(module "mine.ts"\): pass its file as envModule/);
    await refuse({ ...makePlan(), policy: { name: 'T', kind: 'transformer', params: {} } }, /policy T \(transformer\) reads tokens, not observation vectors: CartPole needs an mlp policy/);
    await assert.rejects(train(makePlan({ envParams: { force_mag: 3 } }), { out }), /CartPole: unknown param "force_mag"/);
    await assert.rejects(
      train(makePlan({ reward: { name: 'R', replace_env_reward: false, terms: [{ name: 'x', expr: { ref: 'obs.y' } }] } }), { out }),
      /reward R, term x: CartPole has no observation field "y"/,
    );
    assert.deepEqual(fs.readdirSync(out), [], 'no run directory was created');
  });
});
