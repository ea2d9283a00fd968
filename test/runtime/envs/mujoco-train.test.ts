// examples/inverted-pendulum-ppo.rlx as written trains to its stop condition: PPO balances
// MuJoCo's InvertedPendulum (eval return 1000 of 1000) in about 40k steps, some 20 s on 2 cores;
// its reward reads the env's info.reward_survive, and `rlx eval`'s env copies of the run open.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { diskHost } from '../../../cli/files.js';
import { analyze, compile, Workspace } from '../../../dsl/index.js';
import { openRunEnvs } from '../../../runtime/envs/run-envs.js';
import { readEvents } from '../../../runtime/run/events.js';
import { train } from '../../../runtime/train.js';
import { examplesDir } from '../../helpers/repo.js';
import { tempDir } from '../helpers.js';

test('PPO balances InvertedPendulum (examples/inverted-pendulum-ppo.rlx) within its 100k budget', { timeout: 300_000 }, async (t) => {
  const entry = path.join(examplesDir(), 'inverted-pendulum-ppo.rlx');
  const result = compile(analyze(new Workspace(diskHost), [entry]), entry);
  assert.ok(result.ok, JSON.stringify(result));
  const [plan] = result.plans.first(1);
  const run = await train(plan!, { out: tempDir(), baseDir: path.dirname(entry) });
  const events = readEvents(path.join(run.runDir, 'events.jsonl'));
  const evals = events.filter((e) => e.type === 'eval').map((e) => e.values['eval/mean_return']!);
  t.diagnostic(`eval returns: ${evals.join(', ')}`);
  assert.ok(evals.at(-1)! >= 950, `last eval return ${evals.at(-1)}`);
  const metrics = events.filter((e) => e.type === 'metrics').at(-1)!.values;
  assert.ok(Object.keys(metrics).some((k) => k.includes('survive')), `the reward's terms are logged: ${Object.keys(metrics).join(', ')}`);
  assert.ok(fs.existsSync(path.join(run.runDir, 'plan.json')));
  const envs = await openRunEnvs(run.runDir, plan!, 2);
  assert.equal(envs.vec.kind, 'InvertedPendulum');
  assert.deepEqual(envs.vec.obsFields, ['slider', 'hinge', 'slider_vel', 'hinge_vel']);
  envs.close();
});
