// GRPO (runtime/algorithms/grpo/): advantages relative to the group, the loss as the paper
// writes it (clipped ratio, k3 KL to the reference, sequence or token averaging) computed by
// the graph, and a short run that learns what its reward asks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADVANTAGE_EPS, groupAdvantages } from '../../../runtime/algorithms/text/advantages.js';
import type { KlEstimator } from '../../../runtime/algorithms/text/kl.js';
import { buildGrpoLoss } from '../../../runtime/algorithms/text/policy-gradient-loss.js';
import { broadcastAdvantages } from '../../../runtime/algorithms/text/turn-credit.js';
import { buildLogProbs } from '../../../runtime/algorithms/text/tokens.js';
import { grpoSettings } from '../../../runtime/algorithms/grpo/settings.js';
import { makeTokenModel } from '../../../runtime/policies/index.js';
import { encodeCompletion, encodePrompts, sequenceWidth, textLayout, trainingRows } from '../../../runtime/policies/transformer/layout.js';
import { Rng } from '../../../shared/random.js';
import { readEvents } from '../../../runtime/run/events.js';
import { GradientStep, Session } from '../../../runtime/tensor/index.js';
import { CharTokenizer } from '../../../runtime/policies/transformer/char-tokenizer.js';
import { train } from '../../../runtime/train.js';
import { makePlan, tempDir } from '../helpers.js';

const close = (a: number, b: number, tol = 1e-5) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(b));

test('advantages: each reward against its group, scaled by the group\'s std, the batch\'s, or not at all', () => {
  const rewards = [1, 0, 0, 0, /* flat group */ 1, 1, 1, 1, 0.5, 0, 1, 0.5];
  const out = new Float32Array(12);
  const plain = (normalize: 'group_std' | 'batch_std' | 'none') => ({ baseline: 'mean' as const, normalize });
  groupAdvantages(rewards, 4, plain('none'), out);
  assert.deepEqual([...out], [0.75, -0.25, -0.25, -0.25, 0, 0, 0, 0, 0, -0.5, 0.5, 0]);
  groupAdvantages(rewards, 4, plain('group_std'), out);
  const std = Math.sqrt((0.75 ** 2 + 3 * 0.25 ** 2) / 3); // sample std (n - 1), as TRL
  assert.ok(close(out[0]!, 0.75 / (std + ADVANTAGE_EPS)) && close(out[1]!, -0.25 / (std + ADVANTAGE_EPS)));
  assert.equal(out[4], 0, 'a group whose rewards are all equal teaches nothing');
  groupAdvantages(rewards, 4, plain('batch_std'), out);
  const mean = rewards.reduce((a, b) => a + b, 0) / 12;
  const batchStd = Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / 11);
  assert.ok(close(out[9]!, -0.5 / (batchStd + ADVANTAGE_EPS)));
});

test('advantages: leave_one_out subtracts the mean of the others (RLOO); max_abs scales by the group\'s largest |A|', () => {
  const rewards = [1, 0, 0, 0, /* flat group */ 1, 1, 1, 1, 0.5, 0, 1, 0.5];
  const out = new Float32Array(12);
  groupAdvantages(rewards, 4, { baseline: 'leave_one_out', normalize: 'none' }, out);
  // r_i - (sum - r_i) / (G - 1): 1 - 0 = 1, 0 - 1/3, ...; 0.5 - (0 + 1 + 0.5) / 3 = 0
  const expected = [1, -1 / 3, -1 / 3, -1 / 3, 0, 0, 0, 0, 0, -0.5 * 4 / 3, 0.5 * 4 / 3, 0];
  expected.forEach((a, i) => assert.ok(close(out[i]!, a), `leave_one_out [${i}]: ${out[i]} vs ${a}`));
  groupAdvantages(rewards, 4, { baseline: 'mean', normalize: 'max_abs' }, out);
  // (r - mean) / max |r - mean|: group 1 is 0.75, -0.25 x3 over 0.75; group 3 is 0, -0.5, 0.5, 0 over 0.5
  [1, -1 / 3, -1 / 3, -1 / 3, 0, 0, 0, 0, 0, -1, 1, 0].forEach((a, i) => assert.ok(close(out[i]!, a), `max_abs [${i}]: ${out[i]} vs ${a}`));
  groupAdvantages(rewards, 4, { baseline: 'leave_one_out', normalize: 'group_std' }, out);
  const std = Math.sqrt((0.75 ** 2 + 3 * 0.25 ** 2) / 3);
  assert.ok(close(out[0]!, 1 / (std + ADVANTAGE_EPS)), 'the baseline and the scale combine');
});

