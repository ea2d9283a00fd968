// The shipped numeric learner module learns: examples/learners/pendulum-td3.rlx (TD3 from
// examples/learners/td3.ts) cut to 8k steps on 64-wide layers. The eval at step 1000, before the
// first update (learning_starts: 1000), is the untrained actor's; the eval after 8k must be far
// above it. Measured (2 busy cores, about 10 s): seed 1 -1214 -> -198, seed 4 -1247 -> -155
// (at 6k steps seeds 1-4 ended at -262, -155, -372, -512: 8k leaves a margin).
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { analyze, compile, Workspace } from '../../../dsl/index.js';
import { diskHost } from '../../../cli/files.js';
import { readEvents } from '../../../runtime/run/events.js';
import { train } from '../../../runtime/train.js';
import { examplesDir } from '../../helpers/repo.js';
import { tempDir } from '../helpers.js';

test('TD3 as a learner module lifts Pendulum\'s eval return from the untrained actor\'s (about -1200) above -600 in 8k steps', { timeout: 300_000 }, async (t) => {
  const entry = path.join(examplesDir(), 'learners', 'pendulum-td3.rlx');
  const result = compile(analyze(new Workspace(diskHost), [entry]), entry);
  assert.ok(result.ok, JSON.stringify(result));
  const [plan] = result.plans.first(1);
  const stage = plan!.stages[0]!;
  assert.equal(stage.algorithm.kind, 'module');
  assert.equal(stage.algorithm.params.learning_starts, 1000);
  stage.budget = 8000;
  plan!.policy.params.hidden = [64, 64];
  plan!.eval = { ...plan!.eval!, every: 1000 };
  const run = await train(plan!, { out: tempDir(), baseDir: path.dirname(entry) });
  const evals = readEvents(path.join(run.runDir, 'events.jsonl')).filter((e) => e.type === 'eval');
  const untrained = evals[0]!;
  assert.equal(untrained.step, 1000);
  const before = untrained.values['eval/mean_return']!;
  const after = evals[evals.length - 1]!.values['eval/mean_return']!;
  t.diagnostic(`eval return ${before.toFixed(0)} untrained (step 1000), ${after.toFixed(0)} after 8k steps`);
  assert.ok(before < -900, `the untrained actor's eval return is ${before}`);
  assert.ok(after > -600, `eval return ${before} untrained -> ${after} after 8k steps of TD3`);
});
