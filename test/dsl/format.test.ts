import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { format, formatEdits, type FormatOptions } from '../../dsl/format/index.js';
import { parse } from '../../dsl/syntax/parse.js';
import { codeBlocks, exampleFiles, readLanguageDoc } from '../helpers/repo.js';
import { applyEdits } from '../helpers/source.js';

// ---- helpers

function languageBlocks(): string[] {
  const blocks = codeBlocks(readLanguageDoc(), 'rlx').map((b) => b.text);
  assert.ok(blocks.length > 0, 'docs/language.md has no ```rlx blocks');
  return blocks;
}

function exampleSources(): { name: string; text: string }[] {
  return exampleFiles().map((file) => ({ name: path.basename(file), text: fs.readFileSync(file, 'utf8') }));
}

function formatted(text: string, options?: FormatOptions): string {
  const result = format(text, options);
  assert.ok(result.ok, `format refused: ${result.ok ? '' : result.reason}\n--- input ---\n${text}`);
  return result.text;
}

/** The tree without positions and comments: what must not change when a file is formatted. */
function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === 'range' || key === 'keywordRange' || key === 'comments') continue;
    out[key] = key === 'doc' && typeof v === 'string' ? v.replace(/[^\S\n]+$/gm, '') : strip(v);
  }
  return out;
}

function commentTexts(text: string): string[] {
  return parse(text).file.comments.map((c) => c.text.replace(/\r/g, '').replace(/[^\S\n]+$/gm, ''));
}

/** Same tree, and every comment exactly once, in the same order. */
function assertSameMeaning(before: string, after: string): void {
  const a = parse(before);
  const b = parse(after);
  assert.deepEqual(b.errors, [], `the formatted text has syntax errors:\n${after}`);
  assert.deepEqual(strip(b.file), strip(a.file), `the formatted text parses to another tree:\n${after}`);
  assert.deepEqual(commentTexts(after), commentTexts(before), `comments were lost, doubled or reordered:\n${after}`);
}

/** One focused case: `before` formats to `after`, which is a fixed point and means the same. */
function check(before: string, after: string, options?: FormatOptions): void {
  assert.equal(formatted(before, options), after);
  assert.equal(formatted(after, options), after, 'formatting is not idempotent');
  assertSameMeaning(before, after);
}

// ---- the design document and the examples are already canonical

describe('format: docs/language.md and examples/', () => {
  const blocks = languageBlocks();

  blocks.forEach((block, i) => {
    it(`leaves docs/language.md block ${i + 1} (${block.split('\n')[0]}) unchanged`, () => {
      assert.equal(formatted(block), block);
      assertSameMeaning(block, block);
    });
  });

  it('leaves all docs/language.md blocks together unchanged', () => {
    const all = blocks.join('\n');
    assert.equal(formatted(all), all);
  });

  for (const { name, text } of exampleSources()) {
    it(`formats examples/${name} idempotently, keeping its tree and comments`, () => {
      const once = formatted(text);
      assert.equal(formatted(once), once);
      assertSameMeaning(text, once);
    });
  }
});

// ---- focused cases

