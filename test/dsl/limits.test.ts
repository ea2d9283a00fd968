// Input deep or long enough to overflow the stack of a recursive parser or checker gets a clear
// error at its place (issue 14 item 11), never an internal error; input just inside the limits
// checks clean.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_OPERATORS } from '../../dsl/syntax/cst-to-ast.js';
import { MAX_NESTING } from '../../dsl/syntax/parse.js';
import { check } from '../helpers/source.js';

const problems = (text: string) => {
  const checked = check({ 'main.rlx': text });
  return checked.problems().map((d) => ({ code: d.code, message: d.message, at: text.slice(d.range.start, d.range.end), offset: d.range.start }));
};

describe('limits', () => {
  test('brackets nested deeper than the limit: one error at the first bracket past it', () => {
    const text = `env E = CartPole {}\nreward R { term a = ${'('.repeat(500)}1${')'.repeat(500)} }\n`;
    const found = problems(text);
    assert.equal(found.length, 1, JSON.stringify(found));
    assert.equal(found[0]!.code, 'syntax-error');
    assert.match(found[0]!.message, new RegExp(`^nested too deeply: this bracket is the ${MAX_NESTING + 1}st open at once \\(the declaration's own braces count\\), and rlx follows at most ${MAX_NESTING}`));
    // The reward's `{` is the first bracket; the 100th `(` is the 101st.
    assert.equal(found[0]!.offset, text.indexOf('(') + MAX_NESTING - 1);
  });

  test('a value nested too deeply: the nesting error alone, nothing of the 0 that stands in for it (issue 43 item 15)', () => {
    const text = `env E = CartPole { max_steps: ${'('.repeat(MAX_NESTING)}1${')'.repeat(MAX_NESTING)} }\n`;
    const found = problems(text);
    assert.deepEqual(found.map((f) => f.code), ['syntax-error'], JSON.stringify(found));
    assert.doesNotMatch(found[0]!.message, /found 0/);
  });

  test('a run of 500k NUL characters: one short error, control characters written out (issue 43 item 15)', () => {
    const text = `env E = CartPole {}\n${'\u0000'.repeat(500_000)}\nenv F = CartPole {}\n`;
    const found = problems(text);
    assert.deepEqual(found.map((f) => f.code), ['invalid-character']);
    assert.equal(found[0]!.message, `unexpected characters '${'\\u0000'.repeat(20)}…' (500,000 of them)`);
  });

  test('a chain of 10,000 operators: one error at the first operator past the limit', () => {
    const text = `env E = CartPole {}\nreward R { term a = ${Array(10_000).fill('obs.x').join(' + ')} }\n`;
    const found = problems(text);
    assert.deepEqual(found.map((f) => [f.code, f.at]), [['syntax-error', '+']]);
    assert.match(found[0]!.message, new RegExp(`^expression too long: more than ${MAX_OPERATORS} operators in a row`));
    const plus = [...text.matchAll(/\+/g)].map((m) => m.index);
    assert.equal(found[0]!.offset, plus[MAX_OPERATORS]);
  });

  test('input at the limits checks clean', () => {
    const inner = `${'('.repeat(MAX_NESTING - 1)}1${')'.repeat(MAX_NESTING - 1)}`;
    const chain = Array(MAX_OPERATORS).fill('obs.x').join(' * ');
    assert.deepEqual(problems(`env E = CartPole {}\nreward R { term a = ${inner} + ${chain} }\n`).length, 0);
  });

  test('an import chain of 10,000 files checks clean, and a cycle at its end is still found', () => {
    const n = 10_000;
    const files: Record<string, string> = {};
    for (let i = 0; i < n; i++) files[`f${i}.rlx`] = `${i + 1 < n ? `import "./f${i + 1}.rlx"\n` : ''}env E${i} = CartPole {}\n`;
    assert.deepEqual(check(files, ['f0.rlx']).problems(), []);
    files[`f${n - 1}.rlx`] = `import "./f${n - 3}.rlx"\nenv E${n - 1} = CartPole {}\n`;
    const cycles = check(files, ['f0.rlx']).problems().filter((d) => d.code === 'import-cycle');
    assert.equal(cycles.length, 3, 'each of the three files in the loop reports it');
    assert.ok(cycles.some((d) => d.message === `import cycle: f${n - 1}.rlx -> f${n - 3}.rlx -> f${n - 2}.rlx -> f${n - 1}.rlx`), cycles.map((d) => d.message).join(' | '));
  });
});
