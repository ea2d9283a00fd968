// Training a pretrained model from a Hugging Face folder (the hf-tiny Qwen2) with the text
// learners: full fine-tuning and LoRA, SFT and GRPO, through the trainer as `rlx train` runs it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { PretrainedPolicy } from '../../../runtime/policies/pretrained.js';
import { Rng } from '../../../shared/random.js';
import { checkPlan, PlanError } from '../../../runtime/support.js';
import { TextEnvironment } from '../../../runtime/text/env.js';
import { tokenRows } from '../../../runtime/text/token-rows.js';
import { resume, train } from '../../../runtime/train.js';
import { BaseModelChangedError } from '../../../runtime/lm/base-files.js';
import { repoRoot } from '../../helpers/repo.js';
import { makePlan, tempDir } from '../helpers.js';

const QWEN2 = path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2');
const ALL_LINEAR = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'];

function pretrainedPlan(algorithm: 'SFT' | 'GRPO', algorithmParams: Record<string, unknown>, budget: number | null, lora?: Record<string, unknown>): Plan {
  const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 6 }, algorithm, algorithmParams, budget: budget ?? 1 });
  plan.stages[0]!.budget = budget;
  plan.policy = { name: 'Base', kind: 'pretrained', params: { model: QWEN2, ...(lora ? { lora } : {}) } as Plan['policy']['params'] };
  plan.eval = { every: 1_000_000, episodes: 10, deterministic: true };
  return plan;
}

test('token rows of different prompt and completion lengths: prompts left-padded, completions aligned, only completion tokens learned', () => {
  const rows = tokenRows([[5, 6, 7], [8]], [[1, 2, 0], [3, 0]], 9);
  assert.deepEqual([rows.rows, rows.width, [...rows.starts]], [2, 3 + 3 - 1, [0, 2]]);
  assert.deepEqual([...rows.tokens].map(Number), [5, 6, 7, 1, 2, 9, 9, 8, 3, 0]);
  assert.deepEqual([...rows.targets].map(Number), [6, 7, 1, 2, 0, 9, 8, 3, 0, 9]);
  assert.deepEqual([...rows.mask], [0, 0, 1, 1, 1, 0, 0, 1, 1, 0]);
  assert.deepEqual([rows.tokenCount, [...rows.perRow]], [5, [3, 2]]);
});

test('a pretrained model completes a task\'s prompts through its chat template and scores them, greedy completions equal alone or batched', async () => {
  const policy = PretrainedPolicy.load({ folder: QWEN2 }, new Rng(1));
  const env = TextEnvironment.fromPlan(pretrainedPlan('SFT', {}, null));
  const prompt = policy.encodePrompt('12+34=');
  // ChatML: the prompt is the user's message, followed by the assistant's generation prompt.
  assert.equal(policy.folder.tokenizer.decode(prompt), '<|im_start|>user\n12+34=<|im_end|>\n<|im_start|>assistant\n');
  const [alone] = await policy.complete([prompt], { maxNewTokens: 6, greedy: true });
  const [, batched] = await policy.complete([policy.encodePrompt('1+2='), prompt], { maxNewTokens: 6, greedy: true });
  assert.deepEqual(batched, alone);
  const outcome = await env.evaluate(policy, 8);
  assert.equal(outcome.returns.length, 8);
  await policy.release();
});

test('full fine-tuning with SFT: the loss falls from the random model\'s ~6 to below 3', async () => {
  const result = await train(pretrainedPlan('SFT', { updates: 30, batch_size: 16, learning_rate: 3e-3 }, null), { out: tempDir() });
  assert.equal(result.step, 30 * 16);
  assert.ok(result.metrics['losses/sft_loss']! < 3, `final SFT loss ${result.metrics['losses/sft_loss']}`);
});

