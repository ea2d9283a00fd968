// DPO's pairs in TRL's preference formats: explicit prompts as strings or messages, implicit
// prompts (the common start of chosen and rejected, strings or conversations), and what is refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePairs } from '../../../../runtime/algorithms/dpo/pairs.js';

const one = (row: unknown) => {
  const [pair] = parsePairs(JSON.stringify(row), 'p.jsonl');
  return { prompt: pair!.chosen.prompt, messages: pair!.chosen.messages, chosen: pair!.chosen.target, rejected: pair!.rejected.target, samePrompt: pair!.rejected.prompt === pair!.chosen.prompt };
};

const user = (content: string) => ({ role: 'user', content });
const assistant = (content: string) => ({ role: 'assistant', content });

test('standard: prompt, chosen and rejected strings', () => {
  assert.deepEqual(one({ prompt: '12+34=', chosen: '046', rejected: '047' }), { prompt: '12+34=', messages: undefined, chosen: '046', rejected: '047', samePrompt: true });
});

test('conversational: the prompt\'s messages reach the model as messages; each answer is one assistant message', () => {
  const got = one({ prompt: [{ role: 'system', content: 'Add.' }, user('12+34=')], chosen: [assistant('046')], rejected: [assistant('047')] });
  assert.deepEqual(got, { prompt: 'Add.\n12+34=', messages: [{ role: 'system', content: 'Add.' }, user('12+34=')], chosen: '046', rejected: '047', samePrompt: true });
});

test('implicit prompt: the common start of two strings, a space before the split staying with the answers (TRL\'s extract_prompt)', () => {
  assert.deepEqual(one({ chosen: 'Sum 12+34: 46', rejected: 'Sum 12+34: 47' }), { prompt: 'Sum 12+34: 4', messages: undefined, chosen: '6', rejected: '7', samePrompt: true });
  assert.deepEqual(one({ chosen: 'The sky is blue', rejected: 'The sky is green' }), { prompt: 'The sky is', messages: undefined, chosen: ' blue', rejected: ' green', samePrompt: true });
});

test('implicit prompt: whole conversations sharing their first messages', () => {
  const got = one({ chosen: [user('12+34='), assistant('046')], rejected: [user('12+34='), assistant('047')] });
  assert.deepEqual(got, { prompt: '12+34=', messages: [user('12+34=')], chosen: '046', rejected: '047', samePrompt: true });
});

test('blank lines are skipped, every pair keeps its line', () => {
  const pairs = parsePairs('\uFEFF{"prompt": "a", "chosen": "b", "rejected": "c"}\n\n{"prompt": "d", "chosen": "e", "rejected": "f"}\n', 'p.jsonl');
  assert.deepEqual(pairs.map((p) => p.line), [1, 3]);
});

test('what is not a pair is refused naming the file, the line and what is wrong', () => {
  const refused = (text: string, pattern: RegExp) => assert.throws(() => parsePairs(text, 'p.jsonl'), (err: unknown) => (err as Error).name === 'PreferencePairsError' && pattern.test((err as Error).message));
  refused('{"prompt": "a", "chosen": "b"}', /^p\.jsonl line 1: no "rejected" field; each line must be one JSON object like/);
  refused('{"prompt": "a", "chosen": "b", "rejected": "c"}\n[1, 2]', /^p\.jsonl line 2: each line must be/);
  refused('{"prompt": "a", "chosen": 3, "rejected": "c"}', /line 1: "chosen" must be a string or a list of \{"role", "content"\} messages, got number/);
  refused('{"prompt": [{"role": "user"}], "chosen": "b", "rejected": "c"}', /line 1: "prompt" item 1 needs a "role" and a "content"/);
  refused(JSON.stringify({ prompt: [user('q')], chosen: [assistant('a'), assistant('b')], rejected: [assistant('c')] }), /line 1: "chosen" must be one assistant message \(the answer\), got 2 message\(s\)/);
  refused('{"chosen": "abc", "rejected": "xyz"}', /line 1: no "prompt", and "chosen" and "rejected" have no common start/);
  refused('{"chosen": "abc", "rejected": "abcd"}', /line 1: no "prompt", and one of "chosen" and "rejected" is the start of the other/);
  refused('{"chosen": "abc", "rejected": [{"role": "user", "content": "abc"}]}', /both be strings or both message lists/);
  refused('\n\n', /^p\.jsonl: no preference pairs in it/);
});
