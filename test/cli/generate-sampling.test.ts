// `rlx generate` with the sampling controls (--top-k, --top-p, --min-p, --repetition-penalty,
// --stop) and its refusal of a prompt and completion longer than the model's context, on the
// hf-tiny folders (context 128).
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/repo.js';
import { scratch } from './scratch.js';

const FIXTURES = path.join(repoRoot(), 'test/fixtures/hf-tiny');
const QWEN2 = path.join(FIXTURES, 'qwen2');
const GPT2 = path.join(FIXTURES, 'gpt2');
const s = scratch('rlx-generate-sampling-');
const PROMPT = ['--prompt-ids', '5,17,42,8'];

interface Generated { completion_ids: number[]; text: string; finish: string }
function generate(model: string, ...args: string[]): Generated {
  const out = s.rlx('generate', model, ...PROMPT, '--json', ...args);
  assert.equal(out.code, 0, out.stderr);
  return JSON.parse(out.stdout) as Generated;
}

test('a prompt and completion past the model\'s context: one line, exit 2, on GPT-2 (once "Gather idx=128", exit 70) and Qwen2', () => {
  for (const model of [GPT2, QWEN2]) {
    const out = s.rlx('generate', model, ...PROMPT, '--max-tokens', '125');
    assert.equal(out.code, 2, out.stderr);
    assert.match(out.stderr, /the prompt \(4 tokens\) and --max-tokens 125 exceed the model's context of 128 tokens .*config\.json\); give at most 124 new tokens/);
    assert.doesNotMatch(out.stderr, /internal error|Gather|\n\s+at /);
    assert.equal(out.stderr.trim().split('\n').length, 1, out.stderr);
  }
  // Exactly the context is fine.
  assert.equal(generate(GPT2, '--max-tokens', '124', '--greedy').completion_ids.length <= 124, true);
});

test('--score-ids past the context is refused the same way', () => {
  const ids = Array.from({ length: 125 }, (_, i) => String(i % 300)).join(',');
  const out = s.rlx('generate', QWEN2, ...PROMPT, '--score-ids', ids);
  assert.equal(out.code, 2, out.stderr);
  assert.match(out.stderr, /--score-ids \(125 tokens\) exceed the model's context of 128 tokens/);
});

test('sampling flags at their neutral values give the same tokens as temperature alone (the same seed)', () => {
  const plain = generate(QWEN2, '--seed', '3', '--max-tokens', '20', '--temperature', '1.3');
  const neutral = generate(QWEN2, '--seed', '3', '--max-tokens', '20', '--temperature', '1.3', '--top-p', '1', '--min-p', '0', '--repetition-penalty', '1');
  assert.deepEqual(neutral.completion_ids, plain.completion_ids);
});

test('--top-k 1 samples the greedy tokens; --top-p narrows what is drawn', () => {
  const greedy = generate(QWEN2, '--greedy', '--max-tokens', '16');
  for (const seed of ['1', '2']) assert.deepEqual(generate(QWEN2, '--seed', seed, '--max-tokens', '16', '--top-k', '1', '--temperature', '2').completion_ids, greedy.completion_ids);
  assert.deepEqual(generate(QWEN2, '--seed', '4', '--max-tokens', '16', '--top-p', '0.000001', '--temperature', '2').completion_ids, greedy.completion_ids);
  // The random tiny model at temperature 2 draws something else unless narrowed.
  assert.notDeepEqual(generate(QWEN2, '--seed', '4', '--max-tokens', '16', '--temperature', '2').completion_ids, greedy.completion_ids);
});

test('--repetition-penalty changes greedy decoding away from repeated tokens', () => {
  const greedy = generate(QWEN2, '--greedy', '--max-tokens', '24');
  const penalized = generate(QWEN2, '--greedy', '--max-tokens', '24', '--repetition-penalty', '100');
  const repeats = (ids: number[]) => ids.length - new Set(ids).size;
  assert.ok(repeats(penalized.completion_ids) < repeats(greedy.completion_ids) || repeats(greedy.completion_ids) === 0, `${greedy.completion_ids} vs ${penalized.completion_ids}`);
  assert.notDeepEqual(penalized.completion_ids, greedy.completion_ids);
});

test('--stop ends the completion at the token that completes the string; the text keeps it', () => {
  const greedy = generate(QWEN2, '--greedy', '--max-tokens', '12');
  const ids = greedy.completion_ids.slice(0, 5);
  const tok = s.rlx('generate', QWEN2, ...PROMPT, '--score-ids', ids.join(','), '--json');
  const prefix = (JSON.parse(tok.stdout) as { text: string }).text;
  assert.ok(prefix.length > 0 && greedy.text.startsWith(prefix), JSON.stringify([prefix, greedy.text]));
  const stopped = generate(QWEN2, '--greedy', '--max-tokens', '12', '--stop', prefix, '--stop', 'never-written-by-the-model');
  assert.ok(stopped.completion_ids.length <= 5, `${stopped.completion_ids}`);
  assert.deepEqual(stopped.completion_ids, greedy.completion_ids.slice(0, stopped.completion_ids.length));
  assert.ok(stopped.text.includes(prefix), JSON.stringify(stopped.text));
  assert.equal(stopped.finish, 'stop');
});

test('bad sampling flags are one line and exit 2', () => {
  const cases: [string[], RegExp][] = [
    [['--top-p', '0'], /--top-p needs a number in \(0, 1\], got '0'/],
    [['--top-p', '1.5'], /--top-p needs a number in \(0, 1\]/],
    [['--top-k', '0'], /--top-k needs a whole number >= 1, got '0'/],
    [['--min-p', '1'], /--min-p needs a number in \[0, 1\)/],
    [['--repetition-penalty', '0'], /--repetition-penalty needs a number above 0/],
    [['--stop', ''], /--stop needs a non-empty string/],
  ];
  for (const [args, message] of cases) {
    const out = s.rlx('generate', QWEN2, ...PROMPT, ...args);
    assert.equal(out.code, 2, `${args.join(' ')}: ${out.stderr}`);
    assert.match(out.stderr, message);
  }
});
