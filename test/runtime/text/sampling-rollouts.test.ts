// The sampling controls where training meets them: a text env's rollouts (a pretrained model
// and the character-level transformer) drawn under top_k and stop strings, a GRPO run that
// records its controls in hparams, and a run whose completion cannot fit the model's context
// refused in words.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { makeTokenModel } from '../../../runtime/policies/index.js';
import { PretrainedPolicy } from '../../../runtime/policies/pretrained.js';
import { readEvents } from '../../../runtime/run/events.js';
import { TextEnvironment } from '../../../runtime/text/env.js';
import type { RolloutOptions } from '../../../runtime/text/text-env.js';
import type { TokenModel } from '../../../runtime/policies/index.js';
import { train } from '../../../runtime/train.js';
import { TextWorkload, textEnvOf } from '../../../runtime/trainer/text-workload.js';
import { isInputError } from '../../../shared/input-error.js';
import { Rng } from '../../../shared/random.js';
import { repoRoot } from '../../helpers/repo.js';
import { makePlan, tempDir } from '../helpers.js';

const QWEN2 = path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2');

function textPlan(maxTokens: number, algorithmParams: Record<string, unknown> = {}, policy?: Plan['policy']): Plan {
  const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2 }, max_tokens: maxTokens }, algorithm: 'GRPO', algorithmParams: { group_size: 4, prompts_per_update: 2, ...algorithmParams }, budget: 8 });
  if (policy) plan.policy = policy;
  plan.eval = { every: 1_000_000, episodes: 4, deterministic: true };
  return plan;
}

const options = (sampling?: RolloutOptions['sampling']): RolloutOptions => ({ groups: 3, groupSize: 4, startRng: new Rng(1), sampleRng: new Rng(2), temperature: 2, ...(sampling ? { sampling } : {}) });
const groupsOf = (texts: readonly string[], G: number) => Array.from({ length: texts.length / G }, (_, g) => texts.slice(g * G, (g + 1) * G));

test('a pretrained model\'s rollouts under top_k 1 are each prompt\'s greedy completion; without it, at temperature 2, they vary', async () => {
  const policy = PretrainedPolicy.load({ folder: QWEN2 }, new Rng(1));
  const env = TextEnvironment.fromPlan(textPlan(8));
  try {
    const narrowed = (await env.rollouts(policy, options({ topK: 1 }))).samples.map((s) => s.text ?? '');
    for (const group of groupsOf(narrowed, 4)) assert.equal(new Set(group).size, 1, JSON.stringify(group));
    const plain = (await env.rollouts(policy, options())).samples.map((s) => s.text ?? '');
    assert.ok(groupsOf(plain, 4).some((group) => new Set(group).size > 1), JSON.stringify(plain));
  } finally {
    await policy.release();
  }
});

test('a pretrained model\'s rollouts end at a stop string, the text the reward reads keeping it', async () => {
  const policy = PretrainedPolicy.load({ folder: QWEN2 }, new Rng(1));
  const env = TextEnvironment.fromPlan(textPlan(12));
  try {
    const plain = await env.rollouts(policy, options({ topK: 1 }));
    const first = plain.samples[0]!.text ?? '';
    const stop = [...first].slice(0, 2).join('');
    assert.ok(stop.length > 0, JSON.stringify(first));
    const stopped = await env.rollouts(policy, options({ topK: 1, stop: [stop] }));
    for (const sample of stopped.samples) {
      const text = sample.text ?? '';
      const at = text.indexOf(stop);
      if (at < 0) continue;
      // The completion ends with the token that completed the stop string.
      assert.ok(text.length - (at + stop.length) <= 8, JSON.stringify(text));
    }
    const head = stopped.samples[0]!.text ?? '';
    assert.ok(head.includes(stop) && head.length < first.length && first.startsWith(head), JSON.stringify([head, first]));
  } finally {
    await policy.release();
  }
});

