// examples/python-text-rooms.rlx end to end, shortened: the room-and-objects game of
// examples/python/rooms.py (a python_text env) trains as `rlx train` reads it: SFT on the class's
// expert lifts held-out success far above an untrained model's, GRPO then runs on the same
// weights with the info term of the example's reward, and `rlx eval` opens the run's env again
// from the file the run recorded. No Python worker is left behind.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { planFile } from '../../../cli/commands/plan.js';
import { readEvents } from '../../../runtime/run/events.js';
import { train } from '../../../runtime/train.js';
import { TextWorkload } from '../../../runtime/trainer/text-workload.js';
import { pythonWorkers, testPython, withTestPython } from '../../helpers/python.js';
import { repoRoot } from '../../helpers/repo.js';
import { tempDir } from '../helpers.js';

const python = testPython();
const skip = python === null ? 'python3 with numpy is not available' : false;

describe('examples/python-text-rooms.rlx', { skip }, () => {
  it('SFT on the expert, then GRPO: held-out success far above an untrained model\'s; rlx eval reruns it', { timeout: 600_000 }, async () => {
    const before = pythonWorkers();
    const examples = path.join(repoRoot(), 'examples');
    await withTestPython(async () => {
      const [plan] = planFile(path.join(examples, 'python-text-rooms.rlx'));
      assert.equal(plan.env.kind, 'python_text');
      // Shortened: the example's SFT (200 updates) reaches 100% held-out success; 140 suffice here.
      plan.stages[0]!.algorithm.params = { ...plan.stages[0]!.algorithm.params, updates: 140 };
      plan.stages[1]!.budget = 192;
      const untrained = TextWorkload.create(plan, 1, { baseDir: examples });
      const start = (await untrained.evaluate()).values['eval/success']!;
      await untrained.release();

      const result = await train(plan, { out: tempDir(), baseDir: examples, compute: { threads: false } });
      assert.equal(result.status, 'finished');
      const events = readEvents(path.join(result.runDir, 'events.jsonl'));
      const evals = events.filter((e) => e.type === 'eval');
      const warm = (evals[0]!.values as Record<string, number>)['eval/success']!;
      const last = result.metrics['eval/success']!;
      assert.ok(warm >= start + 0.5 && last >= start + 0.5, `held-out success: untrained ${start}, after SFT ${warm}, at the end ${last}`);
      // GRPO's batches logged the info term of the example's reward (0.02 * info.has_key a turn).
      const grpo = events.filter((e) => e.type === 'metrics' && e.stage === 'main');
      assert.ok(grpo.some((e) => (((e as { values?: Record<string, number> }).values ?? {})['rewards/key'] ?? 0) > 0), 'rewards/key is logged and positive');

      const evaluated = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), 'eval', result.runDir, '--json'], { encoding: 'utf8', cwd: tempDir(), env: { ...python!.env, RLX_PYTHON: python!.python }, timeout: 120_000 });
      assert.equal(evaluated.status, 0, evaluated.stderr);
      assert.equal(JSON.parse(evaluated.stdout)['eval/success'], last);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(pythonWorkers().filter((pid) => !before.includes(pid)), [], 'workers still running after the run');
  });
});
