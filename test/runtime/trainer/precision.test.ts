// An experiment's `precision: fp16` through train(): an SFT run of a tiny transformer trains with
// float16 products (its hparams say so) and learns as float32 does, and so does a GRPO run with
// pi_old's and pi_ref's passes; a plan with fp16 for an MLP,
// or with an unknown precision, is refused before any run directory exists.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { latestCheckpoint, loadCheckpoint } from '../../../runtime/run/checkpoint.js';
import { readEvents } from '../../../runtime/run/events.js';
import { PlanError, train } from '../../../runtime/train.js';
import { makePlan, startsWithOneGrpoPlan, tempDir } from '../helpers.js';

const TINY = { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 32, heads: 2, context: 16 } };

function reverseSft(precision: string): Plan {
  const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'reverse', len: 3 }, max_tokens: 3 } });
  return { ...plan, policy: TINY, precision, stages: [{ name: 'main', algorithm: { name: 'SFT', kind: 'SFT', params: { updates: 40, batch_size: 32, learning_rate: 3e-3 } }, budget: null }] };
}

test('precision fp16: an SFT run of a transformer trains in mixed precision, learns as fp32 does, and checkpoints its loss scale', async () => {
  const out = tempDir();
  const result = await train(reverseSft('fp16'), { out, checkpointEvery: 640 });
  assert.equal(result.status, 'finished');
  const checkpoint = latestCheckpoint(path.join(result.runDir, 'checkpoints'));
  assert.ok(checkpoint, 'a checkpoint was written');
  const state = loadCheckpoint(checkpoint.file).algorithmState as { lossScale?: { scale: number; goodSteps: number } };
  // 40 finite steps at GradScaler's start: no overflow (the scale would have halved), no growth yet.
  assert.deepEqual(state.lossScale, { scale: 2 ** 16, goodSteps: 40 });
  const hparams = readEvents(path.join(result.runDir, 'events.jsonl')).find((e) => e.type === 'hparams') as { values?: Record<string, unknown> } | undefined;
  assert.equal(hparams?.values?.precision, 'fp16');
  const metrics = readEvents(path.join(result.runDir, 'events.jsonl')).filter((e) => e.type === 'metrics') as { values: Record<string, number> }[];
  assert.deepEqual([metrics.at(-1)!.values['charts/loss_scale'], metrics.at(-1)!.values['charts/skipped_steps']], [2 ** 16, 0], 'the loss scale and the steps skipped are logged');
  // It trained on the CPU (the plan's device): said once, at the start (issue 43 item 20).
  const warnings = readEvents(path.join(result.runDir, 'events.jsonl')).filter((e) => e.type === 'log' && e.level === 'warn' && /precision fp16/.test(e.message as string));
  assert.deepEqual(warnings.map((e) => (e as { message?: string }).message), ["precision fp16, but this run trains on the cpu, where onnxruntime's CPU provider computes float16 products in float32 with casts around them: slower than fp32, and no less memory; set precision fp32, or train where a GPU starts"]);
  const accuracy = result.metrics['eval/accuracy']!;
  // The same run in fp32 reaches > 0.2 (test/runtime/text/train-text.test.ts).
  assert.ok(accuracy > 0.2, `40 updates in fp16 learn some of it: ${accuracy}`);
});

test('precision fp16: a GRPO run with pi_old and pi_ref passes trains on the CPU (the passes float32, the step float16)', async () => {
  const plan = startsWithOneGrpoPlan();
  const result = await train({ ...plan, policy: TINY, precision: 'fp16' }, { out: tempDir() });
  assert.equal(result.status, 'finished');
  const metrics = readEvents(path.join(result.runDir, 'events.jsonl')).filter((e) => e.type === 'metrics') as { values: Record<string, number> }[];
  const mean = (list: typeof metrics) => list.reduce((a, e) => a + e.values['rewards/one']! / list.length, 0);
  // 0.15 -> 0.98 in 25 updates here; on webgpu, with the passes in float16 too, the same (test/runtime/algorithms/text/log-prob-sessions.test.ts).
  assert.ok(mean(metrics.slice(0, 5)) < 0.25 && mean(metrics.slice(-5)) > 0.6, `reward ${mean(metrics.slice(0, 5))} -> ${mean(metrics.slice(-5))}`);
  assert.ok(metrics.every((e) => e.values['charts/skipped_steps'] === 0 && Number.isFinite(e.values['losses/clip_fraction'])), 'no step overflowed float16; the clip fraction is logged');
});

test('precision fp16 with an mlp, or an unknown precision: refused before any run directory exists', async () => {
  const out = tempDir();
  await assert.rejects(train({ ...makePlan(), precision: 'fp16' }, { out }), (err: Error) => err instanceof PlanError && /precision fp16 lowers the gradient steps of transformer and pretrained policies; policy P is mlp/.test(err.message));
  await assert.rejects(train({ ...reverseSft('bf16') }, { out }), (err: Error) => err instanceof PlanError && /unknown precision "bf16" \(known: fp32, fp16\)/.test(err.message));
  assert.deepEqual(fs.readdirSync(out), []);
});
