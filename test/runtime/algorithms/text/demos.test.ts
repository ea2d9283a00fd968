// GRPO's auxiliary supervised term (sft_data, sft_coef, sft_batch_size: runtime/algorithms/text/demos.ts):
// the demonstrations' cross-entropy joins the update's gradient, a file of demonstrations is
// read and refused as a dataset's is, bundled into the run, and a resumed run draws the same ones.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../../../dsl/compile/plan.js';
import { isInputError } from '../../../../shared/input-error.js';
import { readEvents } from '../../../../runtime/run/events.js';
import { DATA_FOLDER } from '../../../../runtime/run/data-files.js';
import { resume, train } from '../../../../runtime/train.js';
import { joinRows } from '../../../../runtime/algorithms/text/demos.js';
import { tokenRows } from '../../../../runtime/text/token-rows.js';
import { repoRoot } from '../../../helpers/repo.js';
import { makePlan, tempDir } from '../../helpers.js';

/** GRPO on one-digit addition with a reward every completion earns alike: every advantage is 0, so only the cross-entropy moves the weights. */
function plan(params: Record<string, unknown>, budget = 64): Plan {
  const p = makePlan({
    env: 'TextTask',
    envParams: { task: { kind: 'addition', digits: 1 }, max_tokens: 3 },
    algorithm: 'GRPO',
    algorithmParams: { group_size: 4, prompts_per_update: 2, kl_coef: 0, learning_rate: 3e-3, sft_batch_size: 16, ...params },
    budget,
    reward: { name: 'R', replace_env_reward: true, terms: [{ name: 'same', expr: { const: 1 } }] },
  });
  p.policy = { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 16, heads: 2, context: 16 } };
  return p;
}

const metricsOf = (runDir: string) => readEvents(path.join(runDir, 'events.jsonl')).filter((e) => e.type === 'metrics').map((e) => e.values as Record<string, number>);

test('sft_coef: the demonstrations\' cross-entropy falls with a weight on it, and stays where it was with 0', async () => {
  const weighted = metricsOf((await train(plan({ sft_data: 'demos', sft_coef: { schedule: 'linear', from: 1, to: 0.5, over: 1 } }), { out: tempDir() })).runDir);
  const unweighted = metricsOf((await train(plan({ sft_data: 'demos', sft_coef: 0 }), { out: tempDir() })).runDir);
  assert.equal(weighted.length, 8);
  const sft = (ms: Record<string, number>[]) => ms.map((m) => m['losses/sft']!);
  // The same demonstrations each update (their own stream), the same weights before the first step.
  assert.equal(sft(weighted)[0], sft(unweighted)[0]);
  for (let k = 2; k < 8; k++) assert.ok(sft(weighted)[k]! < sft(unweighted)[k]! - 0.05, `update ${k + 1}: ${sft(weighted)} vs ${sft(unweighted)}`);
  assert.ok(sft(weighted).at(-1)! < sft(weighted)[0]! - 0.2, `${sft(weighted)}`);
  // The schedule: from 1 towards 0.5 over the stage's completions.
  const coef = weighted.map((m) => m['charts/sft_coef']!);
  assert.equal(coef[0], 1);
  assert.ok(coef.every((c, k) => k === 0 || (c < coef[k - 1]! && c >= 0.5)), `${coef}`);
  assert.ok(unweighted.every((m) => m['charts/sft_coef'] === 0));
});

test('without sft_data: no demonstrations, no sft metrics (plain GRPO)', async () => {
  const result = await train(plan({ sft_coef: 0.5 }, 16), { out: tempDir() });
  const metrics = metricsOf(result.runDir);
  assert.ok(metrics.every((m) => !('losses/sft' in m) && !('charts/sft_coef' in m)));
  assert.equal(fs.existsSync(path.join(result.runDir, DATA_FOLDER)), false);
});

/** A folder with `demos.jsonl` holding `lines`. */
function folderWith(lines: string): string {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'demos.jsonl'), lines);
  return dir;
}

const DEMOS = Array.from({ length: 10 }, (_, a) => JSON.stringify({ prompt: `${a}+${9 - a}=`, target: '9' })).join('\n') + '\n';

test('sft_data file: trained on, copied into the run, and a resumed run draws the demonstrations an uninterrupted one does', async () => {
  const baseDir = folderWith(DEMOS);
  const p = plan({ sft_data: 'demos.jsonl', sft_coef: 0.5 }, 96);
  const whole = await train(p, { out: tempDir(), baseDir });
  assert.equal(fs.readFileSync(path.join(whole.runDir, DATA_FOLDER, 'main.sft_data.jsonl'), 'utf8'), DEMOS);
  const controller = new AbortController();
  const stopped = await train(p, { out: tempDir(), baseDir, signal: controller.signal, onProgress: (s) => s.step >= 40 && controller.abort() });
  assert.equal(stopped.status, 'stopped');
  fs.rmSync(path.join(baseDir, 'demos.jsonl')); // the run reads its own copy
  const resumed = await resume(stopped.runDir);
  assert.equal(resumed.status, 'finished');
  const sft = (dir: string) => metricsOf(dir).map((m) => m['losses/sft']);
  assert.equal(sft(whole.runDir).length, 12);
  assert.deepEqual(sft(stopped.runDir), sft(whole.runDir), 'the same demonstrations and weights, update by update');
});

