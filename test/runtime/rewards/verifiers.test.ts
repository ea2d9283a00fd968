// The text verifiers and extractors, as dsl/schema/expressions.ts documents them, on the texts
// that trip them up: the empty completion, whitespace, astral characters, combining marks, worked
// solutions with several numbers or boxes, cut-off completions, and very long texts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { boxed, contains, exact, lastNumber, length, LinearRegex, numeric, parseNumber, regex, tagged } from '../../../runtime/rewards/verifiers.js';

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

  it('gives 0 when either side is not a number: empty, words, hex, Infinity, other separators, units, unicode digits', () => {
    for (const text of ['', '   ', 'forty-six', '46 apples', '0x2e', 'Infinity', 'NaN', '1_000', '1 000', '٤٦', '46😀', '1e999', '.', '-', '1e', '46%', '$', '46$', '$-46', '€46']) {
      assert.equal(parseNumber(text), null, JSON.stringify(text));
      assert.equal(numeric(text, '46', 1e9), 0, JSON.stringify(text));
      assert.equal(numeric('46', text, 1e9), 0, JSON.stringify(text));
    }
    for (const [text, value] of [['+5', 5], ['.5', 0.5], ['5.', 5], ['007', 7], ['-2.5E-3', -0.0025]] as const) assert.equal(parseNumber(text), value, text);
  });

  it('reads thousands separators in groups of three and a leading "$", as GSM8K answers are written', () => {
    for (const [text, value] of [['4,600', 4600], ['1,234,567', 1234567], ['-1,234.5', -1234.5], ['$12', 12], ['-$1,000.00', -1000], [' $0.50 ', 0.5], ['999', 999]] as const) {
      assert.equal(parseNumber(text), value, text);
    }
    assert.equal(numeric('1,234', '1234', 0), 1);
    assert.equal(numeric('$18', '18', 0), 1);
    assert.equal(numeric('18.00', '18', 0), 1);
    // A comma outside groups of three is no separator (nor a decimal comma): not a number at all.
    for (const text of ['4,60', '46,00', '1,2345', '1234,567', ',460', '4,600,', '4,,600', '1,234.5,6']) assert.equal(parseNumber(text), null, text);
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

  it('the R1 format check: `.` stops at a line break, `[\\s\\S]` does not (as docs/language.md says)', () => {
    const dot = LinearRegex.compile('^<think>.*</think>\\s*<answer>.*</answer>$');
    const any = LinearRegex.compile('^<think>[\\s\\S]*</think>\\s*<answer>[\\s\\S]*</answer>$');
    const oneLine = '<think>2+2 is 4</think> <answer>4</answer>';
    const lines = '<think>2+2\nis 4</think>\n<answer>\n4\n</answer>';
    assert.deepEqual([regex(oneLine, dot), regex(oneLine, any)], [1, 1]);
    assert.deepEqual([regex(lines, dot), regex(lines, any)], [0, 1]);
    for (const wrong of ['<answer>4</answer>', '<think>x</think>', '<think>x</think><answer>4</answer> and more', ' <think>x</think><answer>4</answer>']) {
      assert.equal(regex(wrong, any), 0, wrong);
    }
  });

  it('a character is a code point: `.` is one emoji, \\p{M} finds a combining mark', () => {
    assert.equal(regex('😀', LinearRegex.compile('^.$')), 1);
    assert.equal(regex('e\u0301', LinearRegex.compile('^.$')), 0);
    assert.equal(regex('e\u0301', LinearRegex.compile('\\p{M}')), 1);
  });
});