test('the character-level transformer\'s rollouts under top_k 1 are each prompt\'s greedy completion, and end at a stop string', async () => {
  const env = TextEnvironment.fromPlan(textPlan(8));
  const model = makeTokenModel({ kind: 'transformer', name: 'Tiny', params: { layers: 1, width: 8, heads: 2, context: 32 } }, env.tokenizer, new Rng(5)) as TokenModel;
  try {
    const narrowed = (await env.rollouts(model, options({ topK: 1 }))).samples.map((s) => s.text ?? '');
    for (const group of groupsOf(narrowed, 4)) assert.equal(new Set(group).size, 1, JSON.stringify(group));
    const plain = (await env.rollouts(model, options())).samples.map((s) => s.text ?? '');
    assert.ok(groupsOf(plain, 4).some((group) => new Set(group).size > 1), JSON.stringify(plain));
    const char = plain.find((t) => t.length > 1)![0]!;
    const stopped = await env.rollouts(model, options({ stop: [char] }));
    for (const sample of stopped.samples) {
      const text = sample.text ?? '';
      const at = text.indexOf(char);
      assert.ok(at < 0 || at === text.length - 1, `a completion runs on past its stop string: ${JSON.stringify(text)}`);
    }
  } finally {
    await model.release?.();
  }
});

test('a GRPO run records its sampling controls and prompt limit in hparams', async () => {
  const plan = textPlan(6, { top_k: 5, top_p: 0.9, min_p: 0.05, repetition_penalty: 1.2, stop: ['\n'], max_prompt_length: 64, truncation: 'right' }, { name: 'Base', kind: 'pretrained', params: { model: QWEN2 } as Plan['policy']['params'] });
  const result = await train(plan, { out: tempDir() });
  assert.equal(result.status, 'finished');
  const hparams = readEvents(path.join(result.runDir, 'events.jsonl')).find((e) => e.type === 'hparams') as unknown as { values?: Record<string, unknown>; hparams?: Record<string, unknown> } & Record<string, unknown>;
  const values = JSON.stringify(hparams);
  for (const [key, value] of Object.entries({ top_k: 5, top_p: 0.9, min_p: 0.05, repetition_penalty: 1.2 })) assert.ok(values.includes(`"${key}":${value}`), `${key} in ${values}`);
  assert.ok(values.includes('"stop":["\\n"]'), values);
  assert.ok(values.includes('"max_prompt_length":64') && values.includes('"truncation":"right"'), values);
});

test('a completion that cannot fit the model\'s context with its prompt is refused in words, not sampled past it', async () => {
  const policy = PretrainedPolicy.load({ folder: QWEN2 }, new Rng(1));
  try {
    const prompt = policy.encodePrompt('12+34=');
    await assert.rejects(policy.complete([prompt], { maxNewTokens: 128 - prompt.length + 1, greedy: true }),
      (err: unknown) => isInputError(err) && new RegExp(`a prompt of ${prompt.length} tokens and ${128 - prompt.length + 1} new tokens exceed the model's context of 128 tokens`).test((err as Error).message));
    const [fits] = await policy.complete([prompt], { maxNewTokens: 128 - prompt.length, greedy: true });
    assert.ok(fits!.length <= 128 - prompt.length);
  } finally {
    await policy.release();
  }
});

test('evaluation decodes greedily with the learner\'s stop strings', async () => {
  const policy = PretrainedPolicy.load({ folder: QWEN2 }, new Rng(1));
  const env = TextEnvironment.fromPlan(textPlan(12));
  try {
    const plain = await env.evaluate(policy, 4);
    const first = plain.samples[0]!.text ?? '';
    const stop = [...first].slice(0, 2).join('');
    const stopped = await env.evaluate(policy, 4, { stop: [stop] });
    const head = stopped.samples[0]!.text ?? '';
    assert.ok(head.includes(stop) && head.length < first.length && first.startsWith(head), JSON.stringify([head, first]));
  } finally {
    await policy.release();
  }
});

test('eval/mean_length of a pretrained model counts its own tokens, as max_tokens does, not characters', async () => {
  const policy = PretrainedPolicy.load({ folder: QWEN2 }, new Rng(1));
  const env = TextEnvironment.fromPlan(textPlan(12));
  try {
    const outcome = await env.evaluate(policy, 4);
    const stops = new Set(policy.stopIds);
    const completions = await policy.complete(env.task.heldOut().slice(0, 4).map((e) => policy.encodePrompt(e.prompt)), { maxNewTokens: 12, greedy: true });
    const tokens = completions.map((ids) => ids.length - (stops.has(ids[ids.length - 1]!) ? 1 : 0));
    assert.deepEqual(outcome.lengths, tokens);
    assert.equal(outcome.values['eval/mean_length'], tokens.reduce((a, b) => a + b, 0) / tokens.length);
    // (hf-tiny's greedy completions happen to be one character a token, so this pins the count's
    // source rather than telling tokens from characters.)
  } finally {
    await policy.release();
  }
});

