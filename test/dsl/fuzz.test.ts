// Robustness: the docs/language.md examples, cut short and edited at random (seeded, so every run
// sees the same cases), and random token soup. Whatever the text, parse and analyze return
// without throwing, every range lies inside its file, no check crashes (internal-error), and
// an edit that surely breaks the syntax is reported.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { analyze, parse, Workspace, type Diagnostic, type Range } from '../../dsl/index.js';
import { codeBlocks, readLanguageDoc } from '../helpers/repo.js';
import { MemoryHost, virtualPath } from '../helpers/source.js';
import { seededRandom } from '../helpers/random.js';

const INTERESTING = ['{', '}', '[', ']', '(', ')', '=', ':', ',', '.', '"', '/', '\\', '\n', ' ', '*', '-', '^', '<', '>', '!', '@', '#', 'k', 'M', 'e', 'a', 'x', '_', '0', '1', '9', '///', '//', '/*', '*/'];

const blocks = codeBlocks(readLanguageDoc(), 'rlx').map((b) => b.text);
const whole = blocks.join('\n');
const sources = [...blocks, whole];

interface Outcome {
  diagnostics: Diagnostic[];
}

/** Runs parse and analyze over the files, checking the invariants that hold for any input. */
function analyseAndCheck(files: Record<string, string>, what: string): Outcome {
  const label = () => `${what}\n--- input ---\n${Object.entries(files).map(([n, t]) => `// ${n}\n${t}`).join('\n')}`;
  for (const text of Object.values(files)) {
    let parsed;
    try {
      parsed = parse(text);
    } catch (err) {
      assert.fail(`parse threw ${(err as Error).stack}\n${label()}`);
    }
    for (const e of parsed.errors) assert.ok(within(e.range, text), `syntax error range ${JSON.stringify(e.range)} outside the text\n${label()}`);
    assert.ok(!parsed.errors.some((e) => e.message.startsWith('internal parser error')), `the parser crashed: ${parsed.errors[0]?.message}\n${label()}`);
  }
  const host = new MemoryHost(files);
  let diagnostics: Diagnostic[];
  try {
    const analysis = analyze(new Workspace(host), Object.keys(files).map(virtualPath));
    diagnostics = [...analysis.diagnostics.values()].flat();
  } catch (err) {
    assert.fail(`analyze threw ${(err as Error).stack}\n${label()}`);
  }
  const textOf = (file: string) => host.readFile(file);
  for (const d of diagnostics) {
    const text = textOf(d.file);
    assert.ok(text !== undefined, `a diagnostic for a file that was not analysed: ${d.file}`);
    assert.notEqual(d.code, 'internal-error', `${d.message}\n${label()}`);
    assert.ok(within(d.range, text), `${d.code} range ${JSON.stringify(d.range)} outside the text (length ${text.length}): ${d.message}\n${label()}`);
    for (const fix of d.fixes ?? []) {
      for (const edit of fix.edits) assert.ok(within(edit.range, text), `fix '${fix.title}' edits outside the text\n${label()}`);
    }
    for (const r of d.related ?? []) {
      const other = textOf(r.file);
      assert.ok(other !== undefined && within(r.range, other), `related range outside its file\n${label()}`);
    }
  }
  return { diagnostics };
}

function within(range: Range, text: string): boolean {
  return Number.isInteger(range.start) && Number.isInteger(range.end) && range.start >= 0 && range.start <= range.end && range.end <= text.length;
}

function pick<T>(random: () => number, items: T[]): T {
  return items[Math.floor(random() * items.length)];
}

/** One to four random edits: insert, delete or replace characters, or cut the text short. */
function mutate(random: () => number, text: string): { text: string; edits: string[] } {
  const edits: string[] = [];
  const count = 1 + Math.floor(random() * 4);
  for (let i = 0; i < count; i++) {
    const at = Math.floor(random() * (text.length + 1));
    const r = random();
    if (r < 0.1) {
      text = text.slice(0, at);
      edits.push(`truncate at ${at}`);
    } else if (r < 0.45) {
      const s = pick(random, INTERESTING);
      text = text.slice(0, at) + s + text.slice(at);
      edits.push(`insert ${JSON.stringify(s)} at ${at}`);
    } else if (r < 0.7) {
      const n = 1 + Math.floor(random() * 6);
      text = text.slice(0, at) + text.slice(at + n);
      edits.push(`delete ${n} at ${at}`);
    } else {
      const s = pick(random, INTERESTING);
      text = text.slice(0, at) + s + text.slice(at + 1);
      edits.push(`replace at ${at} with ${JSON.stringify(s)}`);
    }
  }
  return { text, edits };
}