describe('last_number: the last number a worked solution states', () => {
  it('takes the last of several numbers, with its sign, fraction and exponent', () => {
    assert.equal(lastNumber('Natalia sold 48/2 = 24 clips in May, so 48+24 = 72 in all.'), '72');
    assert.equal(lastNumber('The answer is 42'), '42');
    assert.equal(lastNumber('It drops to -3 degrees'), '-3');
    assert.equal(lastNumber('x = -3.25'), '-3.25');
    assert.equal(lastNumber('(-7)'), '-7');
    assert.equal(lastNumber('\u22127 (a typeset minus)'), '-7');
    assert.equal(lastNumber('0.50 then .5'), '0.5', 'a bare fraction gets its 0');
    assert.equal(lastNumber('3.14159'), '3.14159');
    assert.equal(lastNumber('about 1.5e-3 of it'), '1.5e-3');
    assert.equal(lastNumber('007'), '007', 'digits as written; numeric() reads them as 7');
  });

  it('a "-" between two numbers or words is a minus or a hyphen, not a sign', () => {
    assert.equal(lastNumber('so 5-3'), '3');
    assert.equal(lastNumber('10 - 3 = 7'), '7');
    assert.equal(lastNumber('a 3-4 split'), '4');
    assert.equal(lastNumber('x-2'), '2');
    assert.equal(lastNumber('f(x)-1'), '1');
    assert.equal(lastNumber('-$5'), '-5');
    assert.equal(lastNumber('= -5'), '-5');
  });

  it('drops thousands separators and the "$", and stops at the period that ends the sentence', () => {
    assert.equal(lastNumber('So she pays $1,234.50.'), '1234.50');
    assert.equal(lastNumber('12,345,678 apples'), '12345678');
    assert.equal(lastNumber('It costs $18.'), '18');
    assert.equal(lastNumber('The total is 18...'), '18');
    assert.equal(lastNumber('That is 50%.'), '50');
    assert.equal(lastNumber('#### 1,000'), '1000');
  });

  it('a comma outside groups of three separates numbers', () => {
    assert.equal(lastNumber('1,2,3'), '3');
    assert.equal(lastNumber('(1,23)'), '23');
    assert.equal(lastNumber('1,2345'), '2345');
    assert.equal(lastNumber('1234,567'), '567', 'a first group of four is no thousands group');
    assert.equal(lastNumber('3, 4'), '4');
  });

  it('gives "" when the text states no number', () => {
    for (const text of ['', 'no idea', 'forty-two', '.', '-', '$', ',', '٤٢', 'e'] ) assert.equal(lastNumber(text), '', JSON.stringify(text));
  });

  it('numeric(last_number(completion), target) scores what a GSM8K grader scores', () => {
    const right = ['Each box has 6, so 3 boxes have 18.', 'The answer is $18.00', '#### 18', '18', 'so 20-2 = 18\n'];
    const wrong = ['I think 18 or maybe 19', 'It is 18 (no: 17)', 'no answer', '18e1'];
    for (const completion of right) assert.equal(numeric(lastNumber(completion), '18', 1e-6), 1, completion);
    for (const completion of wrong) assert.equal(numeric(lastNumber(completion), '18', 1e-6), 0, completion);
    assert.equal(numeric(lastNumber('The total is 1,234.'), '1,234', 0), 1, 'a target written with separators');
    assert.equal(numeric(lastNumber('a loss of -5'), '-5', 0), 1);
    const solution = 'Natalia sold 48/2 = <<48/2=24>>24 clips in May.\nNatalia sold 48+24 = <<48+24=72>>72 clips altogether.\n#### 72';
    assert.equal(numeric(lastNumber('So 72 clips.'), lastNumber(solution), 0), 1, "a target that is GSM8K's whole solution");
  });
});

