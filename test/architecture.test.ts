// The layout's one-way data flow (dsl -> plan -> runtime -> run directory -> editor), checked on
// the import graph of the sources: the command line (cli/) is the composition root, the one
// place that brings dsl, runtime and server together; the trainer consumes plans and never
// reaches for the editor, the server or the command line; the browser pages take from the
// trainer only the import-free drawing modules of runtime/envs/geometry/.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from './helpers/repo.js';

interface Import {
  /** The importing file, relative to the repository root. */
  readonly from: string;
  /** The imported module, relative to the repository root (`.js` specifiers mapped to `.ts`). */
  readonly to: string;
  /** `import type` / `export type`: erased when compiled, so no code is loaded. */
  readonly typeOnly: boolean;
}

const ROOT = repoRoot();
const SOURCE_FOLDERS = ['dsl', 'runtime', 'cli', 'server', 'extension', 'webview'];

function sourceFiles(folder: string): string[] {
  return fs.readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => path.join(folder, file).split(path.sep).join('/'));
}

/** Relative imports of a file: static, re-exports, side-effect imports and dynamic import(). */
function importsOf(file: string): Import[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const found: Import[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    if (!specifier.startsWith('.')) return;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).replace(/\.js$/, '.ts');
    found.push({ from: file, to: target, typeOnly });
  };
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^'";]*?\bfrom\s+'([^']+)'/gm)) add(m[3]!, m[2] !== undefined);
  for (const m of text.matchAll(/^\s*import\s+'([^']+)'/gm)) add(m[1]!, false);
  for (const m of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) add(m[1]!, false);
  return found;
}

const ALL = SOURCE_FOLDERS.flatMap(sourceFiles).flatMap(importsOf);

/** The trainer's readers of a Hugging Face model folder that dsl/ checks a pretrained policy with (see below). */
const MODEL_READERS = [
  'runtime/lm/config.ts', 'runtime/lm/memory.ts', 'runtime/lm/rope.ts', 'runtime/lm/lora.ts', 'runtime/lm/weights.ts',
  'runtime/input-error.ts', 'runtime/input-files.ts',
];
const within = (folder: string) => (p: string) => p.startsWith(`${folder}/`);

/** The imports from `folder` whose targets `allowed` rejects, as "from -> to" lines. */
function violations(folder: string, allowed: (imp: Import) => boolean): string[] {
  return ALL.filter((imp) => within(folder)(imp.from) && !allowed(imp)).map((imp) => `${imp.from} -> ${imp.to}`);
}

