// Incremental reparsing must give exactly what a full parse gives (tree and syntax errors),
// whatever the edit: ones that leave errors, change the file's length, or follow each other
// while the file is broken, as typing does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse, type ParseResult } from '../../dsl/syntax/parse.js';
import { reparse } from '../../dsl/syntax/incremental.js';
import { shifted } from '../../dsl/syntax/shift.js';
import { codeBlocks, readLanguageDoc } from '../helpers/repo.js';
import { seededRandom } from '../helpers/random.js';

const PIECES = [
  '1', '0', 'x', ' ', '\n', ',', '.', '"', '}', '{', ':', '=', '// c\n', 'k', 'env ', '-', '(', ')', '[', ']',
  '\n  l', 'l', 'lr: ', '/*', '*/', '/// d\n', 'env B = CartPole {', 'term t = ', '}\n\nenv Z {', 'import "x"', '+', '<',
];

const languageText = () => codeBlocks(readLanguageDoc(), 'rlx').map((b) => b.text).join('\n');

/** Replaces a random span (often empty) at a random place with a random piece (often typing). */
function randomEdit(text: string, rnd: () => number, near?: number): { edited: string; what: string } {
  const at = near === undefined ? Math.floor(rnd() * (text.length + 1)) : Math.min(text.length, Math.max(0, Math.round(near + (rnd() - 0.5) * 200)));
  const removed = rnd() < 0.5 ? Math.floor(rnd() * (rnd() < 0.2 ? 40 : 3)) : 0;
  const inserted = rnd() < 0.75 ? PIECES[Math.floor(rnd() * PIECES.length)] : '';
  return { edited: text.slice(0, at) + inserted + text.slice(at + removed), what: `at ${at}: removed ${removed}, inserted ${JSON.stringify(inserted)}` };
}

/**
 * Whether a reparse kept some declaration of the previous tree: the incremental path ran (an
 * edit in the first declaration keeps none, so this undercounts).
 */
const keptSome = (before: ParseResult, after: ParseResult) => after.file.declarations.some((d, k) => d === before.file.declarations[k]);

test('reparse after random edits equals a full parse of the new text, errors included', () => {
  const text = languageText();
  const before = parse(text);
  assert.deepEqual(before.errors, [], 'the language reference parses without errors');
  const rnd = seededRandom(42);
  let incremental = 0;
  let incrementalWithErrors = 0;
  for (let i = 0; i < 1200; i++) {
    const { edited, what } = randomEdit(text, rnd);
    const after = reparse(before, text, edited);
    assert.deepEqual(after, parse(edited), `edit ${i} ${what}`);
    if (keptSome(before, after)) {
      incremental++;
      if (after.errors.length > 0) incrementalWithErrors++;
    }
  }
  assert.ok(incremental > 900, `the incremental path was taken in only ${incremental} of 1200 edits`);
  assert.ok(incrementalWithErrors > 300, `only ${incrementalWithErrors} incremental reparses had syntax errors`);
});

test('a run of edits, each reparsed from the last (broken) result, stays equal to a full parse', () => {
  const start = languageText();
  const rnd = seededRandom(7);
  let incremental = 0;
  let steps = 0;
  for (let session = 0; session < 60; session++) {
    let text = start;
    let result = parse(text);
    // Typing stays in one place for a while; a session edits around one spot.
    const spot = Math.floor(rnd() * text.length);
    for (let step = 0; step < 15; step++, steps++) {
      const { edited, what } = randomEdit(text, rnd, rnd() < 0.8 ? spot : undefined);
      const next = reparse(result, text, edited);
      assert.deepEqual(next, parse(edited), `session ${session}, step ${step}, ${what}`);
      if (keptSome(result, next)) incremental++;
      text = edited;
      result = next;
    }
  }
  assert.ok(incremental > steps / 3, `the incremental path was taken in only ${incremental} of ${steps} edits`);
});

