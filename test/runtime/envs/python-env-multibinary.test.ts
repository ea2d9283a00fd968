// MultiBinary actions end to end: a gymnasium env whose actions are bits (RlxBits-v0, "light
// the bits the observation asks for", test/fixtures/python/rlx_bits_envs.py) trains with PPO
// through its Bernoulli-per-bit head, well above chance in a short run; DQN and SAC, which have
// no policy over bits, are refused when training starts, naming the env and what fits.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { train } from '../../../runtime/train.js';
import { isInputError } from '../../../shared/input-error.js';
import { testPython } from '../../helpers/python.js';
import { makePlan, tempDir, ZOO_PPO } from '../helpers.js';

const python = testPython();
const skip = python === null ? 'python3 with numpy is not available' : false;

const BITS_ENV = { id: 'RlxBits-v0', max_steps: 0, imports: ['rlx_bits_envs'], python: '', env_timeout: 30, copies_per_process: 8 };

/** Runs `body` with the test Python as the one the trainer starts (RLX_PYTHON, PYTHONPATH). */
async function withTestPython<T>(body: () => Promise<T>): Promise<T> {
  const previous = { PYTHONPATH: process.env.PYTHONPATH, RLX_PYTHON: process.env.RLX_PYTHON };
  process.env.PYTHONPATH = python!.env.PYTHONPATH;
  process.env.RLX_PYTHON = python!.python;
  try {
    return await body();
  } finally {
    for (const [key, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

describe('MultiBinary actions of a gymnasium env', { skip }, () => {
  it('PPO learns to light the bits the observation asks for, well above chance', async () => {
    const plan = makePlan({ env: 'gymnasium', envParams: BITS_ENV, budget: 16384, envs: 8, algorithmParams: ZOO_PPO });
    const result = await withTestPython(() => train(plan, { out: tempDir(), compute: { threads: false } }));
    assert.equal(result.status, 'finished');
    // 8 steps of 4 bits, a reward of the fraction right per step: guessing returns 4, copying 8.
    const mean = result.metrics['train/mean_return']!;
    assert.ok(mean > 6.5, `mean return over the last episodes ${mean}, expected > 6.5 (chance: 4)`);
  });

  for (const algorithm of ['DQN', 'SAC']) {
    it(`${algorithm} is refused when training starts: it has no policy over bits`, async () => {
      const plan = makePlan({ env: 'gymnasium', envParams: BITS_ENV, budget: 256, envs: 2, algorithm });
      await assert.rejects(
        withTestPython(() => train(plan, { out: tempDir(), compute: { threads: false } })),
        (err: Error) => {
          assert.ok(isInputError(err), `a refusal, not ${err.name}: ${err.message}`);
          assert.match(err.message, new RegExp(`${algorithm} cannot train on E: it needs .* actions, and E has multibinary actions; algorithms that fit: PPO, REINFORCE`));
          return true;
        },
      );
    });
  }
});