describe('format: layout', () => {
  it('normalises spacing around `=`, `:`, braces and commas', () => {
    check('env   Pole=CartPole{max_steps:500 ,gamma : 0.99}', 'env Pole = CartPole { max_steps: 500, gamma: 0.99 }\n');
    check('sweep  S   over\tE{parallel:2}', 'sweep S over E { parallel: 2 }\n');
  });

  it('drops commas between members of a multi-line body', () => {
    check('policy P = mlp {\n  hidden: [64,64],\n  activation: tanh,\n}\n', 'policy P = mlp {\n  hidden: [64, 64]\n  activation: tanh\n}\n');
  });

  it('puts each member on its own line in a multi-line body', () => {
    check('experiment E {\n  env: X, policy: P\n    budget: 1M\n}\n', 'experiment E {\n  env: X\n  policy: P\n  budget: 1M\n}\n');
  });

  it('keeps a body written on one line on one line, with commas', () => {
    check('env X = Y { low: 1 high: 100 }', 'env X = Y { low: 1, high: 100 }\n');
    check('experiment E {\n  eval { every: 20k, episodes: 50 }\n}\n', 'experiment E {\n  eval { every: 20k, episodes: 50 }\n}\n');
  });

  it('splits a one-line body that does not fit in lineWidth', () => {
    const long = `algorithm A = PPO { learning_rate: 3e-4, rollout_steps: 2048, epochs: 10, minibatches: 32, gamma: 0.99 }`;
    check(long, 'algorithm A = PPO {\n  learning_rate: 3e-4\n  rollout_steps: 2048\n  epochs: 10\n  minibatches: 32\n  gamma: 0.99\n}\n');
    check('env X = Y { a: 1, b: 2 }', 'env X = Y {\n  a: 1\n  b: 2\n}\n', { lineWidth: 20 });
    check('env X = Y { a: 1, b: 2 }', 'env X = Y { a: 1, b: 2 }\n', { lineWidth: 24 });
  });

  it('splits a one-line body that holds a nested block, keeping the nested one on one line', () => {
    check('experiment E { env: X, eval { every: 10k } }', 'experiment E {\n  env: X\n  eval { every: 10k }\n}\n');
    check('experiment E { stage s = SFT { updates: 1 } }', 'experiment E {\n  stage s = SFT { updates: 1 }\n}\n');
  });

  it('keeps a multi-line body multi-line, and writes an empty body as {}', () => {
    check('env X = Y {\n  a: 1\n}\n', 'env X = Y {\n  a: 1\n}\n');
    check('env X = Y {\n\n}\nenv Z = Y {  }', 'env X = Y {}\n\nenv Z = Y {}\n');
  });

  it('indents nested blocks', () => {
    check(
      'experiment R {\ncurriculum {\nparam: env.size\n        advance: eval.success >= 0.8\n}\n}',
      'experiment R {\n  curriculum {\n    param: env.size\n    advance: eval.success >= 0.8\n  }\n}\n',
    );
  });

  it('indents by two spaces, the one layout: no option changes it', () => {
    check('experiment R {\n eval {\n every: 1\n }\n}', 'experiment R {\n  eval {\n    every: 1\n  }\n}\n');
  });

  it('keeps at most one blank line between members, none after { or before }', () => {
    check('env X = Y {\n\n  a: 1\n\n\n\n  b: 2\n  c: 3\n\n}\n', 'env X = Y {\n  a: 1\n\n  b: 2\n  c: 3\n}\n');
  });

  it('puts exactly one blank line between declarations', () => {
    check('env A = X {}\nenv B = X {}\n\n\n\nenv C = X {} env D = X', 'env A = X {}\n\nenv B = X {}\n\nenv C = X {}\n\nenv D = X\n');
  });

  it('aligns `=` in a run of term and stage members; a blank line ends the run', () => {
    check(
      'reward R {\n  term a = 1\n  term longer = -0.1 * abs(obs.x)\n\n  term b = 2\n  term cc = 3\n  replace_env_reward: true\n}\n',
      'reward R {\n  term a      = 1\n  term longer = -0.1 * abs(obs.x)\n\n  term b  = 2\n  term cc = 3\n  replace_env_reward: true\n}\n',
    );
    check(
      'experiment S {\n  stage warmup=SFT{updates:2k,data:demos}\n  stage main = Grpo {\n    budget: 50k\n  }\n}',
      'experiment S {\n  stage warmup = SFT { updates: 2k, data: demos }\n  stage main   = Grpo {\n    budget: 50k\n  }\n}\n',
    );
  });

  it('writes sweep paths and lists', () => {
    check('sweep L over B {\n  algorithm.learning_rate : [ 1e-4,3e-4 , 1e-3, ]\n  seeds: [ ]\n}', 'sweep L over B {\n  algorithm.learning_rate: [1e-4, 3e-4, 1e-3]\n  seeds: []\n}\n');
  });

  it('spaces binary operators, keeps ^ and unary minus tight, and keeps parentheses as written', () => {
    check(
      'reward R {\n  term a = 1+2*x^2-y/3\n  term b = -0.05*abs( obs.x )\n  term c = not(a==b)and c!=d or e<f\n  term d = ((a<=b)) or a>=b and a>b\n  term e = x ^ -2 - -y\n}',
      'reward R {\n  term a = 1 + 2 * x^2 - y / 3\n  term b = -0.05 * abs(obs.x)\n  term c = not (a == b) and c != d or e < f\n  term d = ((a <= b)) or a >= b and a > b\n  term e = x^-2 - -y\n}\n',
    );
  });

  it('writes calls with positional and named arguments, and bases with arguments', () => {
    check(
      'algorithm H = DQN {\n  epsilon: linear( 1.0,0.05 , over:0.3 )\n  relabel: future(k : 4)\n  x: f()\n}\nenv M = module( "./my_env.ts" )\nenv G = GridWorld(  ) {}',
      'algorithm H = DQN {\n  epsilon: linear(1.0, 0.05, over: 0.3)\n  relabel: future(k: 4)\n  x: f()\n}\n\nenv M = module("./my_env.ts")\n\nenv G = GridWorld() {}\n',
    );
  });

  it('prints numbers and strings exactly as written', () => {
    check(
      'env X = Y { a: 2.5e-4, b: 500k, c: 1.5M, d: 3E+2, e: "q\\"uote\\\\ \\n", f: true, g: none, h: 0.10 }',
      'env X = Y { a: 2.5e-4, b: 500k, c: 1.5M, d: 3E+2, e: "q\\"uote\\\\ \\n", f: true, g: none, h: 0.10 }\n',
    );
  });

  it('puts imports first, in source order, and a blank line before the declarations', () => {
    check('import"./a.rlx"\nimport   "./b.rlx"\nenv X = Y', 'import "./a.rlx"\nimport "./b.rlx"\n\nenv X = Y\n');
    const moved = formatted('env X = Y\n// why c\nimport "./c.rlx" // trailing\nimport "./d.rlx"\n');
    assert.equal(moved, '// why c\nimport "./c.rlx" // trailing\nimport "./d.rlx"\n\nenv X = Y\n');
    assert.equal(formatted(moved), moved);
    assert.deepEqual(strip(parse(moved).file), strip(parse('env X = Y\n// why c\nimport "./c.rlx" // trailing\nimport "./d.rlx"\n').file));
  });

  it('formats an empty file, a blank file and a file of comments', () => {
    check('', '');
    check('  \n\n\t\n', '');
    check('// one\n\n\n/* two */   \n// three   \n', '// one\n\n/* two */\n// three\n');
  });

  it('ends with exactly one newline', () => {
    check('env X = Y {\n  a: 1 // c\n}\n\n\n', 'env X = Y {\n  a: 1 // c\n}\n');
    check('env X = Y', 'env X = Y\n');
  });

  it('keeps CRLF line breaks, going by the first line break of the file', () => {
    check('env X = Y {\r\n  a: 1 // c\r\n}\r\n\r\n\r\n', 'env X = Y {\r\n  a: 1 // c\r\n}\r\n');
    check('/* a\r\n   b */\r\nenv X = Y { a: 1,\nb: 2 }', '/* a\r\n   b */\r\nenv X = Y {\r\n  a: 1\r\n  b: 2\r\n}\r\n');
    check('env X = Y {\n  a: 1\r\n}\r\n', 'env X = Y {\n  a: 1\n}\n');
    const crlf = 'env Pole = CartPole { max_steps: 500 }\r\n\r\nalgorithm T = PPO {\r\n  epochs: 4\r\n}\r\n';
    assert.deepEqual(format(crlf), { ok: true, text: crlf }, 'a formatted CRLF file is formatted as it is');
  });

  it('writes the line breaks it is asked for', () => {
    check('env X = Y { a: 1, b: 2 }', 'env X = Y {\r\n  a: 1\r\n  b: 2\r\n}\r\n', { lineEnding: '\r\n', lineWidth: 10 });
    check('env X = Y {\r\n  a: 1\r\n}\r\n', 'env X = Y {\n  a: 1\n}\n', { lineEnding: '\n' });
  });
});

