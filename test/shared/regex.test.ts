// The regex verifier's linear-time matcher: the same answers as JavaScript's own
// `new RegExp(pattern, 'u').test(text)`, in time bounded by pattern size x text length, and a
// clear refusal of what cannot be matched in linear time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Rng } from '../../shared/random.js';
import { LinearRegex, MAX_INSTRUCTIONS, PatternError } from '../../shared/regex.js';

/** Asserts our matcher and V8's agree on every text. */
function agree(pattern: string, texts: readonly string[]): void {
  const ours = LinearRegex.compile(pattern);
  const native = new RegExp(pattern, 'u');
  for (const text of texts) assert.equal(ours.test(text), native.test(text), `/${pattern}/u on ${JSON.stringify(text)}`);
}

describe('LinearRegex: JavaScript semantics', () => {
  it('anchors, classes, escapes, alternation, groups and every quantifier form', () => {
    const texts = ['', '0', '42', '042', ' 42 ', '4a2', 'abc', 'ABC', 'a_b', 'x\ny', 'aaa', 'abab', '12+34=46', '-3.5', 'hello world', 'ab\r\n'];
    for (const pattern of [
      '^[0-9]+$', '^\\d+$', '\\d', '^\\D*$', '^\\w+$', '\\W', '\\s', '^\\S+$', '^$', '', 'a|b', '^(a|b)+$', '^(?:ab)+$',
      '^(?<digits>\\d)+$', '^a{3}$', '^a{2,}$', '^a{1,2}$', '^\\d{2,3}$', '^a*?$', '^a+?b', '^.?$', 'x.y', '^[^0-9]*$',
      '[a-c]{2}', '\\bworld\\b', '\\Bor', '\\b', '\\B', '^-?\\d+(\\.\\d+)?$', '=\\d+$', '^\\x34', '\\u0061', '\\u{62}',
      '[\\-+=]', '\\.', '\\n', '\\r\\n$', '^[\\s\\S]*$', '(|a)b', '^(a|)+$', '^(?:a*)*$', '^(a?){3}$', '\\cJ', '[\\b]',
    ]) agree(pattern, texts);
  });

  it('characters are code points: astral characters and combining marks', () => {
    const texts = ['😀', 'a😀b', '😀😀', 'é', 'e\u0301', '\u0301', 'ü', '日本語', '\uD83D', '𝟘𝟙'];
    for (const pattern of ['^.$', '^..$', '^😀+$', '[😀]', '^[^a]$', '\\p{L}', '^\\p{L}+$', '\\p{Emoji_Presentation}', '\\p{M}', '^\\P{M}+$', '\\uD83D\\uDE00', '^\\u{1F600}$', '^\\p{Nd}+$', '[\\u{1D7D8}-\\u{1D7E1}]']) {
      agree(pattern, texts);
    }
  });

  it('agrees with V8 on random patterns and texts', () => {
    const rng = new Rng(7);
    const pick = <T>(items: readonly T[]): T => items[rng.int(items.length)];
    const atoms = ['a', 'b', 'c', '.', '[ab]', '[^a]', '\\d', '1', '\\b', '^', '$', '\\w'];
    const quantifiers = ['', '', '', '*', '+', '?', '{2}', '{0,2}', '{1,}', '*?'];
    const pattern = (depth: number): string => {
      const parts: string[] = [];
      for (let n = 1 + rng.int(3); n > 0; n--) {
        const atom = depth > 0 && rng.int(4) === 0 ? `(${pattern(depth - 1)}${rng.int(2) ? `|${pattern(depth - 1)}` : ''})` : pick(atoms);
        const quantifiable = !['\\b', '^', '$'].includes(atom);
        parts.push(atom + (quantifiable ? pick(quantifiers) : ''));
      }
      return parts.join('');
    };
    const text = () => Array.from({ length: rng.int(7) }, () => pick(['a', 'b', 'c', '1', ' ', '\n', '😀'])).join('');
    for (let k = 0; k < 400; k++) agree(pattern(2), Array.from({ length: 12 }, text));
  });
});

describe('LinearRegex: bounded cost', () => {
  it('matches catastrophic patterns on long texts without backtracking', () => {
    const long = 'a'.repeat(20_000);
    // Each of these takes exponential (or high polynomial) time in V8 on `long + '!'`.
    for (const pattern of ['^(a+)+$', '^(a|a)*$', '^(a|aa)+$', '^(.*a){12}$', '^a*a*a*a*a*a*$', '(\\w+\\s?)+$']) {
      const re = LinearRegex.compile(pattern);
      assert.equal(re.test(long + '!'), false, pattern);
      assert.equal(re.test(long), true, pattern);
      assert.ok(re.size < 200, `${pattern} compiles to ${re.size} instructions`);
    }
  });

  it('refuses patterns whose expansion exceeds the instruction budget', () => {
    assert.throws(() => LinearRegex.compile('(a{100}){100}'), (err: Error) => err instanceof PatternError && /too large/.test(err.message) && /\{n,m\}/.test(err.message));
    assert.throws(() => LinearRegex.compile(`a{${MAX_INSTRUCTIONS + 1}}`), /repetition a?\{4097\} is too large/);
    assert.ok(LinearRegex.compile('a{1000}').size <= MAX_INSTRUCTIONS);
  });
});

describe('LinearRegex: refused and invalid patterns', () => {
  it('refuses backreferences and lookaround, naming them and where they are', () => {
    const cases: [string, RegExp][] = [
      ['(a)\\1', /the backreference \\1 \(at character 4\) cannot be matched in linear time/],
      ['(?<x>a)\\k<x>', /named backreference/],
      ['a(?=b)', /lookahead \(at character 2\)/],
      ['a(?!b)', /lookahead/],
      ['(?<=a)b', /lookbehind/],
      ['(?<!a)b', /lookbehind/],
    ];
    for (const [pattern, message] of cases) {
      assert.throws(() => LinearRegex.compile(pattern), (err: Error) => err instanceof PatternError && message.test(err.message) && err.message.includes(JSON.stringify(pattern)), pattern);
    }
  });

  it('reports JavaScript syntax errors with the pattern', () => {
    for (const pattern of ['(', 'a)', '[a', '*a', 'a{2,1}', '\\p{NoSuchProperty}', '\\u{110000}']) {
      assert.throws(() => LinearRegex.compile(pattern), (err: Error) => err instanceof PatternError && err.message.startsWith(`invalid regular expression ${JSON.stringify(pattern)}: `), pattern);
    }
  });
});
