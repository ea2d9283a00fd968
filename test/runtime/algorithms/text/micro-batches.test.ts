// micro_batch and gradient_checkpointing (runtime/algorithms/text/token-step.ts) change how an
// update goes through memory, never what it computes: a GRPO or SFT run on the hf-tiny Qwen2
// with micro-batches of rows (one graph each), or with recomputed blocks and the head in chunks,
// logs the same losses as the run with the whole update in one graph, every aggregation mode
// (token-mean across micro-batches normalised by the whole update's token count), and records
// what it chose in hparams.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../../../dsl/compile/plan.js';
import { readEvents } from '../../../../runtime/run/events.js';
import { train } from '../../../../runtime/train.js';
import { repoRoot } from '../../../helpers/repo.js';
import { makePlan, tempDir } from '../../helpers.js';
import { batchRows, chooseMemory, rowSlice } from '../../../../runtime/algorithms/text/token-step.js';
import { PretrainedPolicy } from '../../../../runtime/policies/pretrained.js';
import { Rng } from '../../../../shared/random.js';

const QWEN2 = path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2');

function plan(algorithm: 'GRPO' | 'SFT', params: Record<string, unknown>, lora: boolean): Plan {
  const p = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 6 }, algorithm, algorithmParams: params, budget: algorithm === 'GRPO' ? 2 * 6 * 4 : 1 });
  if (algorithm === 'SFT') p.stages[0]!.budget = null;
  // A reward that differs within every group (the random model never adds correctly): the completion's length.
  else p.reward = { name: 'R', replace_env_reward: true, terms: [{ name: 'long', expr: { call: 'length', args: [{ ref: 'completion' }] } }] } as Plan['reward'];
  p.policy = { name: 'Base', kind: 'pretrained', params: { model: QWEN2, ...(lora ? { lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj', 'gate_proj'] } } : {}) } as Plan['policy']['params'] };
  p.eval = { every: 1_000_000, episodes: 4, deterministic: true };
  return p;
}

/** Each update's logged losses, and the run's hparams. */
async function run(p: Plan): Promise<{ updates: Record<string, number>[]; hparams: Record<string, unknown> }> {
  const out = tempDir();
  const result = await train(p, { out });
  const events = readEvents(path.join(result.runDir, 'events.jsonl'));
  const updates = events.flatMap((e) => (e.type === 'metrics' ? [e.values] : []));
  const hparams = events.flatMap((e) => (e.type === 'hparams' ? [e.values] : []))[0]!;
  return { updates, hparams };
}

function assertSameLosses(actual: Record<string, number>[], expected: Record<string, number>[], names: readonly string[], what: string): void {
  assert.equal(actual.length, expected.length, `${what}: updates logged`);
  assert.ok(expected.length >= 2, `${what}: at least two updates (the second samples with the first's weights)`);
  assert.ok(expected.some((e) => e['losses/grad_norm']! > 0), `${what}: the updates have gradients`);
  expected.forEach((e, u) => {
    for (const name of names) {
      const [a, b] = [actual[u]![name], e[name]];
      assert.ok(typeof b === 'number', `${what}: ${name} logged`);
      assert.ok(Math.abs(a! - b) <= 1e-4 * Math.max(1e-2, Math.abs(b)), `${what}, update ${u + 1}: ${name} ${a} against ${b}`);
    }
  });
}

const GRPO_LOSSES = ['losses/policy_loss', 'losses/kl', 'losses/entropy', 'losses/grad_norm'];

for (const loss of ['sequence', 'token', 'constant'] as const) {
  test(`GRPO (${loss} averaging, LoRA, iterations 2 so pi_old and pi_ref are passes): micro_batch 5 and recomputed blocks log the one-graph run's losses`, async () => {
    const base = { prompts_per_update: 3, group_size: 4, max_new_tokens: 6, loss, iterations: 2, kl_coef: 0.1, learning_rate: 1e-2 };
    const whole = await run(plan('GRPO', { ...base, micro_batch: 12, gradient_checkpointing: false }, true));
    const micro = await run(plan('GRPO', { ...base, micro_batch: 5, gradient_checkpointing: false }, true));
    const segmented = await run(plan('GRPO', { ...base, micro_batch: 5, gradient_checkpointing: true }, true));
    assertSameLosses(micro.updates, whole.updates, GRPO_LOSSES, 'micro-batches');
    assertSameLosses(segmented.updates, whole.updates, GRPO_LOSSES, 'recomputed blocks');
    assert.deepEqual([segmented.hparams.micro_batch, segmented.hparams.gradient_checkpointing], [5, true]);
    assert.deepEqual([micro.hparams.micro_batch, micro.hparams.gradient_checkpointing], [5, false]);
    // The estimate the run was checked against, beside each update's measured peak (the dashboard shows both).
    const estimate = micro.hparams.memory_estimate_bytes as number;
    assert.ok(estimate > 300 * 2 ** 20 && estimate < 4 * 2 ** 30, `memory_estimate_bytes ${estimate}: the runtime's 0.3 GiB and the model's few MB`);
    assert.ok(micro.updates.every((u) => u['memory/peak_rss_bytes']! > 0), 'memory/peak_rss_bytes logged each update');
  });
}

test('SFT with every weight trained: micro_batch 3 and recomputed blocks log the one-graph run\'s losses', async () => {
  const base = { updates: 3, batch_size: 8, learning_rate: 3e-3 };
  const whole = await run(plan('SFT', { ...base, micro_batch: 8, gradient_checkpointing: false }, false));
  const segmented = await run(plan('SFT', { ...base, micro_batch: 3, gradient_checkpointing: true }, false));
  assertSameLosses(segmented.updates, whole.updates, ['losses/sft_loss', 'losses/grad_norm', 'train/token_accuracy'], 'SFT recomputed');
});

test('auto: the whole update in one graph where it fits; recomputed blocks in micro-batches where it does not', () => {
  const policy = PretrainedPolicy.load({ folder: QWEN2 }, new Rng(1));
  const compute = { providers: ['cpu'] as const };
  const auto = { microBatch: 'auto', checkpointing: 'auto' } as const;
  assert.deepEqual(chooseMemory(policy, auto, 128, 512, compute, 8 * 2 ** 30), { microBatch: 128, checkpointing: false });
  // The fixture's 400-token vocabulary: 128 rows of 512 tokens in one graph take about 0.9 GB.
  const tight = chooseMemory(policy, auto, 128, 512, compute, 200 * 2 ** 20);
  assert.equal(tight.checkpointing, true);
  assert.ok(tight.microBatch < 128 && tight.microBatch >= 1, `micro-batch ${tight.microBatch}`);
  assert.deepEqual(chooseMemory(policy, { microBatch: 7, checkpointing: false }, 128, 512, compute, 2 ** 20), { microBatch: 7, checkpointing: false });
  assert.equal(chooseMemory(policy, auto, 128, 512, { providers: ['cpu'], precision: 'fp16' }, 200 * 2 ** 20).checkpointing, false, 'fp16 has no segmented step');
});

test('a micro-batch of rows is a view of the batch\'s rows; scalars pass as they are', () => {
  const feeds = { tokens: { data: BigInt64Array.from([1n, 2n, 3n, 4n, 5n, 6n]), dims: [3, 2] }, mask: { data: Float32Array.from([1, 0, 1, 1, 0, 1]), dims: [3, 2] }, inv_tokens: Float32Array.of(0.25) };
  assert.equal(batchRows(feeds), 3);
  const slice = rowSlice(feeds, 3, 1, 2);
  assert.deepEqual(slice.tokens, { data: BigInt64Array.from([3n, 4n, 5n, 6n]), dims: [2, 2] });
  assert.deepEqual((slice.mask as unknown as { dims: number[] }).dims, [2, 2]);
  assert.equal(slice.inv_tokens, feeds.inv_tokens);
});
