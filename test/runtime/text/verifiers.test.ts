// The text verifiers, as dsl/schema/expressions.ts documents them, on the texts that trip
// verifiers up: the empty completion, whitespace, astral characters, combining marks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { contains, exact, length, LinearRegex, numeric, parseNumber, regex } from '../../../runtime/text/verifiers.js';

describe('exact: equal after trimming whitespace', () => {
  it('trims spaces, tabs, newlines and Unicode spaces on both sides, never inside', () => {
    assert.equal(exact('46', '46'), 1);
    assert.equal(exact(' 46\n', '46'), 1);
    assert.equal(exact('\t46\r\n', ' 46 '), 1);
    assert.equal(exact('\u00a046\u2003', '46'), 1, 'no-break and em spaces are whitespace');
    assert.equal(exact('4 6', '46'), 0);
    assert.equal(exact('46', '47'), 0);
    assert.equal(exact('046', '46'), 0, 'text, not numbers');
  });

  it('the empty completion equals only an empty or blank target', () => {
    assert.equal(exact('', ''), 1);
    assert.equal(exact('', '   '), 1);
    assert.equal(exact('', '0'), 0);
    assert.equal(exact('0', ''), 0);
  });

  it('compares code points exactly: astral characters, no normalisation of combining marks', () => {
    assert.equal(exact('😀', '😀'), 1);
    assert.equal(exact('😀', '😃'), 0);
    assert.equal(exact('\u00e9', '\u00e9'), 1);
    assert.equal(exact('\u00e9', 'e\u0301'), 0, 'precomposed é and e + combining acute are different texts');
  });
});

describe('numeric: both parse as numbers within tol', () => {
  it('compares values within the absolute tolerance, inclusive', () => {
    assert.equal(numeric('46', '46', 0), 1);
    assert.equal(numeric('46.0', '46', 0), 1);
    assert.equal(numeric(' 46 ', '46', 0), 1);
    assert.equal(numeric('1e2', '100', 0), 1);
    assert.equal(numeric('-0', '0', 0), 1);
    assert.equal(numeric('3.1416', '3.14159', 1e-3), 1);
    assert.equal(numeric('3.2', '3.14159', 1e-3), 0);
    assert.equal(numeric('10', '12', 2), 1, 'the bound itself is within');
    assert.equal(numeric('10', '12.5', 2), 0);
  });

  it('gives 0 when either side is not a number: empty, words, hex, Infinity, separators, unicode digits', () => {
    for (const text of ['', '   ', 'forty-six', '46 apples', '0x2e', 'Infinity', 'NaN', '4,600', '1_000', '٤٦', '46😀', '1e999', '.', '-', '1e']) {
      assert.equal(parseNumber(text), null, JSON.stringify(text));
      assert.equal(numeric(text, '46', 1e9), 0, JSON.stringify(text));
      assert.equal(numeric('46', text, 1e9), 0, JSON.stringify(text));
    }
    for (const [text, value] of [['+5', 5], ['.5', 0.5], ['5.', 5], ['007', 7], ['-2.5E-3', -0.0025]] as const) assert.equal(parseNumber(text), value, text);
  });

  it('a NaN or negative tolerance matches nothing', () => {
    assert.equal(numeric('1', '1', NaN), 0);
    assert.equal(numeric('1', '1', -1), 0);
  });
});

describe('contains', () => {
  it('finds the text anywhere, case-sensitively', () => {
    assert.equal(contains('the answer is 46', '46'), 1);
    assert.equal(contains('the answer is 46', 'Answer'), 0);
    assert.equal(contains('', 'x'), 0);
  });

  it('every string, even the empty completion, contains the empty text', () => {
    assert.equal(contains('', ''), 1);
    assert.equal(contains('abc', ''), 1);
  });

  it('works on astral characters and combining marks without splitting them', () => {
    assert.equal(contains('a😀b', '😀'), 1);
    assert.equal(contains('a😃b', '😀'), 0, 'two emoji sharing a high surrogate');
    assert.equal(contains('e\u0301', '\u0301'), 1, 'a combining mark is a character of its own');
    assert.equal(contains('\u00e9', 'e'), 0);
  });
});

describe('length: characters are code points', () => {
  it('counts code points', () => {
    assert.equal(length(''), 0);
    assert.equal(length('46'), 2);
    assert.equal(length(' \n'), 2, 'whitespace counts');
    assert.equal(length('😀'), 1, 'an astral character is one, not two UTF-16 units');
    assert.equal(length('a😀b😀'), 4);
    assert.equal(length('e\u0301'), 2, 'a combining mark is a character');
    assert.equal(length('👍🏽'), 2, 'an emoji with a skin-tone modifier is two code points');
    assert.equal(length('\uD83D'), 1, 'a lone surrogate is one');
    assert.equal(length('\uDE00\uD83D'), 2, 'a low surrogate before a high one is two');
  });
});

describe('regex', () => {
  it('matches anywhere unless anchored, on the completion as is', () => {
    const digits = LinearRegex.compile('^[0-9]+$');
    assert.equal(regex('46', digits), 1);
    assert.equal(regex('', digits), 0, 'the empty completion');
    assert.equal(regex(' 46', digits), 0, 'no trimming: the format is what is checked');
    assert.equal(regex('x46y', LinearRegex.compile('[0-9]')), 1);
    assert.equal(regex('', LinearRegex.compile('')), 1, 'the empty pattern matches the empty completion');
  });

  it('a character is a code point: `.` is one emoji, \\p{M} finds a combining mark', () => {
    assert.equal(regex('😀', LinearRegex.compile('^.$')), 1);
    assert.equal(regex('e\u0301', LinearRegex.compile('^.$')), 0);
    assert.equal(regex('e\u0301', LinearRegex.compile('\\p{M}')), 1);
  });
});
