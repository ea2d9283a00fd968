// SFT (runtime/algorithms/sft/): its loss is the cross-entropy of the completion tokens only
// (the prompt is masked), and a short run on a text task learns it: reverse(len: 3) goes from
// no held-out prompt right to nearly all of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildSftLoss } from '../../../runtime/algorithms/sft/loss.js';
import { sftSettings } from '../../../runtime/algorithms/sft/settings.js';
import { makeTokenModel } from '../../../runtime/policies/index.js';
import { encodeCompletion, encodePrompts, sequenceWidth, textLayout, trainingRows } from '../../../runtime/policies/transformer/layout.js';
import { Rng } from '../../../shared/random.js';
import { GradientStep, Graph, Session } from '../../../runtime/tensor/index.js';
import { CharTokenizer, EOS } from '../../../runtime/policies/transformer/char-tokenizer.js';
import { TextWorkload } from '../../../runtime/trainer/text-workload.js';
import { train } from '../../../runtime/train.js';
import { makePlan, tempDir } from '../helpers.js';

const tokenizer = CharTokenizer.fromAlphabet('+0123456789=');

test('the training rows mask exactly the target and its <eos>: the prompt is read, not learned', () => {
  const layout = textLayout(6, 4);
  const prompts = encodePrompts(tokenizer, ['1+2=', '12+34='], layout);
  const completions = new Int32Array(2 * layout.completionSlots);
  completions.set(encodeCompletion(tokenizer, '3', layout, 'a'), 0);
  completions.set(encodeCompletion(tokenizer, '46', layout, 'b'), layout.completionSlots);
  const rows = trainingRows(prompts, completions, 2, layout);
  const T = sequenceWidth(layout);
  const learned = (r: number) => [...rows.targets.slice(r * T, (r + 1) * T)].filter((_, i) => rows.mask[r * T + i] === 1).map(Number);
  assert.deepEqual(tokenizer.decode(learned(0)), '3');
  assert.deepEqual(learned(0).at(-1), EOS);
  assert.deepEqual(tokenizer.decode(learned(1)), '46');
  assert.equal(rows.tokenCount, 2 + 3);
});

test('the SFT loss is the mean cross-entropy of the masked tokens, as written', async () => {
  const model = makeTokenModel({ kind: 'transformer', name: 'T', params: { layers: 1, width: 8, heads: 2, context: 16 } }, tokenizer, new Rng(2));
  const layout = textLayout(6, 4);
  const T = sequenceWidth(layout);
  const prompts = encodePrompts(tokenizer, ['1+2=', '12+34=', '9+9='], layout);
  const completions = new Int32Array(3 * layout.completionSlots);
  ['3', '46', '18'].forEach((t, r) => completions.set(encodeCompletion(tokenizer, t, layout, t), r * layout.completionSlots));
  const rows = trainingRows(prompts, completions, 3, layout);
  const loss = buildSftLoss(model, T);
  const step = await GradientStep.create(loss.graph, [{ loss: loss.loss, weights: model.weights.names, metrics: loss.metrics }], { weights: model.weights, compute: { providers: ['cpu'] } });
  const feeds = { tokens: { data: rows.tokens, dims: [3, T] }, targets: { data: rows.targets, dims: [3, T] }, mask: { data: rows.mask, dims: [3, T] }, inv_tokens: new Float32Array([1 / rows.tokenCount]) };
  const result = await step.run(feeds);
  const got = result.loss;
  const accuracy = result.metrics[step.metricNames.indexOf('token_accuracy')]!;
  await step.release();
  const g = new Graph();
  const logits = model.sequenceLogits(g, g.input('tokens', 'int64', ['B', T]));
  const session = await Session.create(g, { logits }, { weights: model.weights });
  const out = (await session.run({ tokens: feeds.tokens })).logits!;
  await session.release();
  const V = tokenizer.size;
  let sum = 0;
  let hits = 0;
  for (let i = 0; i < 3 * T; i++) {
    if (rows.mask[i] !== 1) continue;
    const row = out.subarray(i * V, (i + 1) * V);
    const most = Math.max(...row);
    const logZ = most + Math.log(row.reduce((s, x) => s + Math.exp(x - most), 0));
    sum += logZ - row[Number(rows.targets[i])]!;
    if (row.indexOf(most) === Number(rows.targets[i])) hits++;
  }
  assert.ok(Math.abs(got - sum / rows.tokenCount) < 1e-5, `${got} vs ${sum / rows.tokenCount}`);
  // token_accuracy: the share of target positions where the target is the most likely token (1 of 8 for this seed).
  assert.ok(Math.abs(accuracy - hits / rows.tokenCount) < 1e-6, `token accuracy ${accuracy} vs ${hits}/${rows.tokenCount}`);
});

test('SFT reads `demos` or a JSONL file of demonstrations (bundled into the run: test/cli/sft-data.test.ts), and refuses anything else saying what it takes', () => {
  assert.equal(sftSettings({}).data, 'demos');
  assert.deepEqual(sftSettings({ data: './demos.jsonl' }).data, { file: './demos.jsonl' });
  assert.throws(() => sftSettings({ data: '' }), /data.*`demos` or the path of a JSONL file of demonstrations/);
  assert.throws(() => sftSettings({ data: 3 }), /data.*`demos` or the path of a JSONL file of demonstrations/);
});

test('SFT on reverse(len: 3) in a stage without a budget: held-out exact-match accuracy goes from 0 to >= 0.9', async () => {
  const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'reverse', len: 3 }, max_tokens: 3 }, algorithm: 'SFT', algorithmParams: { updates: 150, batch_size: 32, learning_rate: 3e-3 } });
  plan.policy = { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 32, heads: 2, context: 16 } };
  plan.stages[0]!.budget = null;
  const untrained = TextWorkload.create(plan, 1);
  const before = await untrained.evaluate();
  await untrained.release();
  assert.equal(before.values['eval/accuracy'], 0);
  const result = await train(plan, { out: tempDir() });
  assert.equal(result.step, 150 * 32, 'a stage without a budget runs its `updates` batches');
  assert.ok(result.metrics['eval/accuracy']! >= 0.9, `held-out accuracy ${result.metrics['eval/accuracy']}`);
});
