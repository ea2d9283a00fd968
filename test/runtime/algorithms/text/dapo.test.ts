// DAPO's sample filters in GRPO (Yu et al. 2025): dynamic sampling (collect.ts, filter.ts) and
// overlong completions dropped or penalised (overlong.ts), on hand-made batches and in short runs.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { grpoLearnerConfig } from '../../../../runtime/algorithms/grpo/grpo.js';
import { grpoSettings } from '../../../../runtime/algorithms/grpo/settings.js';
import { collectBatch } from '../../../../runtime/algorithms/text/collect.js';
import { informativeGroups } from '../../../../runtime/algorithms/text/filter.js';
import { applyOverlong, overlongPenalty } from '../../../../runtime/algorithms/text/overlong.js';
import type { LanguageModel } from '../../../../runtime/policies/index.js';
import { slotLengths } from '../../../../runtime/text/env.js';
import type { RolloutOptions, Rollouts, TextEnv } from '../../../../runtime/text/text-env.js';
import { EOS, PAD } from '../../../../runtime/policies/transformer/char-tokenizer.js';
import { readEvents } from '../../../../runtime/run/events.js';
import { train } from '../../../../runtime/train.js';
import { InputError } from '../../../../shared/input-error.js';
import { Rng } from '../../../../shared/random.js';
import type { Plan } from '../../../../dsl/compile/plan.js';
import { repoRoot } from '../../../helpers/repo.js';
import { makePlan, tempDir } from '../../helpers.js';

/** A batch of `rewards.length` rows of width 2, each with one learned token; `cut` rows were truncated. */
function scored(rewards: readonly number[], cut: readonly number[] = [], lengths?: readonly number[]): Rollouts {
  const rows = rewards.length;
  return {
    rows, width: 2, tokens: new BigInt64Array(rows * 2), targets: new BigInt64Array(rows * 2),
    mask: Float32Array.from({ length: rows * 2 }, (_, i) => i % 2), perRow: new Int32Array(rows).fill(1), tokenCount: rows,
    rewards: Float64Array.from(rewards), samples: rewards.map((reward) => ({ start: 'p', text: 'x', reward })),
    steps: rows, metrics: { 'train/accuracy': 0.5, 'charts/completions': rows }, episodes: [],
    completions: { lengths: Int32Array.from(lengths ?? rewards.map(() => 2)), truncated: Uint8Array.from(rewards, (_, r) => (cut.includes(r) ? 1 : 0)), max: 6 },
  };
}

/** An env that hands out the given batches' rewards in turn, `groups` groups of 2 at a time. */
function scriptedEnv(script: number[][]): TextEnv & { asked: number[] } {
  const asked: number[] = [];
  let next = 0;
  return {
    asked,
    rollouts: async (_model: LanguageModel, o: RolloutOptions) => {
      asked.push(o.groups);
      return scored(script[next++]!.slice(0, o.groups * o.groupSize));
    },
  } as unknown as TextEnv & { asked: number[] };
}

const options = { groupSize: 2, startRng: new Rng(1), sampleRng: new Rng(2), temperature: 1 };
const keep = { mode: 'keep', buffer: 2 } as const;

test('filter: the groups whose rewards differ, in order', () => {
  assert.deepEqual(informativeGroups([1, 1, 0, 1, 2, 2, 0.5, 0.4], 2), [1, 3]);
});

test('dynamic sampling: flat groups are dropped and more batches sampled until the update is full; every sample counts', async () => {
  // 3 groups wanted: the first batch has 1 informative group, the second 2 (of which 2 are needed).
  const env = scriptedEnv([[1, 1, 0, 1, 0, 0], [5, 6, 2, 2, 7, 8]]);
  const batch = await collectBatch(env, {} as LanguageModel, 3, 100, options, { overlong: keep, dynamicSampling: { maxRounds: 3 }, where: 'GRPO' });
  assert.deepEqual([...batch.rewards], [0, 1, 5, 6, 7, 8]);
  assert.equal(batch.steps, 12, 'the dropped samples count against the budget');
  assert.equal(batch.metrics['train/sampling_rounds'], 2);
  assert.equal(batch.metrics['charts/dropped_groups'], 3);
  assert.equal(batch.metrics['charts/trained_groups'], 3);
  assert.equal(batch.metrics['charts/completions'], 12);
  // Without it (the setting ignored), one batch, flat groups and all.
  const plain = await collectBatch(scriptedEnv([[1, 1, 0, 1, 0, 0]]), {} as LanguageModel, 3, 100, options, { overlong: keep, dynamicSampling: null, where: 'GRPO' });
  assert.deepEqual([...plain.rewards], [1, 1, 0, 1, 0, 0]);
  assert.equal(plain.metrics['train/sampling_rounds'], undefined);
});

