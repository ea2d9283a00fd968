// The learning target, shortened (examples/addition-dpo.rlx runs the whole one, with its figures
// in its header): on the hf-tiny Qwen2 (random weights), an SFT warm-up on two-digit sums, then
// DPO with rpo_alpha on pairs whose chosen answer is right and whose rejected one has a digit
// wrong, through the trainer as `rlx train` runs it; the held-out exact match rises.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../../../dsl/compile/plan.js';
import { readEvents } from '../../../../runtime/run/events.js';
import { train } from '../../../../runtime/train.js';
import { repoRoot } from '../../../helpers/repo.js';
import { makePlan, tempDir } from '../../helpers.js';

test('SFT warm-up then DPO (rpo_alpha 1) on right/wrong pairs: held-out exact match rises by at least 8 points', async () => {
  const dir = tempDir();
  fs.copyFileSync(path.join(repoRoot(), 'examples/data/addition-pairs.jsonl'), path.join(dir, 'pairs.jsonl'));
  const plan: Plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 8 }, algorithm: 'SFT', algorithmParams: { updates: 600, batch_size: 32, learning_rate: 1e-3 } });
  plan.stages[0]!.budget = null;
  plan.stages.push({ name: 'pref', algorithm: { name: 'Pref', kind: 'DPO', params: { data: './pairs.jsonl', updates: 120, batch_size: 16, learning_rate: 1e-4, beta: 0.1, rpo_alpha: 1 } }, budget: null });
  plan.policy = { name: 'Tiny', kind: 'pretrained', params: { model: path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2') } as Plan['policy']['params'] };
  plan.eval = { every: 1_000_000, episodes: 256, deterministic: true };
  const result = await train(plan, { out: tempDir(), baseDir: dir });
  assert.equal(result.status, 'finished');
  const events = readEvents(path.join(result.runDir, 'events.jsonl'));
  // The last two evaluations: at the end of each stage.
  const [afterSft, afterDpo] = events.flatMap((e) => (e.type === 'eval' ? [e.values['eval/accuracy']!] : [])).slice(-2) as [number, number];
  assert.ok(afterDpo - afterSft >= 0.08, `held-out exact match ${afterSft} after SFT, ${afterDpo} after DPO`);
  const dpo = events.flatMap((e) => (e.type === 'metrics' && e.values['losses/dpo_loss'] !== undefined ? [e.values] : []));
  assert.equal(dpo.length, 120);
  const mean = (rows: typeof dpo, name: string) => rows.reduce((s, m) => s + m[name]!, 0) / rows.length;
  assert.ok(mean(dpo.slice(-20), 'train/rewards/margins') > mean(dpo.slice(0, 20), 'train/rewards/margins'), 'the margins grow');
});