test('opening a line with one letter in a block reports the error there, incrementally', () => {
  const text = languageText();
  const before = parse(text);
  const openers = [...text.matchAll(/\{[ \t]*\n/g)].map((m) => m.index! + 1);
  let checked = 0;
  for (const at of openers) {
    const edited = text.slice(0, at) + '\n  l' + text.slice(at);
    const after = reparse(before, text, edited);
    const full = parse(edited);
    assert.deepEqual(after, full, `'\\n  l' after the '{' at ${at}`);
    if (!keptSome(before, after)) continue;
    checked++;
    // The letter is a property without its ':', reported at the letter or just after it.
    assert.ok(after.errors.length > 0, `no error for the lone 'l' at ${at}`);
    assert.ok(after.errors[0].range.start >= at + 3, `error before the edit at ${at}`);
    // Typing on: the next letters reparse from the broken tree, and deleting the line restores the clean one.
    const typed = edited.slice(0, at + 4) + 'r' + edited.slice(at + 4);
    const typedParse = reparse(after, edited, typed);
    assert.deepEqual(typedParse, parse(typed));
    assert.ok(keptSome(after, typedParse), `typing on after the error at ${at} parsed the whole file`);
    assert.deepEqual(reparse(typedParse, typed, text), before);
  }
  // All but those in the first declaration (nothing before them to keep, so not seen here).
  assert.ok(checked >= openers.length - 1 && checked > 10, `only ${checked} of ${openers.length} openers took the incremental path`);
});

test('an edit keeps the declarations before it as they were and moves those behind it', () => {
  const text = '/// The pole.\nenv A = CartPole { max_steps: 5 }\n\n/// B.\nenv B = CartPole { max_steps: 6 }\n\nenv C = CartPole { max_steps: 7 }\n// end\n';
  const before = parse(text);
  const edited = text.replace('max_steps: 6', 'max_steps: 60');
  const after = reparse(before, text, edited);
  assert.equal(after.file.declarations[0], before.file.declarations[0]);
  assert.notEqual(after.file.declarations[1], before.file.declarations[1]);
  assert.equal(after.file.declarations[1].doc, 'B.');
  assert.deepEqual(after.file.declarations[2], shifted(before.file.declarations[2], 1));
  assert.deepEqual(after, parse(edited));
  // Moved again (and again), a declaration is still the original moved by the sum.
  const again = edited.replace('max_steps: 60', 'max_steps: 600');
  const twice = reparse(after, edited, again);
  assert.equal(twice.file.declarations[2].range.start, before.file.declarations[2].range.start + 2);
  assert.deepEqual(twice, parse(again));
});

test('an edit that breaks the declaration after it, or the file\'s other parts, still equals a full parse', () => {
  const text = 'env A = CartPole { max_steps: 5 }\nenv B = CartPole { max_steps: 6 }\nenv C = CartPole {}\n';
  const before = parse(text);
  for (const [from, to] of [
    ['max_steps: 5 }', 'max_steps: 5'], // the missing '}' is reported at the next declaration
    ['max_steps: 5 }', 'max_steps: (5 }'],
    ['max_steps: 5 }', 'max_steps: [5, }'],
    ['max_steps: 5 }', 'max_steps: 5 } }'],
    ['max_steps: 5 }', 'max_steps: 5 /* }'],
    ['max_steps: 5 }', 'max_steps: "5 }'],
    ['max_steps: 6 }', 'max_steps: 6 ) }'],
  ]) {
    const edited = text.replace(from, to);
    assert.deepEqual(reparse(before, text, edited), parse(edited), `${from} -> ${to}`);
  }
});

test('a declaration moved lazily reads as a moved copy, every field of it', () => {
  const text = 'env A = CartPole { max_steps: 5 }\npolicy P = mlp(x: 1) { hidden: [64] }\nsweep S over E { seeds: [1] }\n';
  const before = parse(text);
  const edited = 'env A = CartPole { max_steps: 55 }\npolicy P = mlp(x: 1) { hidden: [64] }\nsweep S over E { seeds: [1] }\n';
  const after = reparse(before, text, edited);
  for (const [k, decl] of before.file.declarations.entries()) {
    if (k === 0) continue;
    assert.deepEqual(Object.keys(after.file.declarations[k]).sort(), Object.keys(decl).sort());
    assert.deepEqual(after.file.declarations[k], shifted(decl, 1));
  }
});

test('declarations without a body anchor a reparse too, and it still equals a full parse', () => {
  // A file of `env A = Q` lines (100k of them reach the size limit) once parsed from the edit to
  // its end on every keystroke: no declaration behind an edit had a body to anchor on.
  const lines = Array.from({ length: 60 }, (_, i) => (i % 7 === 3 ? `policy P${i} = mlp { hidden: [${i}] }` : i % 5 === 1 ? `env E${i} = Q.R` : `env A = Q${i % 3}`));
  const text = `${lines.join('\n')}\n`;
  const before = parse(text);
  const rnd = seededRandom(23);
  let incremental = 0;
  for (let i = 0; i < 600; i++) {
    const { edited, what } = randomEdit(text, rnd);
    const after = reparse(before, text, edited);
    assert.deepEqual(after, parse(edited), `edit ${i} ${what}`);
    if (keptSome(before, after) && after.file.declarations.length > 0 && after.file.declarations.at(-1) !== before.file.declarations.at(-1)) incremental++;
  }
  // One letter changed in the middle of a file of such lines only: the rest of the file is kept.
  const plain = 'env A = Q\n'.repeat(200);
  const plainParse = parse(plain);
  const middle = 100 * 'env A = Q\n'.length + 8;
  const flipped = `${plain.slice(0, middle)}R${plain.slice(middle + 1)}`;
  const after = reparse(plainParse, plain, flipped);
  assert.deepEqual(after, parse(flipped));
  assert.equal(after.file.declarations[150], plainParse.file.declarations[150], 'a declaration behind the edit is kept, not parsed again');
  assert.ok(incremental > 300, `only ${incremental} of 600 edits kept declarations on both sides of the edit`);
});