test('dynamic sampling: at max_sampling_rounds, or at the end of the budget, the update trains on fewer groups', async () => {
  const capped = await collectBatch(scriptedEnv([[1, 1, 0, 1], [2, 2, 3, 3], [4, 5, 6, 6]]), {} as LanguageModel, 2, 100, options, { overlong: keep, dynamicSampling: { maxRounds: 2 }, where: 'GRPO' });
  assert.deepEqual([...capped.rewards], [0, 1]);
  assert.equal(capped.metrics['train/sampling_rounds'], 2);
  const env = scriptedEnv([[1, 1, 0, 1], [4, 5, 6, 7]]);
  const short = await collectBatch(env, {} as LanguageModel, 2, 6, options, { overlong: keep, dynamicSampling: { maxRounds: 5 }, where: 'GRPO' });
  assert.deepEqual(env.asked, [2, 1], 'the second batch is what the budget has left');
  assert.deepEqual([...short.rewards], [0, 1, 4, 5]);
  // No informative group at all: the last batch, advantages 0, as plain GRPO would train on.
  const flat = await collectBatch(scriptedEnv([[1, 1, 0, 0], [3, 3, 2, 2]]), {} as LanguageModel, 2, 100, options, { overlong: keep, dynamicSampling: { maxRounds: 2 }, where: 'GRPO' });
  assert.deepEqual([...flat.rewards], [3, 3, 2, 2]);
  assert.equal(flat.steps, 8);
});

test('overlong penalize: DAPO\'s soft punishment, 0 up to L_max - L_cache, then linear down to -1 at L_max', () => {
  assert.deepEqual([2, 4, 5, 6, 7].map((n) => overlongPenalty(n, 6, 2)), [0, 0, -0.5, -1, -1]);
  const { batch, metrics } = applyOverlong(scored([1, 0, 1, 0], [3], [3, 5, 4, 6]), { mode: 'penalize', buffer: 2 }, 'GRPO');
  assert.deepEqual([...batch.rewards], [1, -0.5, 1, -1]);
  assert.deepEqual(metrics, { 'train/overlong': 0.25, 'train/overlong_penalty': -0.375 });
});

test('overlong drop: cut completions leave the loss (mask 0), the others and the rewards are unchanged', () => {
  const { batch, metrics } = applyOverlong(scored([1, 0, 1, 0], [1, 2]), { mode: 'drop', buffer: 2 }, 'GRPO');
  assert.deepEqual([...batch.mask], [0, 1, 0, 0, 0, 0, 0, 1]);
  assert.deepEqual([...batch.perRow], [1, 0, 0, 1]);
  assert.equal(batch.tokenCount, 2);
  assert.deepEqual([...batch.rewards], [1, 0, 1, 0]);
  assert.equal(metrics['train/overlong'], 0.5);
  const kept = scored([1, 0]);
  assert.equal(applyOverlong(kept, { mode: 'keep', buffer: 2 }, 'GRPO').batch, kept);
  const dialogue = { ...scored([1, 0]), completions: undefined };
  assert.throws(() => applyOverlong(dialogue, { mode: 'drop', buffer: 2 }, 'GRPO'), (e: Error) => e instanceof InputError && /GRPO: overlong: drop needs a single-turn text task/.test(e.message));
});

test('a completion is cut when its slots hold no EOS: it wrote N - 1 characters', () => {
  const N = 4;
  const slots = Int32Array.of(5, EOS, PAD, PAD, 5, 6, 7, PAD, 5, 6, 7, EOS, 5, 6, 7, 8);
  const { lengths, truncated, max } = slotLengths(slots, 4, N);
  assert.deepEqual([...lengths], [1, 3, 3, 4]);
  assert.deepEqual([...truncated], [0, 1, 0, 1]);
  assert.equal(max, 3);
});

test('GRPO passes the DAPO settings on to the learner', () => {
  const config = (params: Record<string, unknown>) => grpoLearnerConfig(grpoSettings(params));
  assert.equal(config({}).dynamicSampling, null);
  assert.deepEqual(config({}).overlong, { mode: 'keep', buffer: 2 });
  assert.deepEqual(config({ dynamic_sampling: true, max_sampling_rounds: 5 }).dynamicSampling, { maxRounds: 5 });
  assert.deepEqual(config({ overlong: 'penalize', overlong_buffer: 3 }).overlong, { mode: 'penalize', buffer: 3 });
  assert.throws(() => grpoSettings({ overlong: 'cut' }), /param "overlong" must be one of keep, drop, penalize/);
});

