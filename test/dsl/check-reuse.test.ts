// Reused check results (dsl/check/reuse.ts) must give exactly the diagnostics a check from
// scratch gives, whatever the edits: typing in a body, renaming or adding a declaration, editing
// a base another declaration inherits from, in the file itself or in one it imports, with the
// file broken in between and with the per-file cap on.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { analyze, CheckCache, Workspace, type Analysis } from '../../dsl/index.js';
import { codeBlocks, examplesDir, readLanguageDoc } from '../helpers/repo.js';
import { seededRandom } from '../helpers/random.js';

const PIECES = [
  '1', '0', 'x', ' ', '\n', ',', '.', '"', '}', '{', ':', '=', '// c\n', 'k', 'env ', '-', '(', ')', '[', ']',
  '\n  l', 'l', 'lr: ', '/*', '*/', 'env B = CartPole {', 'term t = ', '}\n\nenv Z {', '+', '<', 'Pole', 'Lib',
  'env Lib = CartPole { max_steps: 9 }\n', 'policy: LibNet\n', 'algorithm: PPO\n', 'max_steps: 500\n', 'Base',
];

function randomEdit(text: string, rnd: () => number, near?: number): string {
  const at = near === undefined ? Math.floor(rnd() * (text.length + 1)) : Math.min(text.length, Math.max(0, Math.round(near + (rnd() - 0.5) * 200)));
  const removed = rnd() < 0.5 ? Math.floor(rnd() * (rnd() < 0.2 ? 40 : 3)) : 0;
  const inserted = rnd() < 0.75 ? PIECES[Math.floor(rnd() * PIECES.length)] : '';
  return text.slice(0, at) + inserted + text.slice(at + removed);
}

const LIB = [
  'env LibPole = CartPole { max_steps: 100 }',
  'env LibBase = LibPole { max_steps: 200 }',
  'policy LibNet = mlp { hidden: [32] }',
  'algorithm LibAlgo = PPO { clip: 0.2 }',
  'experiment LibRun {', '  env: LibBase', '  policy: LibNet', '  algorithm: LibAlgo', '  budget: 10k', '}',
  '',
].join('\n');

/** The language reference's examples plus uses of the imported file, and declarations that inherit across it. */
function mainText(): string {
  const uses = [
    'env Derived = LibBase { max_steps: 300 }',
    'experiment UsesLib {', '  env: Derived', '  policy: LibNet', '  algorithm: LibAlgo', '  budget: 20k', '}',
    'experiment Broken {', '  env: Missing', '  policy: LibNet', '  algorithm: LibAlgo', '  budget: 20k', '}',
    'env LibPole = CartPole {}',
  ];
  return ['import "./lib.rlx"', ...codeBlocks(readLanguageDoc(), 'rlx').map((b) => b.text), ...uses, ''].join('\n');
}

function workspaceOf(files: Map<string, string>): Workspace {
  return new Workspace({ readFile: (p) => files.get(p) ?? readIfExample(p) }, () => 8 * 2 ** 30);
}

