// Per-token statistics of the sampling distribution (runtime/lm/token-statistics.ts) and what
// reads them: GRPO's entropy_top_fraction (token-weights.ts, Wang et al. 2025) and the
// intrinsic rewards self_certainty, neg_entropy, logprob (rewards/intrinsic-rewards.ts).
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { grpoLearnerConfig } from '../../../../runtime/algorithms/grpo/grpo.js';
import { grpoSettings } from '../../../../runtime/algorithms/grpo/settings.js';
import { TextPolicyGradient } from '../../../../runtime/algorithms/text/policy-gradient.js';
import { selectHighEntropyTokens, tokenWeights } from '../../../../runtime/algorithms/text/token-weights.js';
import { MASKED } from '../../../../runtime/lm/model.js';
import { SampledTokenStatistics, tokenStatistics } from '../../../../runtime/lm/token-statistics.js';
import { makeTokenModel } from '../../../../runtime/policies/index.js';
import { PretrainedPolicy } from '../../../../runtime/policies/pretrained.js';
import { completionLength } from '../../../../runtime/policies/transformer/layout.js';
import { decode, type DecodeStep } from '../../../../runtime/policies/transformer/sampling.js';
import { compileReward, RewardError } from '../../../../runtime/rewards/index.js';
import { DialogueEnvironment } from '../../../../runtime/text/dialogue-env.js';
import { TextEnvironment } from '../../../../runtime/text/env.js';
import { GuessNumber } from '../../../../runtime/text/guess-number.js';
import type { Rollouts, TokenRows } from '../../../../runtime/text/text-env.js';
import { EOS, PAD } from '../../../../runtime/policies/transformer/char-tokenizer.js';
import { Rng } from '../../../../shared/random.js';
import { makePlan } from '../../helpers.js';
import { TWO_ROWS } from './token-rows.js';
import { repoRoot } from '../../../helpers/repo.js';

const close = (a: number, b: number, tol = 1e-9) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(b));

test('token statistics: entropy, self-certainty KL(U || p) = -log V - mean log p, and the token\'s log p, at the sampling temperature', () => {
  // p = (1/2, 1/4, 1/4): H = 1/2 ln 2 + 1/2 ln 4 = 1.5 ln 2; mean ln p = -(ln 2 + 2 ln 4) / 3 = -5/3 ln 2.
  const logits = Float32Array.of(9, 9, Math.log(2), 0, 0); // the distribution starts at offset 2
  const expected = { entropy: 1.5 * Math.LN2, selfCertainty: -Math.log(3) + (5 / 3) * Math.LN2, logProb: -2 * Math.LN2 };
  const s = tokenStatistics(logits, 2, 3, 1, 1);
  assert.ok(close(s.entropy, expected.entropy, 1e-6) && close(s.selfCertainty, expected.selfCertainty, 1e-6) && close(s.logProb, expected.logProb, 1e-6), JSON.stringify(s));
  // Temperature 2 over doubled logits is the same distribution.
  const doubled = Float32Array.of(9, 9, 2 * Math.log(2), 0, 0);
  const t = tokenStatistics(doubled, 2, 3, 2, 1);
  assert.ok(close(t.entropy, expected.entropy, 1e-6) && close(t.selfCertainty, expected.selfCertainty, 1e-6), JSON.stringify(t));
  // A uniform distribution: entropy log V, self-certainty 0.
  const u = tokenStatistics(Float32Array.of(3, 3, 3, 3), 0, 4, 0.7, 0);
  assert.ok(close(u.entropy, Math.log(4)) && close(u.selfCertainty, 0) && close(u.logProb, -Math.log(4)));
  // Masked tokens (the character transformer's <pad> and <bos>: MASKED, or -Infinity) are outside the vocabulary.
  const masked = tokenStatistics(Float32Array.of(MASKED, Math.log(2), 0, -Infinity, 0), 0, 5, 1, 2);
  assert.ok(close(masked.entropy, expected.entropy, 1e-6) && close(masked.selfCertainty, expected.selfCertainty, 1e-6) && close(masked.logProb, expected.logProb, 1e-6), JSON.stringify(masked));
});

