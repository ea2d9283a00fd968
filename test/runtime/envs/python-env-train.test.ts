// gymnasium("CartPole-v1") end to end: the .rlx example compiles to a plan of kind 'gymnasium',
// and PPO trains on the env in Python worker processes unchanged (a short run learns).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { openRunEnvs } from '../../../runtime/envs/run-envs.js';
import { readEvents } from '../../../runtime/run/events.js';
import { readRollout } from '../../../runtime/run/reader.js';
import { resume, train } from '../../../runtime/train.js';
import { testPython } from '../../helpers/python.js';
import { repoRoot } from '../../helpers/repo.js';
import { makePlan, tempDir, ZOO_PPO } from '../helpers.js';

const python = testPython();
const skip = python === null ? 'python3 with numpy is not available' : false;

describe('PPO on gymnasium("CartPole-v1")', { skip }, () => {
  it('learns in a short run, with the copies in two Python processes, opens for rlx eval, and leaves no worker behind', async () => {
    const previous = { PYTHONPATH: process.env.PYTHONPATH, RLX_PYTHON: process.env.RLX_PYTHON };
    process.env.PYTHONPATH = python!.env.PYTHONPATH;
    process.env.RLX_PYTHON = python!.python;
    const before = pythonWorkers();
    try {
      const plan = makePlan({
        env: 'gymnasium',
        envParams: { id: 'CartPole-v1', max_steps: 500, imports: [], python: '', env_timeout: 30, copies_per_process: 4 },
        budget: 8192, envs: 8, algorithmParams: ZOO_PPO,
      });
      const result = await train(plan, { out: tempDir(), compute: { threads: false } });
      assert.equal(result.status, 'finished');
      // A random policy lasts ~22 steps; rlx's own CartPole with these settings reaches ~100-200.
      const mean = result.metrics['train/mean_return']!;
      assert.ok(mean > 60, `mean return over the last episodes ${mean}, expected > 60 after 8k steps`);
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
      assert.match(cli.stdout, /^mean return [\d.]+ \+- [\d.]+ over 2 episodes .*\nrecorded an episode \(return \d+, \d+ steps\) in .*episode-8192-rlx-eval\.jsonl\n$/);
      const recorded = readRollout(path.join(result.runDir, 'rollouts', 'episode-8192-rlx-eval.jsonl'));
      assert.ok(recorded.kind === 'episode' && recorded.header?.env === 'E' && recorded.steps.length > 0);
    } finally {
      for (const [key, value] of Object.entries(previous)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
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

/** Runs `body` with the test Python as the one the trainer starts (RLX_PYTHON, PYTHONPATH). */
async function withTestPython(body: () => Promise<void>): Promise<void> {
  const previous = { PYTHONPATH: process.env.PYTHONPATH, RLX_PYTHON: process.env.RLX_PYTHON };
  process.env.PYTHONPATH = python!.env.PYTHONPATH;
  process.env.RLX_PYTHON = python!.python;
  try {
    await body();
  } finally {
    for (const [key, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

/** Lets ended workers be reaped. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

const newWorkers = (before: number[]) => pythonWorkers().filter((pid) => !before.includes(pid));

/** The pids of the running worker.py processes that are children of this process. */
function pythonWorkers(): number[] {
  return fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name)).filter((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return parent === process.pid && !/\) [ZX] /.test(stat) && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('worker.py');
    } catch {
      return false;
    }
  }).map(Number);
}