/** A 1-layer model (weights seeded by `seed`), four completions of two prompts, their token feeds and log pi at `temperature`. */
async function fourCompletions(seed: number, temperature: number) {
  const tokenizer = CharTokenizer.fromAlphabet('+0123456789=');
  const model = makeTokenModel({ kind: 'transformer', name: 'T', params: { layers: 1, width: 8, heads: 2, context: 16 } }, tokenizer, new Rng(seed));
  const layout = textLayout(6, 4);
  const T = sequenceWidth(layout);
  const B = 4;
  const prompts = encodePrompts(tokenizer, ['1+2=', '1+2=', '5+5=', '5+5='], layout);
  const completions = new Int32Array(B * layout.completionSlots);
  ['3', '12', '10', '9999'].forEach((t, r) => completions.set(encodeCompletion(tokenizer, t, layout, t), r * layout.completionSlots));
  const rows = trainingRows(prompts, completions, B, layout);
  const tokenFeeds = { tokens: { data: rows.tokens, dims: [B, T] }, targets: { data: rows.targets, dims: [B, T] }, inv_temperature: new Float32Array([1 / temperature]) };
  const forward = buildLogProbs(model, T);
  const session = await Session.create(forward.graph, { logp: forward.logProb }, { weights: model.weights });
  const logp = (await session.run(tokenFeeds)).logp!;
  await session.release();
  return { model, T, B, rows, tokenFeeds, logp };
}

test('the loss is the clipped surrogate minus kl_coef times the k3 KL (minus ent_coef times the entropy), averaged per completion, per token or summed per completion, as written', async () => {
  const { model, T, B, rows, tokenFeeds, logp } = await fourCompletions(4, 1.5);
  // pi_old and pi_ref away from pi, so that some ratios fall outside the clip range.
  const random = new Rng(9);
  const old = logp.map((x) => x + 0.4 * (random.uniform() - 0.5));
  const ref = logp.map((x) => x + 0.3 * (random.uniform() - 0.5));
  // One advantage per token, varying along each row as a dialogue's turns do (turn-credit.ts).
  const advantages = Float32Array.from({ length: B * T }, (_, i) => [1, -1, 0.5, -2][Math.floor(i / T)]! * (i % 3 === 0 ? 1.5 : 1));
  const [low, high, klCoef] = [0.9, 1.15, 0.3];
  const loss = buildGrpoLoss(model, T);
  const step = await GradientStep.create(loss.graph, [{ loss: loss.loss, weights: model.weights.names, metrics: loss.metrics }], { weights: model.weights, compute: { providers: ['cpu'] } });
  const lengths = [2, 3, 3, 5];
  for (const kind of ['sequence', 'token', 'sum'] as const) {
    const weight = rows.mask.map((m, i) => (kind === 'sequence' ? m / (B * lengths[Math.floor(i / T)]!) : kind === 'token' ? m / rows.tokenCount : m / B));
    // With token weights, sum_t w_t H_t is the entropy metric (the mean over learned tokens).
    const entCoef = kind === 'token' ? 0.05 : 0;
    const out = await step.run({
      ...tokenFeeds,
      mask: { data: rows.mask, dims: [B, T] },
      advantages: { data: advantages, dims: [B, T] },
      old_logp: { data: old, dims: [B, T] },
      ref_logp: { data: ref, dims: [B, T] },
      token_weight: { data: weight, dims: [B, T] },
      inv_tokens: new Float32Array([1 / rows.tokenCount]),
      ratio_low: new Float32Array([low]),
      ratio_high: new Float32Array([high]),
      kl_coef: new Float32Array([klCoef]),
      ent_coef: new Float32Array([entCoef]),
    });
    let expected = 0;
    let clippedTokens = 0;
    for (let i = 0; i < B * T; i++) {
      if (rows.mask[i] !== 1) continue;
      const A = advantages[i]!;
      const ratio = Math.exp(logp[i]! - old[i]!);
      const surrogate = Math.min(ratio * A, Math.min(Math.max(ratio, low), high) * A);
      const kl = Math.exp(ref[i]! - logp[i]!) - (ref[i]! - logp[i]!) - 1;
      expected -= weight[i]! * (surrogate - klCoef * kl);
      if ((ratio < low && A < 0) || (ratio > high && A > 0)) clippedTokens++;
    }
    expected -= entCoef * out.metrics[step.metricNames.indexOf('entropy')]!;
    assert.ok(close(out.loss, expected, 1e-4), `${kind}: ${out.loss} vs ${expected}`);
    const clipFraction = out.metrics[step.metricNames.indexOf('clip_fraction')]!;
    assert.ok(clippedTokens > 0 && close(clipFraction, clippedTokens / rows.tokenCount), `clip fraction ${clipFraction}`);
  }
  await step.release();
});

