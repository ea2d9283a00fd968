// A NaN or an infinity fails the run where it first appears (an observation, the env's reward,
// a reward term, a loss), saying what, in which env copy and at which step, and the
// checkpoints written before it are kept: no later one is written (SB3's VecCheckNan).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import type { Plan } from '../../../dsl/compile/plan.js';
import { readEvents } from '../../../runtime/run/events.js';
import { RunFailedError, train, type TrainOptions } from '../../../runtime/train.js';
import { brokenCorridor, makePlan, tempDir } from '../helpers.js';

/** Trains `plan`, expecting a failure; returns the message and the run directory. */
async function failure(plan: Plan, options: TrainOptions = {}): Promise<{ message: string; dir: string; files: string[] }> {
  const out = tempDir();
  let failed: RunFailedError | undefined;
  await train(plan, { out, ...options }).catch((err: unknown) => {
    if (!(err instanceof RunFailedError)) throw err;
    failed = err;
  });
  assert.ok(failed, 'the run failed');
  const dir = failed.runDir;
  const status = JSON.parse(fs.readFileSync(path.join(dir, 'status.json'), 'utf8'));
  assert.deepEqual([status.status, status.error], ['failed', failed.message]);
  const last = readEvents(path.join(dir, 'events.jsonl')).at(-1)!;
  assert.deepEqual([last.type, (last as { error?: string }).error], ['status', failed.message]);
  return { message: failed.message, dir, files: fs.readdirSync(path.join(dir, 'checkpoints')).sort() };
}

/** The corridor of 20 cells (four copies) that starts returning `bad` for `what` from its `after`-th step on. */
function moduleEnv(what: 'obs' | 'reward', bad: string, after: number): { plan: Plan; envModule: string } {
  const { env, envModule } = brokenCorridor(what, bad, after);
  return { plan: { ...makePlan({ budget: 4096, envs: 4 }), env }, envModule };
}

describe('non-finite numbers', () => {
  it('an observation that turns NaN fails the run there, and keeps the checkpoints written before', async () => {
    const { plan, envModule } = moduleEnv('obs', 'NaN', 2500);
    const { message, files } = await failure(plan, { envModule, checkpointEvery: 1024 });
    assert.match(message, /^observation field x from the env's step\(\) is NaN in env copy \d, episode step \d+, after 24\d\d steps of training; the last good checkpoint is checkpoints\/state-2048\.json \(step 2048\)$/);
    assert.deepEqual(files, ['policy-1024.onnx', 'policy-2048.onnx', 'state-1024.json', 'state-2048.json'], 'no checkpoint after the NaN, no final policy');
  });

  it("an infinite reward from the env fails the run", async () => {
    const { plan, envModule } = moduleEnv('reward', 'Infinity', 10);
    const { message } = await failure(plan, { envModule });
    assert.match(message, /^the env's reward is Infinity in env copy \d, episode step \d+, after \d+ steps of training; no checkpoint was written before it$/);
  });

  it('a reward term that is not finite names the term', async () => {
    const plan = makePlan({
      reward: {
        name: 'R',
        replace_env_reward: false,
        terms: [
          { name: 'alive', expr: { const: 1 } },
          { name: 'broken', expr: { call: 'log', args: [{ op: '*', args: [{ const: 0 }, { ref: 'obs.x' }] }] } },
        ],
      },
    });
    const { message } = await failure(plan);
    assert.equal(message, 'reward term broken is -Infinity in env copy 0, episode step 1, after 0 steps of training; no checkpoint was written before it');
  });

  it('an update whose loss overflows fails the run instead of writing NaN weights', async () => {
    const plan = makePlan({ reward: { name: 'Huge', replace_env_reward: true, terms: [{ name: 'huge', expr: { const: 1e30 } }] } });
    const { message, files } = await failure(plan, { checkpointEvery: 512 });
    assert.match(message, /^PPO's update diverged: losses\/\w+ is (NaN|-?Infinity) \(update 1, epoch 1, gradient step 1 of this update\); try a smaller learning_rate or max_grad_norm, after 512 steps of training; no checkpoint was written before it$/);
    assert.deepEqual(files, []);
  });
});
