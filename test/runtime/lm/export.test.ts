// rlx export's two outputs, checked by loading them back: a PEFT adapter folder (LoRA runs) and a
// Hugging Face model folder (full fine-tuning, or LoRA merged into the base), each giving the
// same logits as the run's own trained policy.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { exportPretrained } from '../../../runtime/lm/export.js';
import { openModelFolder } from '../../../runtime/lm/model-folder.js';
import { PretrainedLm } from '../../../runtime/lm/pretrained.js';
import { readRunPolicy } from '../../../runtime/run-policy.js';
import { attentionMask, leftPad, rowPositions } from '../../../runtime/lm/rows.js';
import { Graph, Session } from '../../../runtime/tensor/index.js';
import { train } from '../../../runtime/train.js';
import { repoRoot } from '../../helpers/repo.js';
import { makePlan, tempDir } from '../helpers.js';

const QWEN2 = path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2');
const IDS = [1, 372, 201, 338, 342, 317, 298, 13, 329, 33, 2, 201, 1, 344, 201, 267, 318];

async function logitsOf(lm: PretrainedLm): Promise<Float32Array> {
  const T = IDS.length;
  const g = new Graph();
  const inputs = { tokens: g.input('tokens', 'int64', [1, T]), positions: g.input('positions', 'int64', [1, T]), mask: g.input('mask', 'float32', [1, T, T]) };
  const { logits } = lm.forward(g, inputs);
  const weights = lm.frozen ? (await import('../../../runtime/tensor/index.js')).WeightStore.union(lm.frozen, lm.trainable) : lm.trainable;
  const session = await Session.create(g, { logits }, { weights });
  const rows = leftPad([IDS], 0);
  const out = await session.run({ tokens: BigInt64Array.from(IDS, BigInt), positions: rowPositions(rows.starts, 0, T), mask: attentionMask(rows.starts, 0, T) });
  await session.release();
  return out.logits!;
}

const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), 0);

async function trainRun(lora: boolean): Promise<string> {
  const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 6 }, algorithm: 'SFT', algorithmParams: { updates: 5, batch_size: 8, learning_rate: 1e-2 } });
  plan.stages[0]!.budget = null;
  plan.policy = { name: 'Base', kind: 'pretrained', params: { model: QWEN2, ...(lora ? { lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj', 'down_proj'] } } : {}) } as Plan['policy']['params'] };
  const result = await train(plan, { out: tempDir() });
  return result.runDir;
}

test('a LoRA run exports as a PEFT adapter that loads back to the run\'s logits, and merged as a model folder with the same logits', async () => {
  const runDir = await trainRun(true);
  const policy = readRunPolicy(runDir);
  const trained = PretrainedLm.load(openModelFolder(QWEN2), { lora: { settings: policy.manifest.lora!, rng: { uniform: () => 0 } as never } });
  trained.trainable.load(policy.weights);
  const expected = await logitsOf(trained);

  const adapterDir = path.join(tempDir(), 'adapter');
  assert.equal(exportPretrained(policy.manifest, policy.weights, adapterDir, { merge: false }).kind, 'adapter');
  const config = JSON.parse(fs.readFileSync(path.join(adapterDir, 'adapter_config.json'), 'utf8')) as Record<string, unknown>;
  assert.deepEqual([config.peft_type, config.r, config.lora_alpha, config.target_modules], ['LORA', 4, 8, ['q_proj', 'v_proj', 'down_proj']]);
  const fromAdapter = PretrainedLm.load(openModelFolder(QWEN2), { lora: { adapterDir } });
  assert.ok(maxDiff(await logitsOf(fromAdapter), expected) < 1e-6);

  const mergedDir = path.join(tempDir(), 'merged');
  assert.equal(exportPretrained(policy.manifest, policy.weights, mergedDir, { merge: true }).kind, 'model');
  for (const file of ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja']) assert.ok(fs.existsSync(path.join(mergedDir, file)), file);
  const merged = PretrainedLm.load(openModelFolder(mergedDir));
  assert.ok(maxDiff(await logitsOf(merged), expected) < 1e-4, `merged logits differ by ${maxDiff(await logitsOf(merged), expected)}`);
  // and the run changed the model: the base's logits differ
  assert.ok(maxDiff(await logitsOf(PretrainedLm.load(openModelFolder(QWEN2))), expected) > 1e-3);
});

test('a full fine-tuning run exports as a model folder whose logits equal the run\'s exactly', async () => {
  const runDir = await trainRun(false);
  const policy = readRunPolicy(runDir);
  const out = path.join(tempDir(), 'model');
  exportPretrained(policy.manifest, policy.weights, out, { merge: false });
  const trained = PretrainedLm.load(openModelFolder(QWEN2));
  trained.trainable.load(policy.weights);
  assert.equal(maxDiff(await logitsOf(PretrainedLm.load(openModelFolder(out))), await logitsOf(trained)), 0);
});