test('kl_estimator: the loss\'s KL term is k1 (-x), k2 (x^2 / 2) or k3 (e^x - x - 1) of x = log pi_ref - log pi, as written', async () => {
  const { model, T, B, rows, tokenFeeds, logp } = await fourCompletions(6, 1);
  const random = new Rng(3);
  const ref = logp.map((x) => x + 0.6 * (random.uniform() - 0.5));
  const weight = rows.mask.map((m) => m / rows.tokenCount);
  const formulas: Record<KlEstimator, (x: number) => number> = { k1: (x) => -x, k2: (x) => (x * x) / 2, k3: (x) => Math.exp(x) - x - 1 };
  const losses: number[] = [];
  for (const estimator of ['k1', 'k2', 'k3'] as const) {
    const loss = buildGrpoLoss(model, T, { oldFed: false, klEstimator: estimator });
    const step = await GradientStep.create(loss.graph, [{ loss: loss.loss, weights: model.weights.names, metrics: loss.metrics }], { weights: model.weights, compute: { providers: ['cpu'] } });
    const out = await step.run({
      ...tokenFeeds,
      mask: { data: rows.mask, dims: [B, T] },
      advantages: { data: new Float32Array(B * T), dims: [B, T] }, // no policy term: the loss is kl_coef times the KL
      ref_logp: { data: ref, dims: [B, T] },
      token_weight: { data: weight, dims: [B, T] },
      inv_tokens: new Float32Array([1 / rows.tokenCount]),
      ratio_low: new Float32Array([0.8]),
      ratio_high: new Float32Array([1.2]),
      kl_coef: new Float32Array([0.5]),
      ent_coef: new Float32Array([0]),
    });
    let kl = 0;
    for (let i = 0; i < B * T; i++) if (rows.mask[i] === 1) kl += formulas[estimator](ref[i]! - logp[i]!) / rows.tokenCount;
    assert.ok(close(out.loss, 0.5 * kl, 1e-4), `${estimator}: loss ${out.loss} vs ${0.5 * kl}`);
    assert.ok(close(out.metrics[step.metricNames.indexOf('kl')]!, kl, 1e-4), `${estimator}: kl metric`);
    losses.push(out.loss);
    await step.release();
  }
  assert.ok(Math.abs(losses[0]! - losses[2]!) > 1e-4 && Math.abs(losses[1]! - losses[2]!) > 1e-4, `the estimators differ on this batch: ${losses}`);
});

