// `rlx tokenize`, `rlx generate` and `rlx export` on a Hugging Face model folder (the hf-tiny
// Qwen2), against what transformers computed from it (reference.json), and their refusals.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { readSafetensorsHeader } from '../../hf/safetensors.js';
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

test('a model folder with NaN or infinite weights, or EOS settings that name no token, is refused in one line naming the file (issue 43 item 13)', () => {
  /** A copy of the tiny Qwen2 with `edit` applied to it. */
  const variant = (name: string, edit: (dir: string) => void): string => {
    const dir = path.join(s.work, name);
    fs.cpSync(QWEN2, dir, { recursive: true });
    edit(dir);
    return dir;
  };
  const json = (dir: string, file: string, change: (value: Record<string, unknown>) => void) => {
    const value = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown>;
    change(value);
    fs.writeFileSync(path.join(dir, file), JSON.stringify(value));
  };
  /** Overwrites value `index` of the tensor with `value` (F32, BF16 or F16 as the file stores it). */
  const poison = (dir: string, tensor: string, index: number, value: number) => {
    const file = path.join(dir, 'model.safetensors');
    const t = readSafetensorsHeader(file).tensors.find((x) => x.name === tensor)!;
    const bytes = t.dtype === 'F32' ? Buffer.from(new Float32Array([value]).buffer) : Buffer.from(new Uint16Array([value > 0 ? 0x7f80 : 0x7fc0]).buffer);
    const at = t.offset + index * bytes.length;
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, bytes, 0, bytes.length, at);
    fs.closeSync(fd);
  };
  const nan = variant('nan', (dir) => poison(dir, 'model.layers.0.mlp.up_proj.weight', 5, NaN));
  const inf = variant('inf', (dir) => poison(dir, 'model.embed_tokens.weight', 0, Infinity));
  const eosToken = variant('eos-token', (dir) => json(dir, 'tokenizer_config.json', (c) => { c.eos_token = '<|no_such_token|>'; }));
  const eosIds = variant('eos-ids', (dir) => {
    json(dir, 'tokenizer_config.json', (c) => { delete c.eos_token; });
    json(dir, 'generation_config.json', (c) => { c.eos_token_id = [400, 123456]; });
  });
  const cases: [string, RegExp][] = [
    [nan, /nan\/model\.safetensors: tensor model\.layers\.0\.mlp\.up_proj\.weight holds 1 value that is not finite \(the first, NaN, at index 5\)/],
    [inf, /inf\/model\.safetensors: tensor model\.embed_tokens\.weight holds 1 value that is not finite \(the first, Infinity, at index 0\)/],
    [eosToken, /eos-token\/tokenizer_config\.json: eos_token "<\|no_such_token\|>" is no token of tokenizer\.json/],
    [eosIds, /eos-ids\/generation_config\.json: eos_token_id \[400,123456\] lies beyond the tokenizer's 400 tokens, and tokenizer_config\.json names no eos_token: generation would never stop/],
  ];
  for (const [dir, message] of cases) {
    const out = s.rlx('generate', dir, '--prompt', 'hi', '--greedy', '--max-tokens', '2');
    assert.equal(out.code, 2, `${dir}: ${out.stdout}${out.stderr}`);
    assert.match(out.stderr, message);
    assert.equal(out.stderr.trim().split('\n').length, 1, out.stderr);
  }
});

test('a config.json whose dimensions the weights cannot hold is refused at once with both figures, by check, plan and generate (issue 43 item 5)', () => {
  const dir = path.join(s.work, 'layers-1e7');
  fs.cpSync(QWEN2, dir, { recursive: true });
  const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ ...config, num_hidden_layers: 10_000_000 }));
  const refusal = /layers-1e7\/config\.json implies 433B parameters \(num_hidden_layers 10000000, hidden_size 64, .*\), but the weights beside it hold 112,192 values \(438\.3 KiB in 26 tensors\): the config and the weights disagree/;
  const spec = s.write('layers.rlx', `env Arith = TextTask { task: addition(digits: 2) }\npolicy B = pretrained("./layers-1e7") { lora { rank: 4 } }\nexperiment X { env: Arith, policy: B, algorithm: GRPO, budget: 1k }\n`);
  const checked = s.rlx('check', spec);
  assert.equal(checked.code, 1, checked.stderr);
  assert.match(checked.stdout, /^layers\.rlx:2:23: error invalid-model: /);
  assert.match(checked.stdout, refusal);
  const planned = s.rlx('plan', spec);
  assert.equal(planned.code, 2, planned.stderr);
  assert.match(planned.stderr, refusal);
  const generated = s.rlx('generate', dir, '--prompt', 'hi');
  assert.equal(generated.code, 2, generated.stderr);
  assert.match(generated.stderr, refusal);
  assert.doesNotMatch(generated.stderr, /internal error|heap|\n\s+at /);
});

test('rlx generate on a run directory completes with the weights the run trained (LoRA over its base)', async () => {
  const [{ train }, { makePlan, tempDir }, { loadModelAt }] = await Promise.all([
    import('../../runtime/train.js'),
    import('../runtime/helpers.js'),
    import('../../runtime/run-policy.js'),
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

test('--chat-var takes Python and JSON spellings (False, None, lists of dicts), and warns of a variable the template never reads (issue 43 item 20)', () => {
  // A copy of the tiny Qwen2 whose chat template reads enable_thinking and tools, as Qwen3's does.
  const dir = path.join(s.work, 'thinking');
  fs.cpSync(QWEN2, dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'chat_template.jinja'), [
    '{%- for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}',
    '{%- if tools %}tools:{% for t in tools %} {{ t.name }}{% endfor %}\n{% endif %}',
    '{%- if add_generation_prompt %}<|im_start|>assistant\n{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n{% endif %}{% endif %}',
  ].join('\n'));
  const rendered = (...vars: string[]) => {
    const out = s.rlx('tokenize', dir, '--text', 'hi', '--chat', ...vars.flatMap((v) => ['--chat-var', v]), '--json');
    assert.equal(out.code, 0, out.stderr);
    return { text: (JSON.parse(out.stdout) as { text: string }).text, stderr: out.stderr };
  };
  const off = '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n';
  for (const spelling of ['False', 'false']) assert.deepEqual(rendered(`enable_thinking=${spelling}`), { text: off, stderr: '' }, spelling);
  assert.equal(rendered('enable_thinking=True').text, '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n');
  assert.match(rendered("tools=[{'name': 'calc'}, {\"name\": \"search\",}]").text, /tools: calc search</);
  const misspelt = rendered('enable_thinkin=False');
  assert.equal(misspelt.stderr, `rlx tokenize: warning: --chat-var enable_thinkin: the chat template (${path.join(dir, 'chat_template.jinja')}) never reads 'enable_thinkin', so it changes nothing; check the name\n`);
  // Text that is no literal stays text (a string is not false).
  assert.deepEqual(rendered('enable_thinking=off'), { text: '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n', stderr: '' });
});