describe('format: comments', () => {
  it('keeps a trailing comment at the end of its line, with the spaces the author put before it', () => {
    check(
      'algorithm T = PPO {\n  learning_rate: linear(2.5e-4,0)   // annealed\n  epochs:4// four\n  clip: 0.2,  /* block */\n}',
      'algorithm T = PPO {\n  learning_rate: linear(2.5e-4, 0)   // annealed\n  epochs: 4 // four\n  clip: 0.2  /* block */\n}\n',
    );
  });

  it('moves a comment between members of a one-line body to the end of its member line', () => {
    check('env X = Y { a: 1, /* about b */ b: 2 }', 'env X = Y {\n  a: 1 /* about b */\n  b: 2\n}\n');
  });

  it('keeps a comment after `{` on the opening line', () => {
    check('env X = Y { // why\n  a: 1\n}', 'env X = Y { // why\n  a: 1\n}\n');
  });

  it('indents own-line comments to the members around them, keeping one blank line where there was one', () => {
    check(
      'experiment E {\n      // the env\n  env: X\n\n\n// the rest\n        policy: P\n}',
      'experiment E {\n  // the env\n  env: X\n\n  // the rest\n  policy: P\n}\n',
    );
  });

  it('keeps a comment before `}` inside the body, also in an empty body', () => {
    check('env X = Y {\n  a: 1\n  // later: b\n}', 'env X = Y {\n  a: 1\n  // later: b\n}\n');
    check('env X = Y {\n// nothing yet\n}', 'env X = Y {\n  // nothing yet\n}\n');
    check('env X = Y { /* nothing */ }', 'env X = Y { /* nothing */\n}\n');
  });

  it('keeps comments between declarations between them, glued to the next one when they were', () => {
    check(
      'env A = X {}\n// about B\nenv B = X {}\n// loose\n\nenv C = X {} // after C\n// the end\n',
      'env A = X {}\n\n// about B\nenv B = X {}\n\n// loose\n\nenv C = X {} // after C\n\n// the end\n',
    );
  });

  it('keeps a /// doc comment directly above its declaration', () => {
    check('/// Fast learner.\n///   Second line.\nalgorithm F = PPO {}\n\n\n/// Not glued.\n\nenv X = Y', '/// Fast learner.\n///   Second line.\nalgorithm F = PPO {}\n\n/// Not glued.\n\nenv X = Y\n');
    assert.equal(parse(formatted('/// Fast learner.\nalgorithm F = PPO {}')).file.declarations[0].doc, 'Fast learner.');
  });

  it('moves a /// comment written after a declaration onto its own line, still above the next one', () => {
    const out = formatted('env A = X {} /// about B\nenv B = X {}');
    assert.equal(out, 'env A = X {}\n\n/// about B\nenv B = X {}\n');
    assert.equal(parse(out).file.declarations[1].doc, 'about B');
  });

  it('keeps block comments verbatim, multi-line ones included', () => {
    check('/* a\n   * b\n   */\nenv X = Y {\n  /** keep\n      as is */\n  a: 1\n}', '/* a\n   * b\n   */\nenv X = Y {\n  /** keep\n      as is */\n  a: 1\n}\n');
  });

  it('keeps comments inside expressions and headers in place', () => {
    check('env X = Y { a: f(/* first */ x, y /* last */), b: [1,/* two */2] }', 'env X = Y {\n  a: f(/* first */ x, y /* last */)\n  b: [1, /* two */ 2]\n}\n');
    check('env /* name */ X = Y /* body */ {}', 'env /* name */ X = Y /* body */ {}\n');
    check('reward R {\n  term t = 1 + // why\n    2\n}', 'reward R {\n  term t = 1 + // why\n    2\n}\n');
    check('env X = Y {\n  seeds: [\n    1, // first\n    2\n  ]\n}', 'env X = Y {\n  seeds: [1, // first\n    2]\n}\n');
  });
});