test('decoding with statistics writes the same tokens, and records each written token at its slot (not the cut last slot)', async () => {
  const vocab = 6;
  const rows = 3;
  const width = 2;
  const newTokens = 4;
  // Logits that depend on the row and position, with EOS likely for row 2 and never PAD or BOS (ids 0 and 1).
  const logit = (i: number, t: number) => (i % vocab < 2 ? -50 : Math.sin(1.3 * i + 0.7 * t) * 2 + (i % vocab === EOS && i >= 2 * vocab ? 3 : 0));
  const step: DecodeStep = (_tokens, t) => Float32Array.from({ length: rows * vocab }, (_, i) => logit(i, t));
  const prompts = Int32Array.from({ length: rows * width }, (_, i) => 2 + (i % 3));
  const plain = await decode(step, vocab, prompts, rows, width, newTokens, { temperature: 0.8, greedy: false, rng: new Rng(7) });
  const statistics = new SampledTokenStatistics(rows, newTokens);
  const withStats = await decode(step, vocab, prompts, rows, width, newTokens, { temperature: 0.8, greedy: false, rng: new Rng(7), statistics });
  assert.deepEqual([...withStats], [...plain]);
  let cut = 0;
  for (let r = 0; r < rows; r++) {
    const length = completionLength(withStats, r * newTokens, newTokens); // up to and including EOS
    if (length === newTokens - 1 && withStats[r * newTokens + length] === PAD) cut++;
    for (let k = 0; k < newTokens; k++) {
      const i = r * newTokens + k;
      assert.equal(statistics.recorded[i], k < length ? 1 : 0, `row ${r}, slot ${k} (length ${length})`);
      if (k < length) assert.ok(statistics.entropy[i]! > 0 && statistics.entropy[i]! < Math.log(vocab) && statistics.logProb[i]! < 0);
    }
  }
  assert.ok(cut > 0, 'some row ran to the last slot and was cut there');
});

/** TWO_ROWS with their sampling entropies. */
const batch: TokenRows & Pick<Rollouts, 'tokenEntropy'> = {
  ...TWO_ROWS,
  tokenEntropy: Float32Array.of(9, 0.1, 0.9, 9, 0.5, 1.2, 0.3, 9), // unlearned positions are high: they must not count
};

test('entropy_top_fraction: the top of the batch\'s learned tokens by entropy keep their weight, renormalised as the loss averages', () => {
  const top = selectHighEntropyTokens(batch, 0.4); // ceil(0.4 * 5) = 2 tokens: 1.2 and 0.9
  assert.ok(close(top.threshold, 0.9, 1e-6), `threshold ${top.threshold}`);
  assert.equal(top.keptFraction, 0.4);
  const expect = (weights: Float32Array, expected: number[]) => [...weights].forEach((w, i) => assert.ok(close(w, expected[i]!, 1e-6), `[${i}]: ${w} vs ${expected[i]}`));
  // sequence: each row's kept tokens averaged (1 each), then the 2 rows; token: the 2 kept tokens.
  expect(tokenWeights(top.rows, 'sequence', 6), [0, 0, 1 / 2, 0, 0, 1 / 2, 0, 0]);
  expect(tokenWeights(top.rows, 'token', 6), [0, 0, 1 / 2, 0, 0, 1 / 2, 0, 0]);
  expect(tokenWeights(top.rows, 'constant', 6), [0, 0, 1 / 12, 0, 0, 1 / 12, 0, 0]);
  const most = selectHighEntropyTokens(batch, 0.7); // ceil(3.5) = 4: all but 0.1
  expect(tokenWeights(most.rows, 'sequence', 6), [0, 0, 1 / 2, 0, 1 / 6, 1 / 6, 1 / 6, 0]);
  assert.deepEqual([...selectHighEntropyTokens(batch, 1).rows.mask], [...batch.mask], 'the whole fraction keeps every learned token');
  assert.throws(() => selectHighEntropyTokens({ ...batch, tokenEntropy: undefined }, 0.2), /entropy_top_fraction: these rollouts carry no per-token sampling entropy/);
});

test('GRPO passes entropy_top_fraction on to the learner (1 by default: every token)', () => {
  assert.equal(grpoLearnerConfig(grpoSettings({})).entropyTopFraction, 1);
  assert.equal(grpoLearnerConfig(grpoSettings({ entropy_top_fraction: 0.2 })).entropyTopFraction, 0.2);
  assert.throws(() => grpoSettings({ entropy_top_fraction: 0 }), /entropy_top_fraction/);
});

