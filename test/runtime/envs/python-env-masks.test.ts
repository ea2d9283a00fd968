// Action masks from Gymnasium envs (test/fixtures/python/rlx_mask_envs.py): info["action_mask"]
// (booleans) and sb3-contrib's action_masks() method reach the trainer through the worker, so
// PPO, DQN and SAC trained on a strict env (an illegal action raises in Python) finish, while
// the same run with action_mask: off fails; bad masks stop the run with the env, copy and step.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { train } from '../../../runtime/train.js';
import { testPython, withTestPython } from '../../helpers/python.js';
import { makePlan, tempDir } from '../helpers.js';

const python = testPython();
const skip = python === null ? 'python3 with numpy is not available' : false;

const env = (id: string, kwargs: Record<string, unknown>) => ({ id, max_steps: 0, imports: ['rlx_mask_envs'], python: '', env_timeout: 30, copies_per_process: 4, kwargs });

const SETTINGS = {
  PPO: { rollout_steps: 32 },
  DQN: { learning_starts: 64, batch_size: 16, train_every: 4, target_update: 50 },
  SAC: { learning_starts: 64, batch_size: 16 },
} as const;

function run(algorithm: keyof typeof SETTINGS, kwargs: Record<string, unknown>, extra: Record<string, unknown> = {}, id = 'RlxSlots-v0') {
  const plan = makePlan({ env: 'gymnasium', envParams: env(id, kwargs), budget: 512, envs: 4, algorithm, algorithmParams: { ...SETTINGS[algorithm], ...extra } });
  return withTestPython(() => train(plan, { out: tempDir(), compute: { threads: false } }));
}

describe('action masks of gymnasium envs', { skip }, () => {
  for (const algorithm of ['PPO', 'DQN', 'SAC'] as const) {
    it(`${algorithm} never takes an illegal action of a strict env (info["action_mask"]); with action_mask: off it does`, async () => {
      const result = await run(algorithm, { strict: true });
      assert.equal(result.status, 'finished');
      await assert.rejects(run(algorithm, { strict: true }, { action_mask: 'off' }), /illegal action \d: slot taken/);
    });
  }

  it('reads the mask from an action_masks() method where the infos have none (sb3-contrib\'s convention)', async () => {
    const result = await run('PPO', { strict: true, source: 'method' });
    assert.equal(result.status, 'finished');
  });

  const faults: [string, RegExp][] = [
    ['length', /the action mask from step\(\) has 2 values, but the action space has 3 actions/],
    ['values', /env E copy \d: the action mask from step\(\) \(step 2 of its episode\) has 2 at action 1; each value must be 1 \(legal\) or 0 \(illegal\)/],
    ['empty', /env E copy \d: the action mask from step\(\) \(step 2 of its episode\) allows no action, but the episode goes on/],
    ['missing', /step\(\) returned an info without 'action_mask'; an env that gives action masks gives one at every reset\(\) and step\(\)/],
  ];
  for (const [fault, message] of faults) {
    it(`a bad mask (${fault}) stops the run, saying what is wrong and where`, async () => {
      await assert.rejects(run('PPO', { fault }, {}, 'RlxBadMask-v0'), message);
    });
  }
});
