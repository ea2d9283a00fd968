// MultiBinary actions end to end: a gymnasium env whose actions are bits (RlxBits-v0, "light
// the bits the observation asks for", test/fixtures/python/rlx_bits_envs.py) trains with PPO
// (and REINFORCE with RLOO's baseline) through its Bernoulli-per-bit head, well above chance in
// a short run, and its recorded episodes hold the bits; DQN and SAC, which have
// no policy over bits, are refused when training starts, naming the env and what fits.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { readRollout } from '../../../runtime/run/reader.js';
import { train } from '../../../runtime/train.js';
import { isInputError } from '../../../shared/input-error.js';
import { testPython, withTestPython } from '../../helpers/python.js';
import { repoRoot } from '../../helpers/repo.js';
import { makePlan, tempDir, ZOO_PPO } from '../helpers.js';

const python = testPython();
const skip = python === null ? 'python3 with numpy is not available' : false;

const BITS_ENV = { id: 'RlxBits-v0', max_steps: 0, imports: ['rlx_bits_envs'], python: '', env_timeout: 30, copies_per_process: 8 };


describe('MultiBinary actions of a gymnasium env', { skip }, () => {
  it('PPO learns to light the bits the observation asks for, well above chance', async () => {
    const plan = makePlan({ env: 'gymnasium', envParams: BITS_ENV, budget: 16384, envs: 8, algorithmParams: ZOO_PPO });
    const result = await withTestPython(() => train(plan, { out: tempDir(), compute: { threads: false } }));
    assert.equal(result.status, 'finished');
    // 8 steps of 4 bits, a reward of the fraction right per step: guessing returns 4, copying 8.
    const mean = result.metrics['train/mean_return']!;
    assert.ok(mean > 6.5, `mean return over the last episodes ${mean}, expected > 6.5 (chance: 4)`);
    // The recorded episodes say what the actions are, and hold each step's bits.
    const files = fs.readdirSync(path.join(result.runDir, 'rollouts')).filter((f) => f.endsWith('.jsonl'));
    assert.ok(files.length > 0, 'episodes were recorded');
    const recorded = readRollout(path.join(result.runDir, 'rollouts', files[0]!));
    assert.ok(recorded.kind === 'episode');
    assert.deepEqual(recorded.header?.action, { kind: 'multibinary', n: 4 });
    assert.ok(recorded.steps.length === 8 && recorded.steps.every((s) => Array.isArray(s.action) && s.action.length === 4 && s.action.every((b) => b === 0 || b === 1)));
    // rlx eval acts with the exported policy (its logits, one per bit): the most likely bits.
    const cli = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), 'eval', result.runDir, '--episodes', '4'], { encoding: 'utf8', env: { ...python!.env, RLX_PYTHON: python!.python }, timeout: 120_000 });
    assert.equal(cli.status, 0, cli.stderr);
    const evaluated = Number(/^mean return ([\d.]+)/.exec(cli.stdout)?.[1]);
    assert.ok(evaluated > 6.5, `rlx eval: ${cli.stdout}`);
  });

  it('REINFORCE with a leave-one-out baseline (RLOO) learns it too', async () => {
    const params = { learning_rate: 3e-3, baseline: 'leave_one_out', episodes_per_update: 16 };
    const plan = makePlan({ env: 'gymnasium', envParams: BITS_ENV, budget: 16384, envs: 8, algorithm: 'REINFORCE', algorithmParams: params });
    const result = await withTestPython(() => train(plan, { out: tempDir(), compute: { threads: false } }));
    assert.equal(result.status, 'finished');
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