/** Offsets at the start of a line that no block comment covers: outside any string or comment. */
function lineStarts(text: string): number[] {
  const blockComments = parse(text).file.comments.filter((c) => c.style === 'block');
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return starts.filter((s) => !blockComments.some((c) => c.range.start < s && s < c.range.end));
}

describe('fuzz: the front end never falls over', () => {
  test('random truncations of the examples', () => {
    const random = seededRandom(1);
    for (let i = 0; i < 300; i++) {
      const source = pick(random, sources);
      const at = Math.floor(random() * (source.length + 1));
      analyseAndCheck({ 'main.rlx': source.slice(0, at) }, `truncated at ${at}`);
    }
  });

  test('random character edits of the examples', () => {
    const random = seededRandom(2);
    for (let i = 0; i < 1500; i++) {
      const source = random() < 0.25 ? whole : pick(random, blocks);
      const { text, edits } = mutate(random, source);
      analyseAndCheck({ 'main.rlx': text }, `case ${i}: ${edits.join(', ')}`);
    }
  });

  test('random edits across two files that import each other', () => {
    const random = seededRandom(3);
    const lines = whole.split('\n');
    for (let i = 0; i < 200; i++) {
      // Split the examples in two files at a random line; each imports the other.
      const cut = Math.floor(random() * lines.length);
      const first = mutate(random, `import "./other.rlx"\n${lines.slice(0, cut).join('\n')}\n`);
      const second = random() < 0.5 ? mutate(random, `import "./main.rlx"\n${lines.slice(cut).join('\n')}`) : { text: `import "./main.rlx"\n${lines.slice(cut).join('\n')}`, edits: [] };
      analyseAndCheck({ 'main.rlx': first.text, 'other.rlx': second.text }, `case ${i}: cut at line ${cut}; main: ${first.edits.join(', ')}; other: ${second.edits.join(', ')}`);
    }
  });

  test('random token soup', () => {
    const random = seededRandom(4);
    const words = ['import', 'env', 'reward', 'policy', 'algorithm', 'experiment', 'sweep', 'term', 'stage', 'over', 'true', 'false', 'none', 'and', 'or', 'not',
      'module', 'Pole', 'CartPole', 'PPO', 'DQN', 'mlp', 'GridWorld', 'TextTask', 'eval', 'curriculum', 'obs', 'env.size', 'linear', 'fixed', 'abs',
      'x', 'budget', 'learning_rate', 'gamma', '1', '0.5', '500k', '1.5M', '"./a.rlx"', '"s"', '"', '{', '}', '(', ')', '[', ']', ',', ':', '.', '=', '==', '<=',
      '+', '-', '*', '/', '^', '@', '\n', '// c\n', '/// d\n', '/* b */'];
    for (let i = 0; i < 600; i++) {
      const n = 1 + Math.floor(random() * 40);
      const text = Array.from({ length: n }, () => pick(random, words)).join(pick(random, [' ', '\n', '']));
      analyseAndCheck({ 'main.rlx': text, 'a.rlx': 'env Pole = CartPole {}\n' }, `case ${i}`);
    }
  });
});

describe('fuzz: edits that surely break the syntax are reported', () => {
  // Outside strings and comments, '@' never belongs, and an extra '{', '(' or '[' leaves
  // brackets unbalanced, which no valid file has. At the start of a line (outside a block
  // comment) an inserted character is outside any string or comment.
  for (const [inserted, seed] of [['@', 5], ['{', 6], ['(', 7], ['[', 8]] as const) {
    test(`an inserted '${inserted}' always gives a diagnostic`, () => {
      const random = seededRandom(seed);
      for (let i = 0; i < 150; i++) {
        const source = random() < 0.3 ? whole : pick(random, blocks);
        const at = pick(random, lineStarts(source));
        const text = source.slice(0, at) + inserted + source.slice(at);
        const { diagnostics } = analyseAndCheck({ 'main.rlx': text }, `'${inserted}' at ${at}`);
        const errors = diagnostics.filter((d) => d.severity === 'error' && (d.code === 'syntax-error' || d.code === 'invalid-character'));
        assert.ok(errors.length > 0, `no syntax error after inserting '${inserted}' at ${at}:\n${text}`);
      }
    });
  }

  test('an unclosed body at the end of any example is reported at the end', () => {
    for (const block of blocks) {
      const cut = block.trimEnd().replace(/}$/, '');
      const { diagnostics } = analyseAndCheck({ 'main.rlx': cut }, 'last brace removed');
      assert.ok(diagnostics.some((d) => d.code === 'syntax-error' && /expected '\}' but found the end of the file/.test(d.message)), `no missing-brace error:\n${cut}`);
    }
  });
});