test('sft_data file: refused before training, naming the file and what to do', async () => {
  const refusal = async (lines: string | null, pattern: RegExp, params: Record<string, unknown> = {}) => {
    const baseDir = lines === null ? tempDir() : folderWith(lines);
    await assert.rejects(train(plan({ sft_data: 'demos.jsonl', ...params }), { out: tempDir(), baseDir }), (err: Error) => {
      assert.ok(isInputError(err), `${err.name}: ${err.message}`);
      assert.match(err.message, pattern);
      return true;
    });
  };
  await refusal(null, /stage main: sft_data "demos\.jsonl": cannot read the data file .*demos\.jsonl: no such file/);
  await refusal('{"prompt": "1+1=", "target": "2"}\n{"prompt": "1+2="}\n', /demos\.jsonl line 2: no "target" field/);
  // Rows of this task hold prompts of 4 characters and completions of 3 (max_tokens).
  await refusal('{"prompt": "1+1=", "target": "2"}\n{"prompt": "11+1=", "target": "12"}\n', /sft_data "demos\.jsonl": example 2 does not fit this task's rows/);
  await refusal('{"prompt": "1+1=", "target": "two"}\n', /sft_data "demos\.jsonl": example 1 does not fit.*not in the task's vocabulary/);
  await refusal('{"prompt": "1+1=", "target": "12"}\n', /example 1 does not fit.*max_new_tokens/, { max_new_tokens: 1 });
});

test('sft_data: demos longer than max_new_tokens are refused before training', async () => {
  await assert.rejects(train(plan({ sft_data: 'demos', max_new_tokens: 1 }), { out: tempDir() }), /sft_data: demos: the task's targets have up to 2 characters.*raise max_new_tokens to at least 2/);
});

test('the cross-entropy is the model\'s own (temperature 1), whatever the sampling temperature', async () => {
  const first = async (temperature: number) => metricsOf((await train(plan({ sft_data: 'demos', temperature }, 8), { out: tempDir() })).runDir)[0]!['losses/sft']!;
  const atOne = await first(1);
  assert.ok(Number.isFinite(atOne) && atOne > 0);
  // The same first weights and demonstrations: only the logits' scaling could differ.
  assert.ok(Math.abs((await first(0.5)) - atOne) < 1e-5);
});

test('sft_data: demos of a dialogue env (GuessNumber\'s bisecting expert) join its samples', async () => {
  const p = makePlan({ env: 'GuessNumber', envParams: { low: 1, high: 20, max_turns: 5 }, algorithm: 'GRPO', algorithmParams: { group_size: 2, prompts_per_update: 2, sft_data: 'demos', sft_coef: 1, sft_batch_size: 4 }, budget: 8 });
  p.policy = { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 16, heads: 2, context: 80 } };
  const metrics = metricsOf((await train(p, { out: tempDir() })).runDir);
  assert.ok(metrics.length > 0 && metrics.every((m) => Number.isFinite(m['losses/sft']) && m['losses/sft']! > 0), JSON.stringify(metrics.map((m) => m['losses/sft'])));
});

test('a pretrained model\'s samples and demonstrations join with their completions aligned, the demonstrations weighted per token', () => {
  const samples = tokenRows([[5, 6, 7]], [[1, 2]], 9); // W 3, T 4
  const demos = tokenRows([[8]], [[3, 4, 0]], 9); // W 1, T 3
  const fed: [number[], number][] = [];
  const joined = joinRows(samples, demos, { padId: 9, rowFeeds: (starts, width) => (fed.push([[...starts], width]), {}) });
  assert.deepEqual([joined.rows, joined.width], [2, 5]);
  assert.deepEqual([...joined.tokens].map(Number), [5, 6, 7, 1, 9, 9, 9, 8, 3, 4]);
  assert.deepEqual([...joined.targets].map(Number), [6, 7, 1, 2, 9, 9, 9, 3, 4, 0]);
  assert.deepEqual([...joined.sftWeight].map((w) => Math.round(w * 3)), [0, 0, 0, 0, 0, 0, 0, 1, 1, 1]);
  assert.deepEqual([...joined.extend(samples.mask)], [0, 0, 1, 1, 0, 0, 0, 0, 0, 0]);
  assert.deepEqual([...joined.extendRows(Float32Array.of(0.5))], [0.5, 0]);
  assert.deepEqual(fed, [[[0, 2], 5]]);
});

test('sft_data with a pretrained model (the tiny Qwen2): demonstrations from a file join its samples', async () => {
  const baseDir = folderWith(DEMOS);
  const p = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 1 }, max_tokens: 3 }, algorithm: 'GRPO', algorithmParams: { group_size: 2, prompts_per_update: 2, sft_data: 'demos.jsonl', sft_coef: 1, sft_batch_size: 3, reference: 'none' }, budget: 8 });
  p.policy = { name: 'Base', kind: 'pretrained', params: { model: path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2') } as Plan['policy']['params'] };
  const metrics = metricsOf((await train(p, { out: tempDir(), baseDir })).runDir);
  assert.equal(metrics.length, 2);
  // A random model's cross-entropy over its vocabulary is about log(vocab): finite and well above 1.
  assert.ok(metrics.every((m) => Number.isFinite(m['losses/sft']) && m['losses/sft']! > 1), JSON.stringify(metrics.map((m) => m['losses/sft'])));
});