test('LoRA: only the adapters train, the base weights stay bit for bit as loaded', async () => {
  const policy = PretrainedPolicy.load({ folder: QWEN2, lora: { rank: 4, alpha: 8, targets: ALL_LINEAR } }, new Rng(1));
  const base = policy.frozenWeights!.snapshot();
  assert.deepEqual(policy.weights.names.filter((n) => !n.includes('lora_')), [], 'only adapters are trainable');
  const { Sft } = await import('../../../runtime/algorithms/sft/sft.js');
  const { sftSettings } = await import('../../../runtime/algorithms/sft/settings.js');
  const env = TextEnvironment.fromPlan(pretrainedPlan('SFT', {}, null));
  const sft = await Sft.create({ model: policy, env, budget: null, rng: new Rng(2), compute: { providers: ['cpu'] } } as never, sftSettings({ updates: 10, batch_size: 8, learning_rate: 1e-2 }));
  const first = await sft.iterate();
  for (let i = 0; i < 8; i++) await sft.iterate();
  const last = await sft.iterate();
  assert.ok(last['losses/sft_loss']! < first['losses/sft_loss']!, `${first['losses/sft_loss']} -> ${last['losses/sft_loss']}`);
  for (const [name, w] of Object.entries(base)) assert.deepEqual(policy.frozenWeights!.get(name).data, w.data, `${name} changed`);
  const b = policy.weights.get('model.layers.0.self_attn.q_proj.lora_B.weight').data;
  assert.ok(b.some((v) => v !== 0), 'the adapters moved from their zero start');
  await sft.release();
  await policy.release();
});

test('GRPO with LoRA and a KL reference trains through the trainer', async () => {
  const plan = pretrainedPlan('GRPO', { group_size: 4, kl_coef: 0.04, learning_rate: 1e-3 }, 32, { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] });
  const result = await train(plan, { out: tempDir() });
  assert.equal(result.step, 32);
  assert.ok(Number.isFinite(result.metrics['losses/kl']!));
});

test('a pretrained policy on an env of numbers is refused before training, saying why; on a dialogue it is accepted (text/chat-dialogue.ts)', () => {
  const numbers = pretrainedPlan('SFT', {}, null);
  numbers.env = { name: 'E', kind: 'CartPole', params: {} };
  numbers.stages[0]!.algorithm = { name: 'A', kind: 'PPO', params: {} };
  numbers.stages[0]!.budget = 1000;
  assert.throws(() => checkPlan(numbers), (err: unknown) => err instanceof PlanError && /policy Base \(pretrained\) writes text: CartPole has actions of numbers/.test((err as Error).message));
  const dialogue = pretrainedPlan('SFT', {}, null);
  dialogue.env = { name: 'E', kind: 'GuessNumber', params: {} };
  assert.doesNotThrow(() => checkPlan(dialogue));
});

