// The round trip issue 29 asks of a pretrained model, shortened for CI: SFT the hf-tiny Qwen2
// on addition, export the run as a Hugging Face folder, and start a GRPO run (full, and LoRA)
// from that folder as a new pretrained(...) model: its evaluation before the first update equals
// the SFT run's last one (the same greedy completions of the same held-out prompts).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { exportPretrained } from '../../../runtime/lm/export.js';
import { readRunPolicy } from '../../../runtime/run-policy.js';
import { train } from '../../../runtime/train.js';
import { repoRoot } from '../../helpers/repo.js';
import { makePlan, tempDir } from '../helpers.js';

const QWEN2 = path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2');

function plan(model: string, algorithm: 'SFT' | 'GRPO', params: Record<string, unknown>, budget: number | null, lora?: Record<string, unknown>): Plan {
  const p = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 6 }, algorithm, algorithmParams: params });
  p.stages[0]!.budget = budget;
  p.policy = { name: 'Base', kind: 'pretrained', params: { model, ...(lora ? { lora } : {}) } as Plan['policy']['params'] };
  p.eval = { every: 1_000_000, episodes: 10, deterministic: true };
  return p;
}

function evals(runDir: string): { step: number; accuracy: number }[] {
  return fs
    .readFileSync(path.join(runDir, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; step: number; values?: Record<string, number> })
    .filter((e) => e.type === 'eval')
    .map((e) => ({ step: e.step, accuracy: e.values!['eval/accuracy']!, length: e.values!['eval/mean_length']! }));
}

test('SFT, export as a model folder, GRPO from it (full and LoRA): the new run starts where the first ended', async () => {
  const sft = await train(plan(QWEN2, 'SFT', { updates: 150, batch_size: 32, learning_rate: 3e-3 }, null), { out: tempDir() });
  const sftEvals = evals(sft.runDir);
  assert.equal(sftEvals[0]!.step, 0, 'a pretrained run evaluates its starting model');
  const last = sftEvals.at(-1)!;
  assert.ok(last.accuracy > sftEvals[0]!.accuracy, `SFT improved held-out accuracy: ${sftEvals[0]!.accuracy} -> ${last.accuracy}`);

  const exported = path.join(tempDir(), 'sft-model');
  const policy = readRunPolicy(sft.runDir);
  exportPretrained(policy.manifest, policy.weights, exported, { merge: true });

  for (const lora of [undefined, { rank: 8, alpha: 16, targets: ['q_proj', 'v_proj'] }]) {
    const grpo = await train(plan(exported, 'GRPO', { group_size: 4, prompts_per_update: 4, learning_rate: 1e-4 }, 32, lora), { out: tempDir() });
    const first = evals(grpo.runDir)[0]!;
    assert.deepEqual(first, { ...last, step: 0 }, lora ? 'LoRA' : 'full');
  }
});
