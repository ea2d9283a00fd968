// The package's programmatic API, imported by its name as a user would (`exports` "." of
// package.json points at out/runtime/index.js).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { it } from 'node:test';

import { repoRoot } from '../helpers/repo.js';
import { makePlan, tempDir } from './helpers.js';

it("import { makeEnv, train } from 'rlx' works, makeEnv steps, train returns the run directory and metrics", () => {
  const out = tempDir();
  const script = `
    import { makeEnv, train, envKinds } from 'rlx';
    const env = makeEnv('CartPole', { max_steps: 3 });
    const first = env.reset(1);
    const step = env.step(1);
    const result = await train(${JSON.stringify(makePlan({ budget: 1024 }))}, { out: ${JSON.stringify(out)} });
    console.log(JSON.stringify({
      fields: env.obsFields, obs: first.obs.length, reward: step.reward, terminated: step.terminated, kinds: envKinds(),
      status: result.status, step: result.step, runDir: result.runDir, hasReturn: typeof result.metrics['train/mean_return'] === 'number',
    }));
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot(), encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  const got = JSON.parse(run.stdout.trim().split('\n').pop()!);
  assert.deepEqual(got.fields, ['x', 'x_dot', 'theta', 'theta_dot']);
  assert.equal(got.obs, 4);
  assert.equal(got.reward, 1);
  assert.equal(got.terminated, false);
  assert.ok(got.kinds.includes('Pendulum'));
  assert.equal(got.status, 'finished');
  assert.equal(got.step, 1024);
  assert.ok(got.runDir.startsWith(path.join(out, 'Test')));
  assert.equal(got.hasReturn, true);
});