test('max_prompt_length cuts a pretrained model\'s templated prompts at the truncation side before sampling and training', async () => {
  const policy = PretrainedPolicy.load({ folder: QWEN2 }, new Rng(1));
  const env = TextEnvironment.fromPlan(textPlan(4));
  try {
    for (const side of ['left', 'right'] as const) {
      const batch = await env.rollouts(policy, { ...options(), promptLimit: { tokens: 5, side } });
      for (let r = 0; r < batch.rows; r++) {
        const ids = policy.encodePrompt(batch.samples[r]!.start as string);
        assert.ok(ids.length > 5);
        const kept = side === 'left' ? ids.slice(-5) : ids.slice(0, 5);
        // Every prompt is cut to 5 tokens, so none is padded: row r starts with its kept ids.
        assert.deepEqual([...batch.tokens.subarray(r * batch.width, r * batch.width + 5)].map(Number), kept, side);
      }
    }
  } finally {
    await policy.release();
  }
});

test('a dataset\'s targets are held to max_tokens in a pretrained model\'s tokens, not characters', async () => {
  const dir = tempDir();
  // hf-tiny's qwen2 writes "the answer is" (13 characters) in 4 tokens.
  const lines = ['1+1', '2+2', '3+3', '4+4', '5+5', '6+6', '7+7', '8+8', '9+9', '1+2', '2+3', '3+4'].map((prompt) => JSON.stringify({ prompt, target: 'the answer is' }));
  fs.writeFileSync(path.join(dir, 'data.jsonl'), lines.join('\n') + '\n');
  const plan = (maxTokens: number, policy?: Plan['policy']) => {
    const p = textPlan(maxTokens, {}, policy);
    p.env.params = { task: { kind: 'dataset', path: 'data.jsonl' }, max_tokens: maxTokens } as Plan['env']['params'];
    return p;
  };
  const pretrained = { name: 'Base', kind: 'pretrained', params: { model: QWEN2 } } as Plan['policy'];
  const fits = TextWorkload.create(plan(5, pretrained), 1, { baseDir: dir });
  await fits.release?.();
  assert.throws(() => TextWorkload.create(plan(3, pretrained), 1, { baseDir: dir }),
    (err: Error) => /max_tokens is 3, but dataset\("data\.jsonl"\) has targets of up to 4 tokens of policy Base \("the answer is"\), which no completion could reach; raise max_tokens to at least 4/.test(err.message));
  // The character-level transformer's tokens are characters: 13 of them.
  assert.throws(() => TextWorkload.create(plan(5), 1, { baseDir: dir }), /has targets of up to 13 characters/);
});

test('dialogues (GuessNumber) sample their agent turns under the controls: top_k 1 makes a group\'s dialogues one', async () => {
  for (const pretrained of [true, false]) {
    const plan = makePlan({ env: 'GuessNumber', envParams: { low: 1, high: 10, max_turns: 3 }, algorithm: 'GRPO', algorithmParams: { group_size: 4, prompts_per_update: 2 }, budget: 8 });
    if (pretrained) plan.policy = { name: 'Base', kind: 'pretrained', params: { model: QWEN2, chat: { system: 'Guess.', user: 'A number in {prompt}.' } } as Plan['policy']['params'] };
    const env = textEnvOf(plan);
    const model = pretrained
      ? PretrainedPolicy.load({ folder: QWEN2, chat: { system: 'Guess.', user: 'A number in {prompt}.', variables: {} } }, new Rng(1))
      : makeTokenModel({ kind: 'transformer', name: 'Tiny', params: { layers: 1, width: 8, heads: 2, context: 256 } }, env.tokenizer as never, new Rng(5)) as TokenModel;
    try {
      const rowsOf = (b: { rows: number; width: number; tokens: BigInt64Array }) => Array.from({ length: b.rows }, (_, r) => [...b.tokens.subarray(r * b.width, (r + 1) * b.width)].join(','));
      const narrowed = rowsOf(await env.rollouts(model, { ...options({ topK: 1 }), groups: 2 }));
      for (const group of groupsOf(narrowed, 4)) assert.equal(new Set(group).size, 1, `${pretrained ? 'pretrained' : 'character'}: a group's dialogues differ under top_k 1`);
      const plain = rowsOf(await env.rollouts(model, { ...options(), groups: 2 }));
      assert.ok(groupsOf(plain, 4).some((group) => new Set(group).size > 1), `${pretrained ? 'pretrained' : 'character'}: dialogues at temperature 2 all alike`);
    } finally {
      await model.release?.();
    }
  }
});
