// gymnasium("CartPole-v1") end to end: examples/gym-cartpole.rlx, as `rlx train` reads it,
// trains PPO on the env in Python worker processes until its eval crosses 475 (the issue's
// target), opens for rlx eval, and leaves no worker behind; SAC learns gymnasium("Pendulum-v1").
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { planFile } from '../../../cli/commands/plan.js';
import { openRunEnvs } from '../../../runtime/envs/run-envs.js';
import { readEvents } from '../../../runtime/run/events.js';
import { readRollout } from '../../../runtime/run/reader.js';
import { resume, train } from '../../../runtime/train.js';
import { pythonWorkers, testPython, withTestPython } from '../../helpers/python.js';
import { repoRoot } from '../../helpers/repo.js';
import { makePlan, tempDir, ZOO_PPO } from '../helpers.js';

const python = testPython();
const skip = python === null ? 'python3 with numpy is not available' : false;

describe('PPO on gymnasium("CartPole-v1")', { skip }, () => {
  // About 30 s: seed 1 (the example's) stops at step 60k (eval 490.8); seeds 2 and 3 need 90k
  // and 41k (measured, 30-35 s each on the 2-core machine). The budget is 200k.
  it('examples/gym-cartpole.rlx reaches an eval return of 475, with the copies in two Python processes; its run opens for rlx eval; no worker is left', { timeout: 300_000 }, async () => {
    const before = pythonWorkers();
    await withTestPython(async () => {
      const [plan] = planFile(path.join(repoRoot(), 'examples', 'gym-cartpole.rlx'));
      assert.equal(plan.envs, 8);
      assert.equal(plan.env.params.copies_per_process, 4);
      const result = await train(plan, { out: tempDir(), compute: { threads: false } });
      assert.equal(result.status, 'finished');
      assert.match(result.reason, /stop condition eval\.mean_return >= 475 met/);
      assert.ok(result.metrics['eval/mean_return']! >= 475, `eval return ${result.metrics['eval/mean_return']}`);
      assert.equal(fs.existsSync(path.join(result.runDir, 'source', 'env-module.mjs')), false, 'no module bundle for a Python env');
      // rlx eval opens the run's env the same way: copies in a Python worker.
      const envs = await openRunEnvs(result.runDir, plan, 2);
      try {
        assert.equal(envs.vec.obsDim, 4);
        envs.vec.reset(3);
        envs.vec.step(envs.vec.createActionBuffer());
        assert.deepEqual(Array.from(envs.vec.rewards), [1, 1]);
      } finally {
        envs.close();
      }
      // And the command line: rlx eval on the run, recording an episode for the inspector.
      const cli = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), 'eval', result.runDir, '--episodes', '2', '--record'], { encoding: 'utf8', env: { ...python!.env, RLX_PYTHON: python!.python }, timeout: 120_000 });
      assert.equal(cli.status, 0, cli.stderr);
      const said = /^mean return [\d.]+ \+- [\d.]+ over 2 episodes .*\nrecorded an episode \(return \d+, \d+ steps\) in .*(episode-\d+-rlx-eval\.jsonl)\n$/.exec(cli.stdout);
      assert.ok(said, cli.stdout);
      const recorded = readRollout(path.join(result.runDir, 'rollouts', said[1]!));
      assert.ok(recorded.kind === 'episode' && recorded.header?.env === 'Cart' && recorded.steps.length > 0);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(pythonWorkers().filter((pid) => !before.includes(pid)), [], 'workers still running after the run');
  });

  it('resumes a stopped run from its checkpoint with new workers, and leaves none behind', async () => {
    const before = pythonWorkers();
    await withTestPython(async () => {
      const plan = makePlan({
        env: 'gymnasium',
        envParams: { id: 'CartPole-v1', max_steps: 500, imports: [], python: '', env_timeout: 30, copies_per_process: 2 },
        budget: 2048, envs: 4, algorithmParams: ZOO_PPO,
      });
      const controller = new AbortController();
      const stopped = await train(plan, { out: tempDir(), compute: { threads: false }, checkpointEvery: 512, signal: controller.signal, onProgress: (p) => p.step >= 1024 && controller.abort() });
      assert.equal(stopped.status, 'stopped');
      assert.equal(stopped.step, 1024);
      await settle();
      assert.deepEqual(newWorkers(before), [], 'the stopped run ended its workers');
      let workersAtStart: number[] = [];
      const logged: string[] = [];
      const resumed = await resume(stopped.runDir, { compute: { threads: false }, log: (m) => logged.push(m), onStart: () => (workersAtStart = newWorkers(before)) });
      assert.equal(resumed.status, 'finished');
      assert.equal(resumed.step, 2048);
      assert.equal(logged[0], 'resumed from checkpoint at step 1024');
      assert.equal(workersAtStart.length, 2, 'the resumed run starts two workers again (4 copies, 2 to a process)');
      const steps = readEvents(path.join(stopped.runDir, 'events.jsonl')).filter((e) => e.type === 'checkpoint').map((e) => e.step);
      assert.deepEqual(steps, [512, 1024, 1024, 1536, 2048], 'checkpoints before the stop, then on from 1024');
    });
    await settle();
    assert.deepEqual(newWorkers(before), [], 'workers still running after the resumed run');
  });
});


/** Lets ended workers be reaped. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

const newWorkers = (before: number[]) => pythonWorkers().filter((pid) => !before.includes(pid));

describe('SAC on gymnasium("Pendulum-v1")', { skip }, () => {
  // The smaller copy of examples/pendulum-sac.rlx that runtime/algorithms/sac.test.ts trains on
  // rlx's own Pendulum (64-wide layers, batch 64, 5000 steps), here through the bridge. The full
  // example through the bridge (examples/gym-pendulum-sac.rlx, 20k steps) reaches an eval return
  // of -121 (-175 at 10k): 11 min on the loaded 2-core machine (5 min of CPU), too long for a test.
  // Seed 1 here: eval returns -1121 at 2500 steps, -198 at 5000 (about 35 s).
  it('5000 steps lift the eval return from about -1100 at 2500 steps above -600', { timeout: 600_000 }, async () => {
    await withTestPython(async () => {
      const plan = makePlan({
        env: 'gymnasium',
        envParams: { id: 'Pendulum-v1', max_steps: 200, imports: [], python: '', env_timeout: 30, copies_per_process: 4 },
        algorithm: 'SAC',
        algorithmParams: { learning_rate: 1e-3, critic_learning_rate: 'same', learning_starts: 200, batch_size: 64, policy_frequency: 1 },
        policyParams: { hidden: [64, 64], activation: 'relu' },
        budget: 5000, envs: 1, eval: { every: 2500, episodes: 5, deterministic: true },
      });
      const result = await train(plan, { out: tempDir(), compute: { threads: false } });
      assert.equal(result.status, 'finished');
      const evals = fs.readFileSync(path.join(result.runDir, 'events.jsonl'), 'utf8').trim().split('\n')
        .map((line) => JSON.parse(line) as { values?: Record<string, number> })
        .map((e) => e.values?.['eval/mean_return']).filter((v): v is number => v !== undefined);
      const [first, last] = [evals[0]!, evals[evals.length - 1]!];
      assert.equal(evals.length, 2, 'evals at 2500 and 5000 steps');
      assert.ok(last > -600 && last > first + 300, `eval returns ${evals.map((v) => v.toFixed(0)).join(', ')}: expected the last above -600, and 300 above the first`);
    });
  });
});
