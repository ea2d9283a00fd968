// DPO on the hf-tiny Qwen2 (random weights): its gradient is the preference loss's (the two-pass
// step against central differences of the loss itself), micro-batches and recomputed blocks take
// the same steps, LoRA trains only the adapters, the reference's log-probabilities are those of the
// stage's initial weights and come back from a checkpoint, and bad pairs are refused naming the line.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../../../dsl/compile/plan.js';
import { answerLogProbs, Dpo } from '../../../../runtime/algorithms/dpo/dpo.js';
import { preferenceLoss } from '../../../../runtime/algorithms/dpo/preference-loss.js';
import { dpoSettings } from '../../../../runtime/algorithms/dpo/settings.js';
import { buildDpoStepLoss, DPO_LOSS_TOKENS } from '../../../../runtime/algorithms/dpo/loss.js';
import { tokenGradientRun, tokenLogProbRun } from '../../../../runtime/algorithms/text/token-step.js';
import { buildLogProbs } from '../../../../runtime/algorithms/text/tokens.js';
import { PretrainedPolicy } from '../../../../runtime/policies/pretrained.js';
import { TextEnvironment } from '../../../../runtime/text/env.js';
import type { Feed } from '../../../../runtime/tensor/index.js';
import { Rng } from '../../../../shared/random.js';
import { repoRoot } from '../../../helpers/repo.js';
import { makePlan } from '../../helpers.js';

const QWEN2 = path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2');
const CPU = { providers: ['cpu'] } as const;

function env(): TextEnvironment {
  const plan: Plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 6 }, algorithm: 'DPO', algorithmParams: { data: 'pairs.jsonl' }, budget: 1 });
  return TextEnvironment.fromPlan(plan);
}

/** Pairs of training prompts (none held out): the right sum chosen, one digit off rejected. */
function pairLines(count: number): string[] {
  const task = env().task;
  const lines: string[] = [];
  for (let a = 0; lines.length < count; a++) {
    const prompt = `${String(a % 100).padStart(2, '0')}+${String((7 * a + 3) % 100).padStart(2, '0')}=`;
    if (task.isHeldOut(prompt)) continue;
    const sum = String((a % 100) + ((7 * a + 3) % 100)).padStart(3, '0');
    lines.push(JSON.stringify({ prompt, chosen: sum, rejected: sum.slice(0, 2) + String((Number(sum[2]) + 1) % 10) }));
  }
  return lines;
}

function context(model: PretrainedPolicy, lines: string[], budget: number | null = null) {
  const bytes = new TextEncoder().encode(lines.join('\n') + '\n');
  return { model, env: env(), budget, rng: new Rng(3), compute: CPU, dataFiles: new Map([['data', { path: 'pairs.jsonl', bytes: () => bytes }]]) } as never;
}

const load = (lora = false) => PretrainedPolicy.load({ folder: QWEN2, ...(lora ? { lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] } } : {}) }, new Rng(1));

for (const loss of ['sigmoid', 'ipo', 'hinge', 'robust', 'simpo'] as const) {
  test(`${loss}: the step's gradient is the preference loss's (a direction's central difference of the loss on the model)`, async () => {
    const model = load();
    const settings = dpoSettings({ data: 'pairs.jsonl', loss, beta: loss === 'simpo' ? 2 : 0.5, label_smoothing: loss === 'robust' ? 0.1 : 0, reference: 'none' });
    const e = env();
    const pairs = pairLines(4).map((l) => JSON.parse(l) as { prompt: string; chosen: string; rejected: string });
    const rows = e.demonstrationRows(pairs.flatMap((p) => [{ prompt: p.prompt, target: p.chosen }, { prompt: p.prompt, target: p.rejected }]), model);
    const feeds: Record<string, Feed> = { tokens: { data: rows.tokens, dims: [rows.rows, rows.width] }, targets: { data: rows.targets, dims: [rows.rows, rows.width] }, ...rows.modelFeeds };
    const forward = await tokenLogProbRun(model, 'T', buildLogProbs, { microBatch: rows.rows, checkpointing: false }, CPU);
    async function lossNow(): Promise<ReturnType<typeof preferenceLoss>> {
      const { sums, tokens } = answerLogProbs(rows, (await forward.run({ ...feeds, inv_temperature: Float32Array.of(1) })).logp!);
      const side = (a: Float64Array, s: number) => Float64Array.from({ length: rows.rows / 2 }, (_, i) => a[2 * i + s]!);
      return preferenceLoss(settings, { chosen: side(sums, 0), rejected: side(sums, 1), chosenTokens: side(tokens, 0), rejectedTokens: side(tokens, 1), refChosen: null, refRejected: null });
    }
    const at = await lossNow();
    const weight = new Float32Array(rows.rows * rows.width);
    for (let r = 0; r < rows.rows; r++) for (let t = 0; t < rows.width; t++) weight[r * rows.width + t] = rows.mask[r * rows.width + t]! * (r % 2 === 0 ? at.dChosen : at.dRejected)[r >> 1]!;
    const step = await tokenGradientRun(model, (source) => buildDpoStepLoss(source, 'T'), DPO_LOSS_TOKENS, { microBatch: rows.rows, checkpointing: false }, CPU, { B: rows.rows });
    const { grads } = await step.run({ ...feeds, weight: { data: weight, dims: [rows.rows, rows.width] } });
    // A random direction over one attention weight: d . grad against (L(w + h d) - L(w - h d)) / 2h.
    const name = 'model.layers.1.self_attn.q_proj.weight';
    const index = model.weights.names.indexOf(name);
    const w = model.weights.get(name).data;
    const rng = new Rng(9);
    const direction = Float32Array.from(w, () => rng.normal());
    const analytic = direction.reduce((sum, d, k) => sum + d * grads[index]![k]!, 0);
    const h = 1e-2;
    const original = Float32Array.from(w);
    w.forEach((_, k) => (w[k] = original[k]! + h * direction[k]!));
    const up = (await lossNow()).loss;
    w.forEach((_, k) => (w[k] = original[k]! - h * direction[k]!));
    const down = (await lossNow()).loss;
    w.set(original);
    const numeric = (up - down) / (2 * h);
    assert.ok(Math.abs(analytic) > 1e-4, `a gradient to check (${analytic})`);
    assert.ok(Math.abs(analytic - numeric) <= 0.02 * Math.abs(numeric) + 1e-5, `directional derivative ${analytic}, central difference ${numeric}`);
    await step.release();
    await forward.release();
    await model.release();
  });
}

