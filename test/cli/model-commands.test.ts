// `rlx tokenize`, `rlx generate` and `rlx export` on a Hugging Face model folder (the hf-tiny
// Qwen2), against what transformers computed from it (reference.json), and their refusals.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/repo.js';
import { scratch } from './scratch.js';

const FIXTURES = path.join(repoRoot(), 'test/fixtures/hf-tiny');
const QWEN2 = path.join(FIXTURES, 'qwen2');
const reference = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'reference.json'), 'utf8')) as {
  tokenize: { text: string; ids: number[] }[];
  chat: { messages: { role: string; content: string }[]; ids: number[] };
  qwen2: { input_ids: number[]; greedy_ids: number[]; completion_logprob_sum: number };
};
const s = scratch('rlx-model-commands-');

test('rlx tokenize prints the ids transformers gives, plain and through the chat template', () => {
  for (const { text, ids } of reference.tokenize.filter((t) => t.text !== '')) {
    const out = s.rlx('tokenize', QWEN2, '--text', text);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout.trim(), ids.join(','), JSON.stringify(text));
  }
  const [system, user] = reference.chat.messages;
  const chat = s.rlx('tokenize', QWEN2, '--text', user!.content, '--chat', '--system', system!.content, '--json');
  assert.deepEqual((JSON.parse(chat.stdout) as { ids: number[] }).ids, reference.chat.ids);
});

test('rlx generate --greedy writes transformers\' greedy ids; --score-ids gives its completion log-probability', () => {
  const [system, user] = reference.chat.messages;
  const out = s.rlx('generate', QWEN2, '--prompt', user!.content, '--chat', '--system', system!.content, '--greedy', '--max-tokens', '12', '--json');
  assert.equal(out.code, 0, out.stderr);
  const result = JSON.parse(out.stdout) as { prompt_ids: number[]; completion_ids: number[]; logprobs: number[] };
  assert.deepEqual(result.prompt_ids, reference.chat.ids);
  assert.deepEqual(result.completion_ids, reference.qwen2.greedy_ids);
  assert.equal(result.logprobs.length, 12);
  const completion = reference.qwen2.input_ids.slice(reference.chat.ids.length);
  const scored = s.rlx('generate', QWEN2, '--prompt-ids', reference.chat.ids.join(','), '--score-ids', completion.join(','), '--json');
  const sum = (JSON.parse(scored.stdout) as { logprob_sum: number }).logprob_sum;
  assert.ok(Math.abs(sum - reference.qwen2.completion_logprob_sum) < 1e-3, `${sum}`);
});

test('bad input to the model commands is a message and exit 2, never a stack', () => {
  const cases: [string[], RegExp][] = [
    [['tokenize', path.join(s.work, 'no-model'), '--text', 'x'], /no model folder at .*no-model; download a Hugging Face model there first/],
    [['generate', QWEN2, '--prompt-ids', '1,400'], /--prompt-ids needs token ids from 0 to 399/],
    [['generate', QWEN2], /give --prompt or --prompt-ids/],
    [['tokenize', QWEN2, '--text', 'x', '--chat-var', 'enable_thinking=false'], /--system and --chat-var apply to --chat/],
    [['export', s.work, '--to', path.join(s.work, 'out')], /is not a run directory|cannot read the run's plan/],
  ];
  for (const [args, message] of cases) {
    const out = s.rlx(...args);
    assert.equal(out.code, 2, `${args.join(' ')}: ${out.stderr}`);
    assert.match(out.stderr, message);
    assert.doesNotMatch(out.stderr, /internal error|\n\s+at /);
  }
});

test('rlx generate on a run directory completes with the weights the run trained (LoRA over its base)', async () => {
  const [{ train }, { makePlan, tempDir }, { loadModelAt }] = await Promise.all([
    import('../../runtime/train.js'),
    import('../runtime/helpers.js'),
    import('../../runtime/lm/run-policy.js'),
  ]);
  const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 6 }, algorithm: 'SFT', algorithmParams: { updates: 20, batch_size: 16, learning_rate: 1e-2 } });
  plan.stages[0]!.budget = null;
  plan.policy = { name: 'Base', kind: 'pretrained', params: { model: QWEN2, lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] } } as never };
  const { runDir } = await train(plan, { out: tempDir() });
  const prompt = '<|im_start|>user\n12+34=<|im_end|>\n<|im_start|>assistant\n';
  const fromRun = JSON.parse(s.rlx('generate', runDir, '--prompt', prompt, '--greedy', '--max-tokens', '6', '--json').stdout) as { completion_ids: number[] };
  const fromBase = JSON.parse(s.rlx('generate', QWEN2, '--prompt', prompt, '--greedy', '--max-tokens', '6', '--json').stdout) as { completion_ids: number[] };
  const model = loadModelAt(runDir).load();
  const [expected] = await model.generate([model.tokenizer.encode(prompt)], { maxNewTokens: 6, greedy: true });
  await model.release();
  assert.deepEqual(fromRun.completion_ids, expected!.ids);
  assert.notDeepEqual(fromRun.completion_ids, fromBase.completion_ids, 'the run\'s adapters change what the model writes');
});