// ---- refusal

describe('format: refusal', () => {
  it('refuses a file with syntax errors, naming the first line', () => {
    const result = format('env X = CartPole {\n  a: 1\n  b: \n}\n');
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.reason, /^the file has 1 syntax error; fix it first \(line 4: expected a value/);
  });

  it('counts the errors', () => {
    const result = format('env X = {\n}\nenv Y = Z { a: }\n');
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.reason, /^the file has \d+ syntax errors; fix them first \(line 1: /);
  });

  it('refuses an unclosed body and an invalid character', () => {
    assert.match(refusal('env X = Y {\n  a: 1\n'), /line 2: expected '}'/);
    assert.match(refusal('env X = Y {\n  a: 1 $\n}'), /line 2: unexpected character '\$'/);
  });

  function refusal(text: string): string {
    const result = format(text);
    assert.equal(result.ok, false);
    return result.ok ? '' : result.reason;
  }
});

// ---- edits

describe('formatEdits', () => {
  const messy = [
    'env   Pole=CartPole{max_steps:500}\n',
    'experiment E {\n  env: X, policy: P\n\n\n\n  budget: 1M   // steps\n}\nenv B = X {}',
    'reward R {\n  term a = 1\n  term longer = 2\n}\n',
    'env X = Y {\r\n  a:1\r\n\r\n\r\n  b: 2}\r\n',
    '\n\n// c\nenv A = X\n\n\nenv B = X\n',
  ];

  for (const text of messy) {
    it(`turns ${JSON.stringify(text.slice(0, 30))}... into its formatted form`, () => {
      const edits = formatEdits(text);
      assert.ok(edits.length > 0);
      assert.equal(applyEdits(text, edits), formatted(text));
    });
  }

  it('touches only the lines that change', () => {
    const text = 'env A = X {\n  a: 1\n  b:2\n  c: 3\n}\n';
    assert.deepEqual(formatEdits(text), [{ range: { start: 19, end: 25 }, newText: '  b: 2\n' }]);
  });

  it('returns no edits for formatted text or a file that cannot be formatted', () => {
    for (const block of languageBlocks()) {
      assert.deepEqual(formatEdits(block), []);
      assert.deepEqual(formatEdits(block.replace(/\n/g, '\r\n')), [], 'the same with CRLF line breaks');
    }
    assert.deepEqual(formatEdits('env X = {'), []);
    assert.deepEqual(formatEdits(''), []);
  });
});

