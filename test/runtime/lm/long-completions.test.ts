// Completions of reasoning length: a GRPO run on the hf-tiny Qwen2 with its context raised to
// 4096 samples completions up to 2048 tokens (once capped at 256) and trains on them, in
// micro-batches with recomputed blocks, as a long run on a real model would.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { readEvents } from '../../../runtime/run/events.js';
import { train } from '../../../runtime/train.js';
import { repoRoot } from '../../helpers/repo.js';
import { makePlan, tempDir } from '../helpers.js';

const QWEN2 = path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2');

/** The fixture with max_position_embeddings 4096: the same weights (rotary positions have no table to outgrow). */
function longContextQwen2(): string {
  const dir = path.join(tempDir(), 'qwen2-4k');
  fs.mkdirSync(dir);
  for (const file of fs.readdirSync(QWEN2)) fs.copyFileSync(path.join(QWEN2, file), path.join(dir, file));
  const config = JSON.parse(fs.readFileSync(path.join(QWEN2, 'config.json'), 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ ...config, max_position_embeddings: 4096 }));
  return dir;
}

test('GRPO samples completions of up to 2048 tokens on a 4096-token context and trains on them (micro-batches, recomputed blocks)', async () => {
  // A dataset of a dozen prompts: the run's final evaluation decodes its one or two held-out prompts greedily, to 2048 tokens each.
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'data.jsonl'), ['1+1', '2+2', '3+3', '4+4', '5+5', '6+6', '7+7', '8+8', '9+9', '1+2', '2+3', '3+4'].map((prompt) => JSON.stringify({ prompt, target: 'x' })).join('\n') + '\n');
  const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'dataset', path: 'data.jsonl' }, max_tokens: 2048 }, algorithm: 'GRPO', algorithmParams: { prompts_per_update: 2, group_size: 2, max_new_tokens: 2048, micro_batch: 2, gradient_checkpointing: true, temperature: 1.5 }, budget: 4 });
  plan.policy = { name: 'Base', kind: 'pretrained', params: { model: longContextQwen2() } as Plan['policy']['params'] };
  // The completion's length as the reward: it differs within each group, so the update has gradients.
  plan.reward = { name: 'R', replace_env_reward: true, terms: [{ name: 'long', expr: { call: 'length', args: [{ ref: 'completion' }] } }] } as Plan['reward'];
  plan.eval = null;
  const result = await train(plan, { out: tempDir(), baseDir: dir });
  const [update] = readEvents(path.join(result.runDir, 'events.jsonl')).flatMap((e) => (e.type === 'metrics' ? [e.values] : []));
  assert.ok(update, 'one update logged');
  assert.ok(update['train/completion_length']! > 256, `completions averaged ${update['train/completion_length']} tokens: past the old cap of 256`);
  assert.ok(Number.isFinite(update['losses/policy_loss']) && update['losses/grad_norm']! > 0, JSON.stringify(update));
});
