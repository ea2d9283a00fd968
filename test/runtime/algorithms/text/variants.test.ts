// The steps of the text policy-gradient learner (runtime/algorithms/text/) that GRPO's declared
// variants change, each against its formula on a hand-made batch, and GRPO's wiring of every
// variant setting into the learner's config (a setting read but not passed on fails here).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { grpoLearnerConfig } from '../../../../runtime/algorithms/grpo/grpo.js';
import { grpoSettings } from '../../../../runtime/algorithms/grpo/settings.js';
import { zeroAdvantageGroups } from '../../../../runtime/algorithms/text/filter.js';
import { broadcastAdvantages, creditedAdvantages } from '../../../../runtime/algorithms/text/turn-credit.js';
import { foldKlIntoRewards } from '../../../../runtime/algorithms/text/kl.js';
import { tokenWeights } from '../../../../runtime/algorithms/text/token-weights.js';
import type { Rollouts } from '../../../../runtime/text/text-env.js';
import { readEvents } from '../../../../runtime/run/events.js';
import { train } from '../../../../runtime/train.js';
import { makePlan, tempDir } from '../../helpers.js';
import { TWO_ROWS } from './token-rows.js';

const close = (a: number, b: number, tol = 1e-6) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(b));

const batch = TWO_ROWS;

test('token weights: sequence 1/(B|o_i|), token 1/sum|o|, constant 1/(B L) (Dr. GRPO), sum 1/B, on learned tokens only', () => {
  const expect = (weights: Float32Array, row0: number, row1: number) =>
    [...weights].forEach((w, i) => assert.ok(close(w, batch.mask[i]! * (i < 4 ? row0 : row1)), `[${i}]: ${w}`));
  expect(tokenWeights(batch, 'sequence', 6), 1 / 4, 1 / 6);
  expect(tokenWeights(batch, 'token', 6), 1 / 5, 1 / 5);
  expect(tokenWeights(batch, 'constant', 6), 1 / 12, 1 / 12);
  expect(tokenWeights(batch, 'sum', 6), 1 / 2, 1 / 2);
});

test('kl_in_reward: each reward less kl_coef times the sum over its learned tokens of the estimator', () => {
  const logp = Float32Array.of(9, -1, -2, 9, -0.5, -1, -3, 9);
  const ref = Float32Array.of(0, -1.5, -1, 0, -0.5, -2, -2, 0); // masked-out positions are far off: they must not count
  const x = [-0.5, 1, 0, -1, 1]; // log pi_ref - log pi on the learned tokens
  for (const [estimator, f] of [['k1', (v: number) => -v], ['k2', (v: number) => (v * v) / 2], ['k3', (v: number) => Math.exp(v) - v - 1]] as const) {
    const rewards = Float64Array.of(1, 0);
    const { tokenKl, penalty } = foldKlIntoRewards(rewards, logp, ref, batch.mask, 4, estimator, 0.1);
    const kl0 = f(x[0]!) + f(x[1]!);
    const kl1 = f(x[2]!) + f(x[3]!) + f(x[4]!);
    assert.ok(close(rewards[0]!, 1 - 0.1 * kl0) && close(rewards[1]!, -0.1 * kl1), `${estimator}: ${[...rewards]}`);
    assert.ok(close(tokenKl, (kl0 + kl1) / 5), `${estimator}: mean ${tokenKl}`);
    assert.ok(close(penalty, (0.1 * (kl0 + kl1)) / 2), `${estimator}: penalty ${penalty}`);
  }
});

test('filter: counts the groups whose advantages, as the loss is fed them, are all 0', () => {
  // credit episode: each sample's advantage on its 3 tokens, groups of 2 samples.
  assert.equal(zeroAdvantageGroups(broadcastAdvantages(Float32Array.of(0, 0, 1, -1, 0, 0), 3), 3, 2), 2);
  // REINFORCE's baseline none: equal rewards of 1 are advantages of 1, which teach.
  assert.equal(zeroAdvantageGroups(broadcastAdvantages(Float32Array.of(1, 1), 3), 3, 2), 0);
  // credit turn: two dialogues of two turns with the same return (1), earned at turn 0 by one and
  // at turn 1 by the other; their turn 1's returns-to-go (0 and 1) differ, so the group teaches.
  const tokenTurn = Int32Array.of(-1, 0, -1, 1, -1, 0, -1, 1);
  const batch = { rows: 2, width: 4, turnRewards: { maxTurns: 2, taken: Int32Array.of(2, 2), rewards: Float64Array.of(1, 0, 0, 1), tokenTurn } } as unknown as Rollouts;
  const credited = creditedAdvantages(batch, 2, new Float32Array(2), { baseline: 'mean', normalize: 'none' });
  assert.equal(zeroAdvantageGroups(credited.perToken, 4, 2), 0);
  assert.equal(zeroAdvantageGroups(new Float32Array(8), 4, 2), 1);
});

test('GRPO passes every variant setting on to the learner', () => {
  const config = (params: Record<string, unknown>) => grpoLearnerConfig(grpoSettings(params));
  const plain = config({});
  assert.deepEqual([plain.weighting, plain.klEstimator, plain.klInReward, plain.klCoef], ['sequence', 'k3', false, 0.04]);
  assert.equal(config({ loss: 'constant' }).weighting, 'constant');
  assert.equal(config({ kl_estimator: 'k1' }).klEstimator, 'k1');
  assert.equal(config({ kl_in_reward: true }).klInReward, true);
  assert.equal(config({ reference: 'none' }).klCoef, 0);
  const advantagesOf = (params: Record<string, unknown>) => {
    const out = new Float32Array(4);
    config(params).advantages(Float64Array.of(1, 0, 0, 0), 4, out);
    return [...out];
  };
  assert.ok(close(advantagesOf({ normalize: 'none' })[0]!, 0.75));
  assert.ok(close(advantagesOf({ normalize: 'none', baseline: 'leave_one_out' })[0]!, 1));
  assert.ok(close(advantagesOf({ normalize: 'max_abs' })[1]!, -1 / 3));
});

test('kl_in_reward: the learner takes the KL off the rewards, and says how much (train/kl_penalty)', async () => {
  const run = async (klInReward: boolean) => {
    const plan = makePlan({
      env: 'TextTask',
      envParams: { task: { kind: 'addition', digits: 2 }, max_tokens: 4 },
      algorithm: 'GRPO',
      algorithmParams: { group_size: 4, prompts_per_update: 4, learning_rate: 3e-3, kl_coef: 0.5, kl_in_reward: klInReward },
      budget: 64,
      reward: { name: 'R', replace_env_reward: true, terms: [{ name: 'one', expr: { call: 'regex', args: [{ ref: 'completion' }, { const: '^1' }] } }] },
    });
    plan.policy = { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 16, heads: 2, context: 16 } };
    const result = await train(plan, { out: tempDir() });
    return readEvents(`${result.runDir}/events.jsonl`).filter((e) => e.type === 'metrics').map((e) => e.values);
  };
  const folded = await run(true);
  assert.equal(folded.length, 4);
  assert.equal(folded[0]!['train/kl_penalty'], 0, 'the first batch is sampled by the reference itself');
  // k3 is never negative; once an update has moved the policy, the samples pay for it.
  assert.ok(folded.every((m) => m['train/kl_penalty']! >= 0) && folded.at(-1)!['train/kl_penalty']! > 0 && folded.at(-1)!['losses/kl']! > 0, `${folded.map((m) => m['train/kl_penalty'])}`);
  const asLoss = await run(false);
  assert.ok(asLoss.every((m) => !('train/kl_penalty' in m) && Number.isFinite(m['losses/kl'])));
});
