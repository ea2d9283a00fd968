// The segmented training step (runtime/lm/segmented-step.ts: micro-batches, recomputed blocks,
// the head over chunks of the tokens the loss reads) gives the one-graph step's loss, metrics
// and gradients, and the segmented log-prob pass the one-graph pass's log-probabilities, on the
// hf-tiny fixtures (Qwen2 tied with LoRA and full, GPT-2's learned positions and fused c_attn,
// Llama untied), with left-padded rows of mixed lengths.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { PretrainedPolicy } from '../../../runtime/policies/pretrained.js';
import type { LanguageModel } from '../../../runtime/policies/index.js';
import { buildGrpoLoss } from '../../../runtime/algorithms/text/policy-gradient-loss.js';
import { buildSftLoss } from '../../../runtime/algorithms/sft/loss.js';
import { buildLogProbs } from '../../../runtime/algorithms/text/tokens.js';
import { SegmentedLogProbs, SegmentedStep, type LogitsSource } from '../../../runtime/lm/segmented-step.js';
import { GradientStep, Session, type Feed } from '../../../runtime/tensor/index.js';
import { Rng } from '../../../shared/random.js';
import { repoRoot } from '../../helpers/repo.js';

const FIXTURES = path.join(repoRoot(), 'test/fixtures/hf-tiny');
const ALL_LINEAR = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];
const compute = { providers: ['cpu'] as const, opThreads: 1 };

/** A GRPO-shaped batch: 5 left-padded rows of 9 tokens, completions the last 2-5 positions, per-token advantages and weights. */
function batchFeeds(policy: PretrainedPolicy, seed: number): Record<string, Feed> {
  const rng = new Rng(seed);
  const [B, T] = [5, 9];
  const starts = Int32Array.from([0, 2, 1, 3, 0]);
  const completion = [4, 2, 5, 3, 3];
  const V = policy.lm.config.vocab;
  const tokens = new BigInt64Array(B * T);
  const targets = new BigInt64Array(B * T);
  const mask = new Float32Array(B * T);
  const advantages = new Float32Array(B * T);
  const weight = new Float32Array(B * T);
  const oldLogp = new Float32Array(B * T);
  let count = 0;
  for (let r = 0; r < B; r++) {
    const a = rng.normal();
    for (let t = 0; t < T; t++) {
      const i = r * T + t;
      tokens[i] = BigInt(t < starts[r]! ? policy.padId : Math.floor(rng.uniform() * V));
      targets[i] = BigInt(Math.floor(rng.uniform() * V));
      if (t >= T - completion[r]!) {
        mask[i] = 1;
        count++;
      }
      advantages[i] = mask[i]! * a;
      oldLogp[i] = -6 + rng.normal() * 0.1;
    }
  }
  for (let i = 0; i < B * T; i++) weight[i] = mask[i]! / count;
  return {
    tokens: { data: tokens, dims: [B, T] },
    targets: { data: targets, dims: [B, T] },
    mask: { data: mask, dims: [B, T] },
    advantages: { data: advantages, dims: [B, T] },
    old_logp: { data: oldLogp, dims: [B, T] },
    token_weight: { data: weight, dims: [B, T] },
    inv_tokens: Float32Array.of(1 / count),
    ratio_low: Float32Array.of(0.8),
    ratio_high: Float32Array.of(1.28),
    kl_coef: Float32Array.of(0),
    ent_coef: Float32Array.of(0.01),
    inv_temperature: Float32Array.of(1 / 0.7),
    ...policy.rowFeeds(starts, T),
  };
}

/** |a - b| within `tolerance` of the larger of 1e-3 and b's largest magnitude, element by element. */
function assertClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance: number, what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  let scale = 1e-3;
  for (let i = 0; i < expected.length; i++) scale = Math.max(scale, Math.abs(expected[i]!));
  for (let i = 0; i < expected.length; i++) {
    const gap = Math.abs(actual[i]! - expected[i]!);
    if (gap > tolerance * scale) assert.fail(`${what}[${i}]: ${actual[i]} against ${expected[i]} (gap ${gap}, scale ${scale})`);
  }
}

const cases = [
  { name: 'qwen2 with LoRA', folder: 'qwen2', lora: { rank: 4, alpha: 8, targets: ALL_LINEAR } },
  { name: 'qwen2, every weight', folder: 'qwen2' },
  { name: 'gpt2, every weight', folder: 'gpt2' },
  { name: 'llama with LoRA', folder: 'llama', lora: { rank: 2, alpha: 4, targets: ['q_proj', 'v_proj', 'down_proj'] } },
];