test('with one step per batch the loss takes pi_old (and, without a reference, pi_ref) from its own forward pass: the same loss and gradients as feeding them', async () => {
  const { model, T, B, rows, tokenFeeds, logp } = await fourCompletions(5, 1);
  const common = {
    ...tokenFeeds,
    mask: { data: rows.mask, dims: [B, T] },
    advantages: { data: broadcastAdvantages(Float32Array.of(1, -1, 0.5, -2), T), dims: [B, T] },
    token_weight: { data: rows.mask.map((m) => m / rows.tokenCount), dims: [B, T] },
    inv_tokens: new Float32Array([1 / rows.tokenCount]),
    ratio_low: new Float32Array([0.8]),
    ratio_high: new Float32Array([1.2]),
    kl_coef: new Float32Array([0.3]),
    ent_coef: new Float32Array([0]),
  };
  const stepOf = async (options: Parameters<typeof buildGrpoLoss>[2]) => {
    const loss = buildGrpoLoss(model, T, options);
    return GradientStep.create(loss.graph, [{ loss: loss.loss, weights: model.weights.names, metrics: loss.metrics }], { weights: model.weights, compute: { providers: ['cpu'] } });
  };
  const fed = await stepOf({});
  const own = await stepOf({ oldFed: false, referenceFed: false });
  const a = await fed.run({ ...common, old_logp: { data: logp, dims: [B, T] }, ref_logp: { data: logp, dims: [B, T] } });
  const aLoss = a.loss;
  const aGrads = a.grads.map((g) => g.slice());
  const b = await own.run(common);
  assert.ok(close(b.loss, aLoss), `loss ${b.loss} vs ${aLoss}`);
  assert.equal(b.metrics[own.metricNames.indexOf('kl')], 0, 'pi_ref is the policy: no KL');
  assert.equal(b.metrics[own.metricNames.indexOf('clip_fraction')], 0);
  aGrads.forEach((g, i) => g.forEach((x, j) => assert.ok(close(b.grads[i]![j]!, x, 1e-4), `${model.weights.names[i]}[${j}]: ${b.grads[i]![j]} vs ${x}`)));
  assert.ok(aGrads.some((g) => g.some((x) => Math.abs(x) > 1e-3)), 'the gradients are not all zero');
  await fed.release();
  await own.release();
});

test('settings: clip_high none is the clip, and the options the registry lists', () => {
  const s = grpoSettings({});
  assert.deepEqual([s.clip_high, s.loss, s.normalize, s.iterations, s.reference], [null, 'sequence', 'group_std', 1, 'initial']);
  assert.deepEqual([s.baseline, s.kl_estimator, s.kl_in_reward], ['mean', 'k3', false], 'the defaults are GRPO as it was');
  assert.equal(grpoSettings({ clip_high: 0.28 }).clip_high, 0.28);
  assert.throws(() => grpoSettings({ loss: 'tokens' }), /param "loss" must be one of sequence, token, constant/);
  assert.throws(() => grpoSettings({ kl_estimator: 'k4' }), /param "kl_estimator" must be one of k1, k2, k3/);
});

test('a short GRPO run learns what its reward asks: completions starting with "1" go from ~1 in 12 to most', async () => {
  const plan = makePlan({
    env: 'TextTask',
    envParams: { task: { kind: 'addition', digits: 2 }, max_tokens: 4 },
    algorithm: 'GRPO',
    algorithmParams: { group_size: 8, prompts_per_update: 8, learning_rate: 3e-3, kl_coef: 0.01 },
    budget: 3200,
    reward: { name: 'R', replace_env_reward: true, terms: [{ name: 'one', expr: { call: 'regex', args: [{ ref: 'completion' }, { const: '^1' }] } }] },
  });
  plan.policy = { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 32, heads: 2, context: 16 } };
  const result = await train(plan, { out: tempDir() });
  const metrics = readEvents(`${result.runDir}/events.jsonl`).filter((e) => e.type === 'metrics');
  assert.equal(metrics.length, 50);
  const first = metrics.slice(0, 5).reduce((a, e) => a + e.values['rewards/one']! / 5, 0);
  const last = metrics.slice(-5).reduce((a, e) => a + e.values['rewards/one']! / 5, 0);
  assert.ok(first < 0.25 && last > 0.6, `reward ${first} -> ${last}`);
  for (const name of ['losses/kl', 'losses/clip_fraction', 'losses/entropy', 'charts/zero_advantage_groups', 'train/accuracy', 'train/completion_length']) {
    assert.ok(metrics.every((e) => Number.isFinite(e.values[name])), `${name} is logged`);
  }
});