/** The metrics of `updates` DPO updates on fresh hf-tiny weights, and the learner. */
async function updates(params: Record<string, unknown>, count: number, lora = false) {
  const model = load(lora);
  const dpo = await Dpo.create(context(model, pairLines(24)), dpoSettings({ data: 'pairs.jsonl', batch_size: 6, learning_rate: 3e-3, ...params }));
  const logged: Record<string, number>[] = [];
  for (let u = 0; u < count; u++) logged.push(await dpo.iterate());
  return { logged, dpo, model };
}

test('the first update\'s ratios are 0 (the reference is the initial policy); the loss then falls and the chosen answers gain on the rejected', async () => {
  const { logged, dpo, model } = await updates({}, 12);
  assert.ok(Math.abs(logged[0]!['losses/dpo_loss']! - Math.log(2)) < 1e-6, `first loss ${logged[0]!['losses/dpo_loss']}, log 2 = ${Math.log(2)}`);
  assert.equal(logged[0]!['train/rewards/margins'], 0);
  for (const name of ['train/rewards/chosen', 'train/rewards/rejected', 'train/rewards/accuracies', 'train/rewards/margins', 'train/logps/chosen', 'train/logps/rejected', 'losses/grad_norm']) assert.ok(Number.isFinite(logged[0]![name]), `${name} logged`);
  const last = logged.slice(-3);
  const mean = (name: string) => last.reduce((s, m) => s + m[name]!, 0) / last.length;
  assert.ok(mean('losses/dpo_loss') < 0.6, `last losses ${last.map((m) => m['losses/dpo_loss'])}`);
  assert.ok(mean('train/rewards/margins') > 0 && mean('train/rewards/accuracies') > 0.5, `margins ${mean('train/rewards/margins')}, accuracies ${mean('train/rewards/accuracies')}`);
  assert.equal(dpo.globalStep, 12 * 6);
  await dpo.release();
  await model.release();
});

test('micro_batch 4 (pairs split across micro-batches) and recomputed blocks take the one-graph run\'s steps', async () => {
  const whole = await updates({ micro_batch: 12, gradient_checkpointing: false }, 3);
  for (const memory of [{ micro_batch: 4, gradient_checkpointing: false }, { micro_batch: 5, gradient_checkpointing: true }]) {
    const split = await updates(memory, 3);
    assert.equal(split.dpo.hparams().micro_batch, memory.micro_batch);
    whole.logged.forEach((m, u) => {
      for (const name of ['losses/dpo_loss', 'losses/grad_norm', 'train/rewards/margins']) {
        assert.ok(Math.abs(split.logged[u]![name]! - m[name]!) <= 1e-4 * Math.max(1e-2, Math.abs(m[name]!)), `${JSON.stringify(memory)} update ${u + 1}: ${name} ${split.logged[u]![name]} against ${m[name]}`);
      }
    });
    await split.dpo.release();
    await split.model.release();
  }
  await whole.dpo.release();
  await whole.model.release();
});

test('LoRA: only the adapters move, the base stays bit for bit, and the loss falls', async () => {
  const model = load(true);
  const base = model.frozenWeights!.snapshot();
  const dpo = await Dpo.create(context(model, pairLines(24)), dpoSettings({ data: 'pairs.jsonl', batch_size: 6, learning_rate: 2e-2 }));
  const first = await dpo.iterate();
  let last = first;
  for (let u = 0; u < 10; u++) last = await dpo.iterate();
  assert.ok(last['losses/dpo_loss']! < first['losses/dpo_loss']!, `${first['losses/dpo_loss']} -> ${last['losses/dpo_loss']}`);
  for (const [name, w] of Object.entries(base)) assert.deepEqual(model.frozenWeights!.get(name).data, w.data, `${name} changed`);
  await dpo.release();
  await model.release();
});