describe('architecture: the import graph', () => {
  it('finds the imports it checks (the scanner works)', () => {
    assert.ok(ALL.some((imp) => imp.from === 'cli/commands/lsp.ts' && imp.to === 'server/connection.ts'), 'the lsp command loads the server');
    assert.ok(ALL.some((imp) => imp.from === 'webview/protocol.ts' && imp.typeOnly), 'type-only imports are recognised');
  });

  it('dsl/ imports nothing outside itself but the import-free geometry of runtime/envs/geometry/ (GridWorld\'s walls, for goal checks) and the model-folder readers', () => {
    assert.deepEqual(violations('dsl', (imp) => within('dsl')(imp.to) || within('runtime/envs/geometry')(imp.to) || imp.to === 'runtime/random.ts' || MODEL_READERS.includes(imp.to)), []);
  });

  // A pretrained policy's folder is checked as the user types (`pretrained("./models/x")`): its
  // config.json is read by the trainer's own reader, the memory estimate and the LoRA layers come
  // from the trainer's own tables, so the checker and `rlx train` cannot disagree about a model.
  // These modules load nothing of the trainer beyond each other (type-only imports are erased),
  // so the checker and the language server never load onnxruntime or the tensor code.
  it('the model-folder readers dsl/ shares with the trainer load nothing else of runtime/', () => {
    const loaded = ALL.filter((imp) => MODEL_READERS.includes(imp.from) && !imp.typeOnly && !MODEL_READERS.includes(imp.to));
    assert.deepEqual(loaded.map((imp) => `${imp.from} -> ${imp.to}`), []);
  });

  it('runtime/ consumes plans: from dsl/ only the schema registry, the plan types and the did-you-mean helper; never cli/, server/, extension/ or webview/', () => {
    const fromDsl = (to: string) => within('dsl/schema')(to) || to === 'dsl/compile/plan.ts' || to === 'dsl/diagnostics.ts';
    assert.deepEqual(violations('runtime', (imp) => within('runtime')(imp.to) || fromDsl(imp.to)), []);
  });

  it('server/ speaks for the dsl only: no runtime/, cli/, extension/ or webview/', () => {
    assert.deepEqual(violations('server', (imp) => within('server')(imp.to) || within('dsl')(imp.to)), []);
  });

  it('only the command line (and the server itself) loads the server\'s code; the extension shares its protocol types', () => {
    const loadsServer = ALL.filter((imp) => within('server')(imp.to) && !within('server')(imp.from) && !within('cli')(imp.from));
    const allowed = (imp: Import) => imp.typeOnly || imp.to === 'server/protocol.ts';
    assert.deepEqual(loadsServer.filter((imp) => !allowed(imp)).map((imp) => `${imp.from} -> ${imp.to}`), []);
  });

  it('the browser pages load from runtime/ only the import-free drawing modules of runtime/envs/geometry/', () => {
    const drawing = within('runtime/envs/geometry');
    assert.deepEqual(violations('webview', (imp) => !within('runtime')(imp.to) || imp.typeOnly || drawing(imp.to)), []);
    const geometry = ALL.filter((imp) => drawing(imp.from) && !imp.typeOnly);
    assert.deepEqual(geometry.filter((imp) => !drawing(imp.to) && imp.to !== 'runtime/random.ts').map((imp) => `${imp.from} -> ${imp.to}`), []);
    assert.deepEqual(importsOf('runtime/random.ts'), [], 'the seeded generator the maze uses stays import-free');
  });
});

/** The strongly connected groups (more than one file) of the graph `imports` spans, each sorted: its import cycles. */
function importCycles(imports: readonly Import[]): string[][] {
  const next = new Map<string, string[]>();
  for (const imp of imports) next.set(imp.from, [...(next.get(imp.from) ?? []), imp.to]);
  // Tarjan's algorithm; the graph is a few hundred files, so recursion depth is no concern.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const file of next.keys()) if (!index.has(file)) visit(file);
  return groups;
}

// A cycle makes a module's exports undefined while its partner loads (whichever is imported
// first sees the other half-initialised), and it welds two jobs into one: neither file can be
// read, tested or moved alone. The run folder's lock once took processAlive from the run reader
// (which reads status.json through run-dir.ts, which takes the lock), and the text module env took
// its error type from the numeric one that makes it. A type-only mutual reference loads nothing
// and is allowed only where two types describe one structure (a tensor and the graph it lives in).
it('runtime/ has no import cycles: none among the modules it loads, and only known type-only mutual references', () => {
  const inRuntime = ALL.filter((imp) => within('runtime')(imp.from) && within('runtime')(imp.to));
  assert.ok(importCycles([{ from: 'a.ts', to: 'b.ts', typeOnly: false }, { from: 'b.ts', to: 'a.ts', typeOnly: false }]).length === 1, 'the cycle finder finds a cycle');
  assert.deepEqual(importCycles(inRuntime.filter((imp) => !imp.typeOnly)), []);
  const typeOnlyPairs = [
    ['runtime/tensor/graph.ts', 'runtime/tensor/tensor.ts'],
    ['runtime/algorithms/replay/buffer.ts', 'runtime/algorithms/replay/her.ts'],
    ['runtime/text/dialogue-reward.ts', 'runtime/text/dialogue.ts'],
  ].map((pair) => pair.join(' '));
  assert.deepEqual(importCycles(inRuntime).map((group) => group.join(' ')).filter((group) => !typeOnlyPairs.includes(group)), []);
});

// Network families live beside the algorithm that trains them (algorithms/dqn/q-network.ts,
// algorithms/sac/networks.ts), built from the policy kinds' settings: the policies import
// downward only, so a new algorithm brings its networks without a method on every policy kind.
it('runtime/policies/ loads nothing of runtime/algorithms/ (the networks an algorithm trains live beside it)', () => {
  assert.deepEqual(violations('runtime/policies', (imp) => imp.typeOnly || !within('runtime/algorithms')(imp.to)), []);
});