for (const c of cases) {
  test(`segmented GRPO step = the one-graph step (${c.name}): loss, metrics and every gradient within 1e-5, micro-batches of 2 rows, head chunks of 4 tokens`, async () => {
    const policy = PretrainedPolicy.load({ folder: path.join(FIXTURES, c.folder), ...(c.lora ? { lora: c.lora } : {}) }, new Rng(3));
    if (c.lora) {
      // Adapters start with B = 0: give them values, so that their gradients and the adapted path are not trivially zero.
      const rng = new Rng(9);
      for (const w of policy.weights.values) for (let i = 0; i < w.length; i++) w[i] = rng.normal() * 0.05;
    }
    const options = { oldFed: true, referenceFed: false } as const;
    const whole = buildGrpoLoss(policy, 'T', options);
    const reference = await GradientStep.create(whole.graph, [{ loss: whole.loss, weights: policy.weights.names, metrics: whole.metrics }], { weights: policy.weights, fed: policy.frozenWeights, compute, largeOps: true });
    const segmented = await SegmentedStep.create(policy.lm, (source: LogitsSource) => buildGrpoLoss(source as unknown as LanguageModel, 'T', options), ['mask', 'token_weight'], { microBatch: 2, headTokens: 4, compute });
    const feeds = batchFeeds(policy, 11);
    const expected = await reference.run(feeds);
    const expectedLoss = expected.loss;
    const expectedMetrics = Float64Array.from(expected.metrics);
    const expectedGrads = expected.grads.map((g) => g.slice());
    const actual = await segmented.run(feeds);
    assert.deepEqual(segmented.metricNames, reference.metricNames);
    assertClose([actual.loss], [expectedLoss], 1e-5, 'loss');
    assertClose(actual.metrics, expectedMetrics, 1e-5, 'metrics');
    assert.ok(expectedGrads.some((g) => g.some((v) => v !== 0)), 'the reference gradients are not all zero');
    policy.weights.names.forEach((name, i) => assertClose(actual.grads[i]!, expectedGrads[i]!, 1e-5, name));
    await reference.release();
    await segmented.release();
    await policy.release();
  });
}

test('segmented SFT step = the one-graph step (qwen2, every weight), one row per micro-batch, one token per head chunk', async () => {
  const policy = PretrainedPolicy.load({ folder: path.join(FIXTURES, 'qwen2') }, new Rng(3));
  const whole = buildSftLoss(policy, 'T');
  const reference = await GradientStep.create(whole.graph, [{ loss: whole.loss, weights: policy.weights.names, metrics: whole.metrics }], { weights: policy.weights, compute, largeOps: true });
  const segmented = await SegmentedStep.create(policy.lm, (source) => buildSftLoss(source as unknown as LanguageModel, 'T'), ['mask'], { microBatch: 1, headTokens: 1, compute });
  const feeds = batchFeeds(policy, 5);
  const expected = await reference.run(feeds);
  const [loss, metrics, grads] = [expected.loss, Float64Array.from(expected.metrics), expected.grads.map((g) => g.slice())];
  const actual = await segmented.run(feeds);
  assertClose([actual.loss], [loss], 1e-5, 'loss');
  assertClose(actual.metrics, metrics, 1e-5, 'token accuracy');
  policy.weights.names.forEach((name, i) => assertClose(actual.grads[i]!, grads[i]!, 1e-5, name));
  await reference.release();
  await segmented.release();
  await policy.release();
});

test('segmented log-probabilities = the one-graph pass at every position (gpt2 and qwen2), within 1e-6 of the log-probabilities\' scale', async () => {
  for (const folder of ['gpt2', 'qwen2']) {
    const policy = PretrainedPolicy.load({ folder: path.join(FIXTURES, folder) }, new Rng(3));
    const whole = buildLogProbs(policy, 'T');
    const session = await Session.create(whole.graph, { logp: whole.logProb }, { weights: policy.weights });
    const segmented = await SegmentedLogProbs.create(policy.lm, (source) => buildLogProbs(source as unknown as LanguageModel, 'T'), { microBatch: 3, headTokens: 7, compute });
    const feeds = batchFeeds(policy, 2);
    const expected = (await session.run(feeds)).logp!;
    const actual = (await segmented.run(feeds)).logp;
    assertClose(actual, expected, 1e-6, `${folder} logp`);
    await session.release();
    await segmented.release();
    await policy.release();
  }
});