/** A short GRPO run of an untrained model (most completions run to max_tokens) on a reward few completions earn. */
async function run(params: Record<string, unknown>) {
  const plan = makePlan({
    env: 'TextTask',
    envParams: { task: { kind: 'addition', digits: 2 }, max_tokens: 4 },
    algorithm: 'GRPO',
    algorithmParams: { group_size: 4, prompts_per_update: 4, learning_rate: 3e-3, ...params },
    budget: 96,
    reward: { name: 'R', replace_env_reward: true, terms: [{ name: 'one', expr: { call: 'regex', args: [{ ref: 'completion' }, { const: '^1' }] } }] },
  });
  plan.policy = { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 16, heads: 2, context: 16 } };
  const result = await train(plan, { out: tempDir() });
  return readEvents(`${result.runDir}/events.jsonl`).filter((e) => e.type === 'metrics').map((e) => e.values);
}

test('in a run, dynamic sampling trains on informative groups only and counts every completion sampled', async () => {
  const plain = await run({});
  assert.equal(plain.length, 6);
  assert.ok(plain.some((m) => m['charts/zero_advantage_groups']! > 0), 'flat groups happen: the filter has something to drop');
  const dynamic = await run({ dynamic_sampling: true, max_sampling_rounds: 4 });
  assert.ok(dynamic.every((m) => m['charts/zero_advantage_groups'] === 0), `${dynamic.map((m) => m['charts/zero_advantage_groups'])}`);
  assert.ok(dynamic.some((m) => m['train/sampling_rounds']! > 1 && m['charts/dropped_groups']! > 0));
  const sampled = dynamic.reduce((sum, m) => sum + m['charts/completions']!, 0);
  assert.ok(sampled >= 96 && dynamic.length < plain.length, `${sampled} completions in ${dynamic.length} updates`);
});

test('in a run, overlong penalize takes the penalty off the rewards; drop leaves cut completions out of the loss', async () => {
  const keepRun = await run({});
  const penalized = await run({ overlong: 'penalize', overlong_buffer: 2 });
  assert.ok(penalized[0]!['train/overlong']! >= 0.25, 'an untrained model often runs to max_tokens');
  assert.ok(penalized[0]!['train/overlong_penalty']! < -0.5);
  assert.notEqual(penalized[0]!['losses/policy_loss'], keepRun[0]!['losses/policy_loss'], 'the penalty changes the advantages');
  const dropped = await run({ overlong: 'drop' });
  assert.equal(dropped[0]!['train/overlong'], penalized[0]!['train/overlong'], 'the same samples');
  assert.notEqual(dropped[0]!['losses/entropy'], keepRun[0]!['losses/entropy'], 'fewer completions in the loss');
  assert.ok(!('train/overlong' in keepRun[0]!));
});

test('a pretrained model (hf-tiny Qwen2): its cut completions are found by their missing stop id, and dynamic sampling joins its batches', async () => {
  const plan = makePlan({
    env: 'TextTask',
    envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 6 },
    algorithm: 'GRPO',
    algorithmParams: { group_size: 4, prompts_per_update: 2, learning_rate: 1e-3, overlong: 'penalize', overlong_buffer: 3, dynamic_sampling: true, max_sampling_rounds: 3 },
    budget: 48,
    // The random model's texts hold an "e" or not: some groups differ, some do not.
    reward: { name: 'R', replace_env_reward: true, terms: [{ name: 'e', expr: { call: 'regex', args: [{ ref: 'completion' }, { const: 'e' }] } }] },
  });
  plan.policy = { name: 'Base', kind: 'pretrained', params: { model: path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2') } as Plan['policy']['params'] };
  const result = await train(plan, { out: tempDir() });
  const metrics = readEvents(`${result.runDir}/events.jsonl`).filter((e) => e.type === 'metrics').map((e) => e.values);
  assert.equal(metrics.reduce((sum, m) => sum + m['charts/completions']!, 0), 48, 'every completion sampled counts against the budget');
  assert.ok(metrics.every((m) => m['train/overlong']! >= 0 && m['train/overlong_penalty']! <= -m['train/overlong']!), JSON.stringify(metrics.map((m) => [m['train/overlong'], m['train/overlong_penalty']])));
  assert.ok(metrics.some((m) => m['train/overlong']! > 0), 'a random model runs on to max_tokens');
  assert.ok(metrics.some((m) => m['train/sampling_rounds']! > 1 && m['charts/trained_groups']! > 0), 'batches joined: groups kept from two of them');
  assert.ok(metrics.every((m) => Number.isFinite(m['losses/policy_loss']!)));
});
