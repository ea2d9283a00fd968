// Incremental reparsing must give exactly what a full parse gives, whatever the edit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from '../../dsl/syntax/parse.js';
import { reparse } from '../../dsl/syntax/incremental.js';
import { codeBlocks, readLanguageDoc } from '../helpers/repo.js';
import { seededRandom } from '../helpers/random.js';

const PIECES = ['1', '0', 'x', ' ', '\n', ',', '.', '"', '}', '{', ':', '=', '// c\n', 'k', 'env ', '-', '(', ')'];

test('reparse after random edits equals a full parse of the new text', () => {
  const text = codeBlocks(readLanguageDoc(), 'rlx').map((b) => b.text).join('\n');
  const rnd = seededRandom(42);
  let incrementalUsed = 0;
  for (let i = 0; i < 600; i++) {
    const at = Math.floor(rnd() * text.length);
    const removed = rnd() < 0.5 ? Math.floor(rnd() * 3) : 0;
    const inserted = rnd() < 0.7 ? PIECES[Math.floor(rnd() * PIECES.length)] : '';
    const edited = text.slice(0, at) + inserted + text.slice(at + removed);
    const before = parse(text);
    const after = reparse(before, text, edited);
    assert.deepEqual(after, parse(edited), `edit ${i} at ${at}: removed ${removed}, inserted ${JSON.stringify(inserted)}`);
    if (after.file.declarations.some((d, k) => d === before.file.declarations[k])) incrementalUsed++;
  }
  assert.ok(incrementalUsed > 100, `the incremental path was taken in only ${incrementalUsed} of 600 edits`);
});

test('an edit keeps the untouched declarations before it as they were (shared, not re-parsed)', () => {
  const text = 'env A = CartPole { max_steps: 5 }\n\nenv B = CartPole { max_steps: 6 }\n\nenv C = CartPole {}\n';
  const before = parse(text);
  const edited = text.replace('max_steps: 6', 'max_steps: 60');
  const after = reparse(before, text, edited);
  assert.equal(after.file.declarations[0], before.file.declarations[0]);
  assert.notEqual(after.file.declarations[1], before.file.declarations[1]);
  assert.equal(after.file.declarations[2].range.start, before.file.declarations[2].range.start + 1);
  assert.deepEqual(after, parse(edited));
});