describe('boxed: the last \\boxed{...}, to its balanced brace', () => {
  it('reads nested braces and takes the last box', () => {
    assert.equal(boxed('The answer is $\\boxed{42}$.'), '42');
    assert.equal(boxed('\\boxed{\\frac{1}{2}}'), '\\frac{1}{2}');
    assert.equal(boxed('\\boxed{\\sqrt{\\frac{a}{b^{2}}}} then'), '\\sqrt{\\frac{a}{b^{2}}}');
    assert.equal(boxed('first \\boxed{1}, then \\boxed{2}'), '2');
    assert.equal(boxed('\\boxed{\\boxed{3}}'), '3', 'a box inside a box: the inner one starts last');
    assert.equal(boxed('\\fbox{ 7 }'), '7', 'fbox too, trimmed');
    assert.equal(boxed('\\boxed {7}'), '7', 'spaces before the brace');
    assert.equal(boxed('\\boxed{\\{1, 2\\}}'), '\\{1, 2\\}', 'escaped braces are content');
  });

  it('gives "" with no box, an empty box, or a last box never closed', () => {
    for (const text of ['', '42', 'boxed{42}', '\\boxed', '\\boxed{}', '\\boxed{  }', '\\boxed{\\frac{1}{2}', 'a \\boxed{1} then \\boxed{2']) {
      assert.equal(boxed(text), '', JSON.stringify(text));
    }
  });

  it('another command is not a box', () => {
    assert.equal(boxed('\\boxedx{1}'), '');
    assert.equal(boxed('\\boxed{1} \\boxedfoo{2}'), '1');
    assert.equal(boxed('\\boxed{1} \\boxed 2'), '1', 'a box without braces is not read');
  });
});

describe('tagged: the last complete <tag>...</tag>', () => {
  it('reads the content, trimmed, of the last complete pair', () => {
    assert.equal(tagged('<think>2+2</think> <answer> 4 </answer>', 'answer'), '4');
    assert.equal(tagged('<think>2+2</think> <answer> 4 </answer>', 'think'), '2+2');
    assert.equal(tagged('<answer>a</answer><answer>b</answer>', 'answer'), 'b');
    assert.equal(tagged('<answer>line 1\nline 2</answer>', 'answer'), 'line 1\nline 2');
    assert.equal(tagged('<answer><answer>x</answer></answer>', 'answer'), 'x');
  });

  it('gives "" with no pair; a tag never closed (a cut-off completion) does not count', () => {
    for (const text of ['', 'x', '<answer>4', '4</answer>', '</answer><answer>', '<Answer>4</Answer>', '<answer id="1">4</answer>', '<answer></answer>']) {
      assert.equal(tagged(text, 'answer'), '', JSON.stringify(text));
    }
    assert.equal(tagged('<answer>a</answer> <answer>b', 'answer'), 'a', 'the last complete pair');
  });

  it('tags are matched whole: <answers> is not <answer>', () => {
    assert.equal(tagged('<answers>1</answers>', 'answer'), '');
  });
});

describe('the extractors (and numeric\'s reading of a number) run in time linear in the text', () => {
  // Each text is about a million characters built to make a quadratic scan (one search per
  // candidate, each to the end of the text) take minutes; linear, each takes milliseconds.
  const n = 150_000;
  const cases: [string, () => string, string][] = [
    ['last_number, groups that never close', () => lastNumber('1,234,'.repeat(n) + '5'), '5'],
    ['last_number, digits and dots ("1.1.1.": "1.1", then ".1" after a digit is no number)', () => lastNumber('1.'.repeat(n * 3)), '1.1'],
    ['last_number, one long number', () => lastNumber('9'.repeat(n * 6)), '9'.repeat(n * 6)],
    ['boxed, boxes never closed', () => boxed('\\boxed{'.repeat(n)), ''],
    ['boxed, nested boxes', () => boxed('\\boxed{'.repeat(n) + '}'.repeat(n)), ''],
    ['boxed, backslashes', () => boxed('\\'.repeat(n * 6) + '\\boxed{1}'), '1'],
    ['tagged, openings never closed', () => tagged('<answer>'.repeat(n), 'answer'), ''],
    ['tagged, closings never opened', () => tagged('</answer>'.repeat(n), 'answer'), ''],
    ['numeric, thousands groups that break at the end', () => String(numeric('1' + ',111'.repeat(n) + ',11', '1', 1)), '0'],
  ];
  for (const [what, run, expected] of cases) {
    it(what, () => {
      const start = performance.now();
      const got = run();
      const ms = performance.now() - start;
      assert.equal(got.length > 20 ? got.length : got, expected.length > 20 ? expected.length : expected);
      assert.ok(ms < 2000, `${what}: ${ms.toFixed(0)} ms`);
    });
  }
});
