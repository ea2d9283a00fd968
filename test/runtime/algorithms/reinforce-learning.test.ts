// REINFORCE must learn on the numeric envs (issue 15): a 10-armed bandit, where its policy
// must come to prefer the good arms, and CartPole, where a short run must lift the return far
// above a random policy's (about 22) and the exported policy must play as well under `rlx
// eval`'s evaluation. The full target (RLOO reaching a mean-20 return of 475 within 500k
// steps, seeds 1-3) is measured by bench/reinforce.ts.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { Reinforce } from '../../../runtime/algorithms/reinforce/reinforce.js';
import { reinforceSettings } from '../../../runtime/algorithms/reinforce/settings.js';
import { Stepper } from '../../../runtime/algorithms/stepper.js';
import type { Bandit } from '../../../runtime/envs/bandit.js';
import { makeVecEnv } from '../../../runtime/envs/registry.js';
import { evaluate, evalMetrics } from '../../../runtime/evaluate.js';
import { flatPolicySpaces, PolicyFactory } from '../../../runtime/policies/index.js';
import { OnnxPolicy } from '../../../runtime/policies/onnx-policy.js';
import { Rng } from '../../../shared/random.js';
import { train } from '../../../runtime/train.js';
import { makePlan, tempDir } from '../helpers.js';

describe('REINFORCE learns', () => {
  for (const seed of [1, 2, 3]) {
    it(`a 10-armed bandit in 2000 pulls: most of the way from chance to the best arm (seed ${seed})`, async () => {
      const vec = makeVecEnv('Bandit', { arms: 10 }, 4);
      const stepper = new Stepper(vec, null);
      stepper.reset(seed);
      const spaces = flatPolicySpaces(vec.obsDim, vec.actionSpace as { kind: 'discrete'; n: number });
      const rng = new Rng(seed);
      const factory = new PolicyFactory({ kind: 'mlp', name: 'p', params: {} }, spaces, rng.fork('policy'));
      const algorithm = await Reinforce.create({ policy: factory, stepper, budget: 2000, rng: rng.fork('REINFORCE'), compute: { providers: ['cpu'] } }, reinforceSettings({ baseline: 'leave_one_out' }));
      try {
        while (!algorithm.done) await algorithm.iterate();
        // The policy's expected reward, from its action probabilities and the arms' hidden means.
        const head = new Float32Array(10);
        algorithm.policy.actorForward(new Float32Array([1]), 1, head);
        const max = Math.max(...head);
        const weights = Array.from(head, (h) => Math.exp(h - max));
        const total = weights.reduce((a, b) => a + b, 0);
        const means = (vec.envs[0] as Bandit).getState();
        const expected = weights.reduce((sum, w, arm) => sum + (w / total) * means[arm], 0);
        const chance = means.reduce((a, b) => a + b, 0) / means.length;
        const best = Math.max(...means);
        assert.ok(expected > chance + 0.8 * (best - chance), `expected reward ${expected.toFixed(3)}; chance ${chance.toFixed(3)}, best arm ${best.toFixed(3)}`);
      } finally {
        await algorithm.release();
      }
    });
  }

  it('CartPole in 40k steps with RLOO, and its exported policy plays as well', async () => {
    const plan = makePlan({ algorithm: 'REINFORCE', algorithmParams: { baseline: 'leave_one_out' }, budget: 40_000, envs: 4, seeds: [1] });
    const result = await train(plan, { out: tempDir() });
    const meanReturn = result.metrics['train/mean_return'];
    assert.ok(meanReturn > 100, `mean return of the last 20 episodes after ${result.step} steps: ${meanReturn}`);
    // As `rlx eval` runs it: the ONNX export, greedy actions, env copies of its own.
    const vec = makeVecEnv('CartPole', {}, 4);
    const policy = await OnnxPolicy.load(path.join(result.runDir, 'checkpoints', 'policy-final.onnx'), flatPolicySpaces(4, { kind: 'discrete', n: 2 }));
    try {
      const evaluated = evalMetrics(await evaluate(policy, vec, 8, true, new Rng(1), 1, 1 << 30));
      assert.ok(evaluated['eval/mean_return'] > 100, `greedy evaluation of the exported policy: ${evaluated['eval/mean_return']}`);
    } finally {
      await policy.release();
    }
  });
});