/** A TextTask on two-digit addition with reward `terms`, a 1-layer transformer, and a GRPO learner with `params`. */
async function learner(params: Record<string, unknown>, terms: { name: string; ref: string }[]) {
  const plan = makePlan({
    env: 'TextTask',
    envParams: { task: { kind: 'addition', digits: 2 }, max_tokens: 4 },
    algorithm: 'GRPO',
    reward: { name: 'R', replace_env_reward: true, terms: terms.map((t) => ({ name: t.name, expr: { ref: t.ref } })) },
  });
  const env = TextEnvironment.fromPlan(plan);
  const model = makeTokenModel({ name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 32, heads: 2, context: 16 } }, env.tokenizer, new Rng(3));
  const config = grpoLearnerConfig(grpoSettings({ group_size: 8, prompts_per_update: 8, kl_coef: 0, ...params }));
  const algorithm = await TextPolicyGradient.create({ model, env, budget: 100_000, rng: new Rng(4), compute: { providers: ['cpu'] } }, config);
  return { env, model, algorithm };
}

test('entropy_top_fraction in the learner: the loss weighs the kept fraction of tokens, and train/entropy_threshold says where the cut was', async () => {
  const { algorithm } = await learner({ entropy_top_fraction: 0.2 }, [{ name: 'certainty', ref: 'self_certainty' }]);
  const metrics = await algorithm.iterate();
  const kept = metrics['train/entropy_kept_fraction']!;
  assert.ok(kept >= 0.2 && kept < 0.3, `kept ${kept}`);
  assert.ok(metrics['train/entropy_threshold']! > 0, `threshold ${metrics['train/entropy_threshold']}`);
  await algorithm.release();
  const plain = await learner({}, [{ name: 'certainty', ref: 'self_certainty' }]);
  const plainMetrics = await plain.algorithm.iterate();
  assert.ok(!('train/entropy_threshold' in plainMetrics), 'plain GRPO logs what it did before');
  // The same batch (same seeds), weighed differently: with one step per batch the policy loss is -sum_t w_t A_t.
  assert.equal(plainMetrics['rewards/certainty'], metrics['rewards/certainty']);
  assert.ok(Math.abs(plainMetrics['losses/policy_loss']! - metrics['losses/policy_loss']!) > 1e-6, `policy loss ${plainMetrics['losses/policy_loss']} vs ${metrics['losses/policy_loss']}`);
  await plain.algorithm.release();
});

test('a task whose reward reads no intrinsic name records no statistics unless asked: sampling does what it did', async () => {
  const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2 }, max_tokens: 4 }, algorithm: 'GRPO' });
  const env = TextEnvironment.fromPlan(plan);
  const model = makeTokenModel({ name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 16, heads: 2, context: 16 } }, env.tokenizer, new Rng(3));
  const options = { groups: 2, groupSize: 4, startRng: new Rng(1), sampleRng: new Rng(2), temperature: 1 };
  const plain = await env.rollouts(model, options);
  assert.equal(plain.tokenEntropy, undefined);
  const asked = await env.rollouts(model, { ...options, startRng: new Rng(1), sampleRng: new Rng(2), tokenStatistics: true });
  assert.deepEqual([...asked.targets], [...plain.targets], 'the same tokens');
  assert.ok(asked.tokenEntropy!.some((h) => h > 0));
});

test('intrinsic rewards: a completion\'s terms are the means of its tokens\' sampling statistics', async () => {
  const { env, model, algorithm } = await learner({}, [{ name: 'sc', ref: 'self_certainty' }, { name: 'ne', ref: 'neg_entropy' }, { name: 'lp', ref: 'logprob' }]);
  const batch = await env.rollouts(model, { groups: 2, groupSize: 4, startRng: new Rng(1), sampleRng: new Rng(2), temperature: 1 });
  for (const [r, sample] of batch.samples.entries()) {
    const { sc, ne, lp } = sample.terms!;
    // The mean entropy of the row's learned tokens, from the per-position entropies the learner reads.
    let sum = 0;
    for (let i = r * batch.width; i < (r + 1) * batch.width; i++) sum += batch.mask[i]! * batch.tokenEntropy![i]!;
    assert.ok(close(ne!, -sum / batch.perRow[r]!, 1e-6), `row ${r}: neg_entropy ${ne} vs ${-sum / batch.perRow[r]!}`);
    assert.ok(sc! > 0 && lp! < 0 && lp! >= -Math.log(env.tokenizer.size) * 3, `row ${r}: ${JSON.stringify(sample.terms)}`);
    assert.ok(close(sample.reward, sc! + ne! + lp!, 1e-9));
  }
  await algorithm.release();
});