// ---- robustness

/** A small seeded generator (mulberry32): the same cases on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SNIPPETS = ['{', '}', '(', ')', '[', ']', ',', ':', '=', '.', '-', '^', '"', '\n', ' ', '//', '/*', '*/', '///', 'x', '1', 'k', 'not', 'term', '\r\n', '\t', 'é', '\u{1F600}'];
const COMMENTS = [' /* c */ ', '/*c*/', ' // c\n', '\n// c\n', '\n/// d\n', '\n\n/* multi\n  line */\n', '/**/'];

/** Formats, and when it formats checks idempotence and meaning; when it refuses, the reason must be a syntax error. */
function assertRobust(text: string): 'formatted' | 'refused' {
  const result = format(text);
  if (!result.ok) {
    assert.ok(parse(text.replace(/\r\n?/g, '\n')).errors.length > 0, `refused a file without syntax errors (${result.reason}):\n${text}`);
    assert.match(result.reason, /^the file has \d+ syntax errors?; fix/);
    return 'refused';
  }
  assert.equal(formatted(result.text), result.text, `not idempotent for:\n${JSON.stringify(text)}`);
  const normalised = text.replace(/\r\n?/g, '\n');
  assert.deepEqual(strip(parse(result.text).file), strip(parse(normalised).file), `meaning changed for:\n${JSON.stringify(text)}`);
  assert.deepEqual(commentTexts(result.text), commentTexts(normalised), `comments changed for:\n${JSON.stringify(text)}`);
  return 'formatted';
}

describe('format: robustness', () => {
  const blocks = languageBlocks();

  it('never throws on random edits and truncations of the docs/language.md examples', () => {
    const next = random(1);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
    const tally = { formatted: 0, refused: 0 };
    for (let n = 0; n < 800; n++) {
      let text = pick(blocks);
      const edits = 1 + Math.floor(next() * 3);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(next() * (text.length + 1));
        const kind = next();
        if (kind < 0.3) text = text.slice(0, at) + text.slice(at + 1 + Math.floor(next() * 8));
        else if (kind < 0.6) text = text.slice(0, at) + pick(SNIPPETS) + text.slice(at);
        else if (kind < 0.75) text = text.slice(0, at) + String.fromCharCode(Math.floor(next() * 128)) + text.slice(at + 1);
        else if (kind < 0.85) text = text.slice(0, at);
        else text = text.slice(0, at) + text.slice(Math.max(0, at - 20), at) + text.slice(at);
      }
      tally[assertRobust(text)]++;
    }
    // Both outcomes must really be exercised for this test to mean anything.
    assert.ok(tally.formatted > 50 && tally.refused > 50, JSON.stringify(tally));
  });

  it('keeps comments inserted anywhere between tokens, idempotently', () => {
    const next = random(2);
    let formattedCount = 0;
    for (let n = 0; n < 500; n++) {
      let text = blocks[n % blocks.length];
      for (let e = 0; e < 1 + Math.floor(next() * 4); e++) {
        // At a token boundary, mostly: next to a blank or a punctuation mark.
        const boundaries = [...text.matchAll(/(?<=[\s{}()[\],:=])|(?=[\s{}()[\],:=])/g)].map((m) => m.index);
        const at = boundaries[Math.floor(next() * boundaries.length)];
        text = text.slice(0, at) + COMMENTS[Math.floor(next() * COMMENTS.length)] + text.slice(at);
      }
      if (assertRobust(text) === 'formatted') formattedCount++;
    }
    assert.ok(formattedCount > 300, `only ${formattedCount} of the commented variants parsed`);
  });

  it('formats every docs/language.md example squeezed onto as few lines as possible', () => {
    for (const block of blocks) {
      // Lines are joined with a space unless a line comment needs its line break.
      const squeezed = block.split('\n').reduce((text, line) => text + (/\/\//.test(text.split('\n').pop()!) ? '\n' : ' ') + line.trim());
      assert.equal(assertRobust(squeezed), 'formatted');
    }
  });
});