/** Files the examples name (env modules, datasets) are read from the examples folder. */
function readIfExample(p: string): string | undefined {
  try {
    return p.startsWith(examplesDir()) ? fs.readFileSync(p, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

function sameAnalysis(incremental: Analysis, scratch: Analysis, what: string): void {
  assert.deepEqual(incremental.diagnostics, scratch.diagnostics, what);
  assert.deepEqual(incremental.hidden, scratch.hidden, `${what} (hidden counts)`);
}

for (const cap of [undefined, 12]) {
  test(`random edits in a file and its import: reused results equal a check from scratch${cap ? ' (12 diagnostics per file)' : ''}`, () => {
    const dir = examplesDir(); // the examples' modules and datasets resolve here
    const main = path.join(dir, 'reuse-main.rlx');
    const lib = path.join(dir, 'lib.rlx');
    const files = new Map([[main, mainText()], [lib, LIB]]);
    const cache = new CheckCache();
    const options = { cache, maxDiagnosticsPerFile: cap };
    const incremental = workspaceOf(files);
    analyze(incremental, [main], options);
    const rnd = seededRandom(cap ?? 5);
    let steps = 0;
    for (let session = 0; session < 25; session++) {
      const file = rnd() < 0.75 ? main : lib;
      const spot = Math.floor(rnd() * files.get(file)!.length);
      for (let step = 0; step < 12; step++, steps++) {
        const text = randomEdit(files.get(file)!, rnd, rnd() < 0.8 ? spot : undefined);
        files.set(file, text);
        incremental.setOverlay(file, text);
        const what = `session ${session}, step ${step}: ${path.basename(file)} is now ${JSON.stringify(text)}`;
        sameAnalysis(analyze(incremental, [main], options), analyze(workspaceOf(files), [main], { maxDiagnosticsPerFile: cap }), what);
      }
    }
    // Most declarations of an edited file are untouched by the edit: their results are replayed.
    assert.ok(cache.counts.reused > 4 * cache.counts.checked, `only ${cache.counts.reused} replayed, ${cache.counts.checked} checked in ${steps} edits`);
  });
}

test('each example, edited at random, checks the same with reused results', () => {
  const examples = fs.readdirSync(examplesDir()).filter((f) => f.endsWith('.rlx')).sort();
  const rnd = seededRandom(99);
  for (const name of examples) {
    const file = path.join(examplesDir(), name);
    const files = new Map([[file, fs.readFileSync(file, 'utf8')]]);
    const cache = new CheckCache();
    const incremental = workspaceOf(files);
    analyze(incremental, [file], { cache });
    for (let step = 0; step < 15; step++) {
      const text = randomEdit(files.get(file)!, rnd);
      files.set(file, text);
      incremental.setOverlay(file, text);
      sameAnalysis(analyze(incremental, [file], { cache }), analyze(workspaceOf(files), [file]), `${name}, step ${step}: ${JSON.stringify(text)}`);
    }
  }
});

/** One edit after a first analysis: the reused diagnostics, a scratch check's, and the replay counts. */
function afterEdit(before: Record<string, string>, after: Record<string, string>) {
  const files = new Map(Object.entries(before).map(([name, text]) => [path.join(path.sep, 'w', name), text]));
  const cache = new CheckCache();
  const incremental = workspaceOf(files);
  const root = [path.join(path.sep, 'w', 'main.rlx')];
  analyze(incremental, root, { cache });
  for (const [name, text] of Object.entries(after)) {
    files.set(path.join(path.sep, 'w', name), text);
    incremental.setOverlay(path.join(path.sep, 'w', name), text);
  }
  const counts = { ...cache.counts };
  const reused = analyze(incremental, root, { cache });
  sameAnalysis(reused, analyze(workspaceOf(files), root), 'after the edit');
  const messages = [...reused.diagnostics.values()].flat().map((d) => `${d.code} ${d.range.start}`);
  return { messages, reused: cache.counts.reused - counts.reused, checked: cache.counts.checked - counts.checked };
}

test('declaring a missing name clears the unknown-name of an unchanged declaration', () => {
  const user = 'experiment E {\n  env: Pole\n  policy: mlp\n  algorithm: PPO\n  budget: 1k\n}\n';
  const { messages, checked } = afterEdit({ 'main.rlx': `${user}env Other = CartPole {}\n` }, { 'main.rlx': `${user}env Pole = CartPole {}\n` });
  assert.deepEqual(messages, []);
  assert.equal(checked, 2, 'the experiment is checked again: the names of its file changed');
});

test('editing an imported base re-checks the declarations that inherit from it, and only those', () => {
  const main = 'import "./lib.rlx"\nenv Mine = Base { gravity: 5 }\nenv Unrelated = CartPole { max_steps: 7 }\n';
  const { messages, checked, reused } = afterEdit({ 'main.rlx': main, 'lib.rlx': 'env Base = CartPole {}\n' }, { 'lib.rlx': 'env Base = Pendulum {}\n' });
  assert.ok(messages.some((m) => m.startsWith('unknown-property')), `gravity is not a Pendulum property: ${messages.join(', ')}`);
  assert.equal(checked, 2, 'Base and Mine');
  assert.equal(reused, 1, 'Unrelated');
});

test('an edit above a declaration moves its replayed diagnostics and their related places with it', () => {
  const body = 'env A = CartPole {\n  max_steps: 5\n  max_steps: 6\n  bogus: 1\n}\n';
  const { messages, reused } = afterEdit({ 'main.rlx': `env First = CartPole {}\n${body}` }, { 'main.rlx': `env First = CartPole { max_steps: 10 }\n${body}` });
  assert.ok(messages.length >= 2, messages.join(', '));
  assert.equal(reused, 1, 'A is replayed, moved');
});