test('the reference\'s log-probabilities are kept in the checkpoint: a resumed learner continues on them, and a state for other pairs is refused', async () => {
  const { dpo, model } = await updates({}, 4);
  const saved = dpo.state();
  assert.equal(saved.reference!.chosen.length, 24);
  const next = await dpo.iterate();
  // A learner made from trained weights would take its reference from them; the checkpoint's puts back the initial one.
  const other = load();
  other.weights.load(saved.weights);
  const resumed = await Dpo.create(context(other, pairLines(24)), dpoSettings({ data: 'pairs.jsonl', batch_size: 6, learning_rate: 3e-3 }));
  resumed.loadState(structuredClone(saved));
  const again = await resumed.iterate();
  assert.ok(Math.abs(again['losses/dpo_loss']! - next['losses/dpo_loss']!) < 1e-6, `resumed ${again['losses/dpo_loss']}, uninterrupted ${next['losses/dpo_loss']}`);
  const fewer = await Dpo.create(context(load(), pairLines(12)), dpoSettings({ data: 'pairs.jsonl', batch_size: 6 }));
  assert.throws(() => fewer.loadState(structuredClone(saved)), /reference log-probabilities of this run's 12 pairs/);
  for (const d of [dpo, resumed, fewer]) await d.release();
  await model.release();
  await other.release();
});

test('pairs that cannot be trained on are refused before training, naming the file and line', async () => {
  const lines = pairLines(3);
  const refused = async (bad: string[], pattern: RegExp) => {
    await assert.rejects(Dpo.create(context(load(), bad), dpoSettings({ data: 'pairs.jsonl' })), (err: unknown) => (err as Error).name === 'PreferencePairsError' && pattern.test((err as Error).message));
  };
  await refused([lines[0]!, '{"prompt": "1+2=", "chosen": "3"}'], /^pairs\.jsonl line 2: no "rejected" field/);
  await refused([lines[0]!, lines[1]!, 'not json'], /^pairs\.jsonl line 3: not JSON/);
  const long = Array.from({ length: 200 }, (_, i) => String(i)).join(' ');
  await refused([lines[0]!, JSON.stringify({ prompt: '12+34=', chosen: '46', rejected: long })], /DPO data "pairs\.jsonl" line 2: the pair is \d+ tokens as the model reads it \(prompt and answer\), more than its context of 128/);
  const task = env().task;
  const heldOut = Array.from({ length: 10_000 }, (_, i) => `${String(Math.floor(i / 100)).padStart(2, '0')}+${String(i % 100).padStart(2, '0')}=`).find((p) => task.isHeldOut(p))!;
  await refused([JSON.stringify({ prompt: heldOut, chosen: '1', rejected: '2' })], /every prompt in it is one of the task's held-out prompts/);
});

test('the memory estimate counts a step\'s two rows a pair and no reference copy (the registry\'s work(), read by the checker and the trainer)', async () => {
  const { expectedUse } = await import('../../../../runtime/trainer/text-workload.js');
  const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 6 }, algorithm: 'DPO', algorithmParams: { data: 'pairs.jsonl', batch_size: 12 } });
  const use = expectedUse(plan, TextEnvironment.fromPlan(plan));
  assert.deepEqual([use.sampleRows, use.trainRows, use.referenceCopy], [0, 24, false]);
});

test('conversational and implicit-prompt pairs reach the model through its chat template as the standard ones do', async () => {
  const model = load();
  const user = (content: string) => ({ role: 'user', content });
  const assistant = (content: string) => ({ role: 'assistant', content });
  const rows = async (line: string) => {
    const dpo = await Dpo.create(context(model, [line]), dpoSettings({ data: 'pairs.jsonl', batch_size: 1 }));
    const state = dpo.state();
    await dpo.release();
    return state.reference;
  };
  const [prompt] = pairLines(1).map((l) => (JSON.parse(l) as { prompt: string }).prompt);
  const standard = await rows(JSON.stringify({ prompt, chosen: '046', rejected: '047' }));
  const conversational = await rows(JSON.stringify({ prompt: [user(prompt!)], chosen: [assistant('046')], rejected: [assistant('047')] }));
  const implicit = await rows(JSON.stringify({ chosen: [user(prompt!), assistant('046')], rejected: [user(prompt!), assistant('047')] }));
  // The reference's log-probabilities of the two answers: the same tokens read the same way give the same numbers.
  assert.deepEqual(conversational, standard);
  assert.deepEqual(implicit, standard);
  assert.notEqual(standard!.chosen[0], standard!.rejected[0]);
  // The messages themselves reach the template, not their text: a system message is not the user's words.
  const system = await rows(JSON.stringify({ prompt: [{ role: 'system', content: 'Add.' }, user(prompt!)], chosen: [assistant('046')], rejected: [assistant('047')] }));
  const asText = await rows(JSON.stringify({ prompt: `Add.\n${prompt}`, chosen: '046', rejected: '047' }));
  assert.notDeepEqual(system, asText);
  await model.release();
});