test('a model too large for this machine is refused with the memory figures before its weights are read or a run folder is made', async () => {
  const { mkdtempSync, copyFileSync, writeFileSync, readdirSync, existsSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const big = mkdtempSync(path.join(tmpdir(), 'rlx-big-model-'));
  for (const file of ['tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja']) copyFileSync(path.join(QWEN2, file), path.join(big, file));
  // A 70B-class shape: ~280 GB of float32 weights alone. Its weights file is not even there.
  writeFileSync(path.join(big, 'config.json'), JSON.stringify({ model_type: 'llama', hidden_size: 8192, intermediate_size: 28672, num_hidden_layers: 80, num_attention_heads: 64, num_key_value_heads: 8, vocab_size: 128256, max_position_embeddings: 8192, rope_theta: 500000 }));
  const plan = pretrainedPlan('GRPO', { group_size: 4 }, 64, { rank: 8, alpha: 16, targets: ['q_proj', 'v_proj'] });
  plan.policy = { ...plan.policy, params: { ...plan.policy.params, model: big } };
  const out = tempDir();
  await assert.rejects(train(plan, { out }), (err: unknown) => /needs about \d+(\.\d)? GiB \(weights \(float32\) \d+(\.\d)? GiB, .*more than the .* free on this machine; use a smaller model/.test((err as Error).message));
  assert.ok(!existsSync(path.join(out, 'Test')) || readdirSync(path.join(out, 'Test')).length === 0, 'no run folder');
});

test('the memory estimate counts the rows each learner samples and trains at once, and its completion length', async () => {
  const { expectedUse } = await import('../../../runtime/trainer/text-workload.js');
  const use = (algorithm: string, params: Record<string, unknown>) => {
    const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 6 }, algorithm, algorithmParams: params });
    return expectedUse(plan, TextEnvironment.fromPlan(plan));
  };
  const prompt = '12+34='.length + 32; // the longest prompt in characters, and a chat template's share
  assert.deepEqual(use('SFT', { batch_size: 24 }), { sampleRows: 0, trainRows: 24, sequenceLength: prompt + 6, referenceCopy: false });
  assert.deepEqual(use('GRPO', { prompts_per_update: 4, group_size: 8, kl_coef: 0.04 }), { sampleRows: 32, trainRows: 32, sequenceLength: prompt + 6, referenceCopy: true });
  assert.deepEqual(use('GRPO', { prompts_per_update: 4, group_size: 8, kl_coef: 0.04, reference: 'none', max_new_tokens: 3 }), { sampleRows: 32, trainRows: 32, sequenceLength: prompt + 3, referenceCopy: false });
  // GRPO's sft_data demonstrations are trained on in the same batch as the samples.
  assert.deepEqual(use('GRPO', { prompts_per_update: 4, group_size: 8, reference: 'none', sft_data: 'demos', sft_batch_size: 12 }), { sampleRows: 32, trainRows: 44, sequenceLength: prompt + 6, referenceCopy: false });
  // REINFORCE samples episodes_per_update completions of one prompt: not 16 prompts' worth.
  assert.deepEqual(use('REINFORCE', { episodes_per_update: 8 }), { sampleRows: 8, trainRows: 8, sequenceLength: prompt + 6, referenceCopy: false });
});

/** Every file under `dir` with its bytes, to tell whether a refused command wrote anything. */
function folderBytes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out[path.relative(dir, path.join(entry.parentPath, entry.name))] = fs.readFileSync(path.join(entry.parentPath, entry.name)).toString('base64');
  }
  return out;
}

test('rlx train --resume of a LoRA run refuses a base folder whose weights changed since, naming the file, and writes nothing to the run', async () => {
  const base = path.join(tempDir(), 'base');
  fs.cpSync(QWEN2, base, { recursive: true });
  const plan = pretrainedPlan('SFT', { updates: 6, batch_size: 4, learning_rate: 1e-3 }, null, { rank: 2, alpha: 4, targets: ['q_proj'] });
  plan.policy = { ...plan.policy, params: { ...plan.policy.params, model: base } as Plan['policy']['params'] };
  const controller = new AbortController();
  const stopped = await train(plan, { out: tempDir(), checkpointEvery: 4, onProgress: (p) => p.step >= 8 && controller.abort(), signal: controller.signal });
  assert.equal(stopped.status, 'stopped');
  const before = folderBytes(stopped.runDir);
  const weights = path.join(base, 'model.safetensors');
  const bytes = fs.readFileSync(weights);
  bytes[bytes.length - 3]! ^= 0x40;
  fs.writeFileSync(weights, bytes);
  await assert.rejects(resume(stopped.runDir), (err: unknown) =>
    err instanceof BaseModelChangedError && /the base model .*base is not the one this run trained on: model\.safetensors has changed since \(sha256 recorded in .*policy-\d+\.json\)/.test((err as Error).message));
  assert.deepEqual(folderBytes(stopped.runDir), before, 'the refused resume wrote nothing to the run');
  // Put back, the run resumes and finishes.
  bytes[bytes.length - 3]! ^= 0x40;
  fs.writeFileSync(weights, bytes);
  const resumed = await resume(stopped.runDir);
  assert.equal(resumed.status, 'finished');
  assert.equal(resumed.step, 6 * 4);
});