test('a reward of only self_certainty sharpens the policy: its sampled tokens\' entropy falls over 40 updates', async () => {
  const { env, model, algorithm } = await learner({ learning_rate: 3e-3 }, [{ name: 'certainty', ref: 'self_certainty' }]);
  const meanEntropy = async () => {
    const batch = await env.rollouts(model, { groups: 16, groupSize: 8, startRng: new Rng(11), sampleRng: new Rng(12), temperature: 1 });
    let sum = 0;
    for (let i = 0; i < batch.mask.length; i++) sum += batch.mask[i]! * batch.tokenEntropy![i]!;
    return sum / batch.tokenCount;
  };
  const before = await meanEntropy();
  const rewards: number[] = [];
  for (let k = 0; k < 40; k++) rewards.push((await algorithm.iterate())['rewards/certainty']!);
  const after = await meanEntropy();
  assert.ok(after < 0.8 * before, `mean token entropy ${before} -> ${after}`);
  assert.ok(rewards.at(-1)! > rewards[0]!, `self-certainty ${rewards[0]} -> ${rewards.at(-1)}`);
  await algorithm.release();
});

test('intrinsic rewards are refused where there are no sampled tokens (a numeric env) and on dialogues, saying why', () => {
  const reward = { name: 'R', replace_env_reward: true, terms: [{ name: 'sc', expr: { ref: 'self_certainty' } }] };
  assert.throws(() => compileReward(reward, { kind: 'CartPole', obsFields: ['x'], actionSpace: { kind: 'discrete', n: 2 } }),
    (err: unknown) => err instanceof RewardError && /reward R, term sc: "self_certainty" is an intrinsic reward of a text task's completion .*CartPole samples no text/.test(err.message));
  assert.throws(() => compileReward({ ...reward, terms: [{ name: 'ne', expr: { ref: 'neg_entropy' } }] }, { kind: 'GuessNumber', obsFields: [], actionSpace: { kind: 'discrete', n: 1 }, text: true, dialogue: true }),
    /"neg_entropy" .*GuessNumber is a dialogue: only single-turn TextTask has it/);
});

test('a dialogue\'s rollouts carry each agent token\'s sampling entropy at the position that learns it, and nowhere else', async () => {
  const env = new DialogueEnvironment(new GuessNumber(1, 20, 3), 'GuessNumber');
  const model = makeTokenModel({ name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 16, heads: 2, context: 64 } }, env.tokenizer, new Rng(3));
  const options = { groups: 2, groupSize: 3, startRng: new Rng(1), sampleRng: new Rng(2), temperature: 1 };
  assert.equal((await env.rollouts(model, options)).tokenEntropy, undefined, 'only where asked (GRPO asks with entropy_top_fraction < 1)');
  const batch = await env.rollouts(model, { ...options, tokenStatistics: true });
  const H = batch.tokenEntropy!;
  assert.ok(batch.tokenCount > 0);
  for (let i = 0; i < H.length; i++) {
    if (batch.mask[i]) assert.ok(H[i]! > 0 && H[i]! <= Math.log(env.tokenizer.size), `learned position ${i}: ${H[i]}`);
    else assert.equal(H[i], 0, `position ${i} is not learned`);
  }
  // The weights of a top fraction are then as on a single-turn task.
  assert.ok(selectHighEntropyTokens(batch, 0.5).rows.tokenCount >= Math.ceil(batch.tokenCount / 2));
});

test('a pretrained model\'s rollouts: each completion token\'s entropy at the position that learns it, and the intrinsic terms their means', async () => {
  const plan = makePlan({
    env: 'TextTask',
    envParams: { task: { kind: 'addition', digits: 2 }, max_tokens: 4 },
    algorithm: 'GRPO',
    reward: { name: 'R', replace_env_reward: true, terms: [{ name: 'ne', expr: { ref: 'neg_entropy' } }] },
  });
  const env = TextEnvironment.fromPlan(plan);
  const policy = PretrainedPolicy.load({ folder: path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2') }, new Rng(1));
  const batch = await env.rollouts(policy, { groups: 2, groupSize: 3, startRng: new Rng(1), sampleRng: new Rng(2), temperature: 1 });
  const H = batch.tokenEntropy!;
  for (let r = 0; r < batch.rows; r++) {
    let sum = 0;
    for (let i = r * batch.width; i < (r + 1) * batch.width; i++) {
      if (batch.mask[i]) assert.ok(H[i]! > 0, `row ${r}, learned position ${i}`);
      else assert.equal(H[i], 0, `row ${r}, position ${i} is not learned`);
      sum += H[i]!;
    }
    assert.ok(close(batch.samples[r]!.terms!.ne!, -sum / batch.perRow[r]!, 1e-5), `row ${r}: ${batch.samples[r]!.terms!.ne} vs ${-sum / batch.perRow[r]!}`);
  }
  await policy.release();
});
