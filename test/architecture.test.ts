// The layout's one-way data flow (dsl -> plan -> runtime -> run directory -> editor), checked on
// the import graph of the sources. shared/ is the neutral leaf under every layer: what several
// layers use (env geometry, the seeded generator, refusals of user input and the reading of
// input files, returns summaries, training time, sweep limits), importing nothing of the rest.
// hf/ is the second leaf: a Hugging Face model folder read as data (config.json and each
// family's definition, safetensors headers, tokenizer files, the chat template, LoRA naming,
// the memory estimate), standing on shared/ alone, so the checker, the server and the trainer
// read a model with the same code and none of them imports another for it.
// No import runs back up the flow: the language (dsl/) takes only shared/ and hf/; the trainer consumes plans and never
// reaches for the editor, the server or the command line; the command line (cli/) is the
// composition root, the one place that brings dsl, runtime and server together, and takes
// nothing of the browser pages; the pages take only shared/'s browser-safe modules.
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
const SOURCE_FOLDERS = ['shared', 'hf', 'dsl', 'runtime', 'cli', 'server', 'extension', 'webview'];

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

/** The packages a file loads (bare specifiers, `node:` built-ins included), type-only imports left out. */
function packagesOf(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const found = [
    ...[...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^'";]*?\bfrom\s+'([^'.][^']*)'/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/^\s*import\s+'([^'.][^']*)'/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/\bimport\(\s*'([^'.][^']*)'\s*\)/g)].map((m) => m[1]!),
  ];
  return [...new Set(found)];
}

const ALL = SOURCE_FOLDERS.flatMap(sourceFiles).flatMap(importsOf);

/** The files `file` loads when it runs, itself included (type-only imports are erased). */
function loadedBy(file: string): Set<string> {
  const seen = new Set([file]);
  for (const next of seen) for (const imp of ALL) if (imp.from === next && !imp.typeOnly) seen.add(imp.to);
  return seen;
}

/** Cycles among `groups` of files (one group per key), as "a -> b -> a" lines; type-only imports count. */
function groupCycles(groupOf: (file: string) => string | undefined): string[] {
  const edges = new Map<string, Set<string>>();
  for (const imp of ALL) {
    const [a, b] = [groupOf(imp.from), groupOf(imp.to)];
    if (a === undefined || b === undefined || a === b) continue;
    if (!edges.has(a)) edges.set(a, new Set());
    edges.get(a)!.add(b);
  }
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (node: string, trail: string[]) => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'open') {
      cycles.push([...trail.slice(trail.indexOf(node)), node].join(' -> '));
      return;
    }
    state.set(node, 'open');
    for (const next of edges.get(node) ?? []) visit(next, [...trail, node]);
    state.set(node, 'done');
  };
  for (const node of [...edges.keys()].sort()) visit(node, []);
  return cycles;
}

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

  it('shared/ imports nothing outside itself: it is the leaf every layer may stand on', () => {
    assert.deepEqual(violations('shared', (imp) => within('shared')(imp.to)), []);
    const packages = sourceFiles('shared').flatMap((file) => packagesOf(file).filter((p) => !p.startsWith('node:')).map((p) => `${file} -> ${p}`));
    assert.deepEqual(packages, [], 'shared/ loads no package but Node\'s own');
  });

  it('dsl/ imports only dsl/, hf/ and shared/: nothing of the trainer, type-only imports included', () => {
    assert.deepEqual(violations('dsl', (imp) => within('dsl')(imp.to) || within('hf')(imp.to) || within('shared')(imp.to)), []);
  });

  // A pretrained policy's folder is checked as the user types (`pretrained("./models/x")`) by the
  // same readers the trainer loads it with, so the checker and `rlx train` cannot disagree about a
  // model. Those readers are a leaf of their own: they import only each other and shared/ (types
  // too), and load no package but Node's and the chat template's Jinja, so the checker and the
  // language server never load onnxruntime, the tensor code or anything of runtime/.
  it('hf/ imports only hf/ and shared/, and loads no package but Node\'s own and @huggingface/jinja', () => {
    assert.ok(sourceFiles('hf').includes('hf/config.ts'), 'hf/ holds the model-folder readers');
    assert.deepEqual(violations('hf', (imp) => within('hf')(imp.to) || within('shared')(imp.to)), []);
    const packages = sourceFiles('hf').flatMap((file) => packagesOf(file).filter((p) => !p.startsWith('node:') && p !== '@huggingface/jinja').map((p) => `${file} -> ${p}`));
    assert.deepEqual(packages, []);
  });

  // A model family is one file of hf/families/ (its FamilyDefinition, listed once in
  // hf/families/index.ts); everything else asks a config's definition. A comparison of a family
  // with a name, or a table keyed by family, outside that folder is the branch a newcomer adding
  // a family would have to find. GPT-2's random initialisation (the `transformer` policy built
  // from scratch) checks that it is handed a GPT-2, which is no branch.
  it('no source outside hf/families/ branches on a model family\'s name or keeps a table by family', () => {
    const ALLOWED = ['runtime/lm/init.ts'];
    const branches = SOURCE_FOLDERS.flatMap(sourceFiles)
      .filter((file) => !within('hf/families')(file) && !ALLOWED.includes(file))
      .flatMap((file) => fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').map((line, i) => ({ file, line, at: i + 1 })))
      .filter(({ line }) => /\bfamily\s*[!=]==?\s*'|'(?:llama|qwen2|qwen3|gpt2)'\s*[!=]==?\s*\w*\.?family\b|Record<Family\b/.test(line))
      .map(({ file, at, line }) => `${file}:${at}: ${line.trim()}`);
    assert.deepEqual(branches, []);
  });

  // What a stage's settings mean is its algorithm's (runtime/algorithms/<name>/) and the
  // registry's: which of them name data files the registry's `file` types say (stageDataFiles),
  // so the run directory and the trainer copy and hand over every such file without knowing whose
  // it is. A setting read there by name, or an algorithm named in a string, is the hand-threading
  // a new learner's file would need again (GRPO's sft_data once was).
  it('the run directory and the trainer read no stage setting by name and name no algorithm', () => {
    const KNOWN: Record<string, string> = {
      'runtime/trainer/text-workload.ts: entropy_top_fraction': 'whether GRPO keeps each token\'s sampling entropy decides where rollouts decode (lm/rollout-device.ts); an AlgorithmWork field would say it from the registry',
    };
    const files = ['runtime/train.ts', ...sourceFiles('runtime/run'), ...sourceFiles('runtime/trainer')];
    const found = files
      .flatMap((file) => fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').map((line) => ({ file, line: line.replace(/\/\/.*$|^\s*\*.*$/, '') })))
      .flatMap(({ file, line }) => [
        ...[...line.matchAll(/algorithm\.params(?:\s+as\s+(?:[^)]*>|[\w.]+)\))?\s*(?:\.\s*([A-Za-z_]\w*)|\[\s*['"](\w+))/g)].map((m) => `${file}: ${m[1] ?? m[2]}`),
        ...[...line.matchAll(/['"](PPO|DQN|SAC|REINFORCE|GRPO|SFT)['"]/g)].map((m) => `${file}: '${m[1]}'`),
      ])
      .filter((hit) => !(hit in KNOWN));
    assert.deepEqual(found, []);
  });

  // compile/ turns checked sources into plans; the checks read values with the compiler's readers
  // (a pretrained policy's memory estimate sees its settings as the plan will), so check/ stands
  // on compile/, and compile/ names what it needs of an analysis (CheckedSources) instead of
  // importing the checker. The folders of dsl/ form layers: syntax, schema, semantics, compile,
  // check, and the front doors (index.ts, navigation/, format/) on top.
  it('dsl/compile/ imports nothing of dsl/check/, and the folders of dsl/ import each other in no circle', () => {
    assert.deepEqual(violations('dsl/compile', (imp) => !within('dsl/check')(imp.to)), []);
    const folderOf = (file: string) => (within('dsl')(file) ? file.split('/').slice(0, 2).join('/') : undefined);
    assert.deepEqual(groupCycles(folderOf), []);
  });

  it('runtime/ consumes plans: from dsl/ only the schema registry, the plan types and the did-you-mean helper; model folders through hf/; never cli/, server/, extension/ or webview/', () => {
    const fromDsl = (to: string) => within('dsl/schema')(to) || to === 'dsl/compile/plan.ts' || to === 'dsl/diagnostics.ts';
    assert.deepEqual(violations('runtime', (imp) => within('runtime')(imp.to) || within('hf')(imp.to) || within('shared')(imp.to) || fromDsl(imp.to)), []);
  });

  // Learners share code through folders of shared pieces, never through another algorithm's
  // folder, so that each algorithm reads top to bottom and changes without moving another: text/
  // holds what SFT, GRPO and REINFORCE/RLOO on text share (the token batch and its
  // log-probabilities, the policy-gradient learner and its objective), replay/ DQN's and SAC's
  // buffer, and the off-policy loop, step and twin critics SAC and numeric learner modules share; offline/ the dataset, actor and networks of the offline learners (BC, TD3BC, IQL). Type-only imports count: a learner's types are its folder's too.
  it('no algorithm\'s folder of runtime/algorithms/ imports another\'s: what learners share lives in text/, replay/ and offline/', () => {
    const SHARED_PIECES = ['text', 'replay', 'offline'];
    const folderOf = (file: string) => /^runtime\/algorithms\/([^/]+)\//.exec(file)?.[1];
    const crossing = ALL.filter((imp) => {
      const [from, to] = [folderOf(imp.from), folderOf(imp.to)];
      return from !== undefined && to !== undefined && from !== to && !SHARED_PIECES.includes(to);
    });
    assert.deepEqual(crossing.map((imp) => `${imp.from} -> ${imp.to}`), []);
  });

  it('server/ speaks for the dsl only: no runtime/, cli/, extension/ or webview/ (model folders through hf/)', () => {
    assert.deepEqual(violations('server', (imp) => within('server')(imp.to) || within('dsl')(imp.to) || within('hf')(imp.to) || within('shared')(imp.to)), []);
  });

  it('cli/ takes nothing of the browser pages or the editor: what it shares with them lives in shared/', () => {
    assert.deepEqual(violations('cli', (imp) => !within('webview')(imp.to) && !within('extension')(imp.to)), []);
  });

  it('only the command line (and the server itself) loads the server\'s code; the extension shares its protocol types', () => {
    const loadsServer = ALL.filter((imp) => within('server')(imp.to) && !within('server')(imp.from) && !within('cli')(imp.from));
    const allowed = (imp: Import) => imp.typeOnly || imp.to === 'server/protocol.ts';
    assert.deepEqual(loadsServer.filter((imp) => !allowed(imp)).map((imp) => `${imp.from} -> ${imp.to}`), []);
  });

  it('the browser pages load nothing of runtime/ (types aside), and from shared/ only modules that load no package', () => {
    assert.deepEqual(violations('webview', (imp) => !within('runtime')(imp.to) || imp.typeOnly), []);
    const fromShared = ALL.filter((imp) => within('webview')(imp.from) && within('shared')(imp.to) && !imp.typeOnly);
    const loaded = [...new Set(fromShared.flatMap((imp) => [...loadedBy(imp.to)]))].sort();
    assert.ok(loaded.includes('shared/random.ts'), 'the maze drawing loads the seeded generator (the check sees it)');
    assert.deepEqual(loaded.flatMap((file) => packagesOf(file).map((p) => `${file} -> ${p}`)), []);
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
// its error type from the numeric one that makes it. A type both files read lives in the lower one
// (DialogueMessage in text/text-env.ts, TurnResult in text/dialogue-reward.ts, ReplayBatch in
// replay/batch.ts). A type-only mutual reference loads nothing and is allowed only where two types
// describe one structure (a tensor holds the graph it lives in, whose ops make tensors).
it('runtime/ has no import cycles: none among the modules it loads, and only known type-only mutual references', () => {
  const inRuntime = ALL.filter((imp) => within('runtime')(imp.from) && within('runtime')(imp.to));
  assert.ok(importCycles([{ from: 'a.ts', to: 'b.ts', typeOnly: false }, { from: 'b.ts', to: 'a.ts', typeOnly: false }]).length === 1, 'the cycle finder finds a cycle');
  assert.deepEqual(importCycles(inRuntime.filter((imp) => !imp.typeOnly)), []);
  const typeOnlyPairs = [
    ['runtime/tensor/graph.ts', 'runtime/tensor/tensor.ts'],
  ].map((pair) => pair.join(' '));
  assert.deepEqual(importCycles(inRuntime).map((group) => group.join(' ')).filter((group) => !typeOnlyPairs.includes(group)), []);
});

// Network families live beside the algorithm that trains them (algorithms/dqn/q-network.ts,
// algorithms/sac/networks.ts), built from the policy kinds' settings: the policies import
// downward only, so a new algorithm brings its networks without a method on every policy kind.
it('runtime/policies/ loads nothing of runtime/algorithms/ (the networks an algorithm trains live beside it)', () => {
  assert.deepEqual(violations('runtime/policies', (imp) => imp.typeOnly || !within('runtime/algorithms')(imp.to)), []);
});

// runtime/'s folders are its floors: each folder (and each file at runtime/'s top, a floor of its
// own) stands on others without a circle, so a folder can be read and moved with what it stands
// on. These pairs of folders imported each other when the rule came in (issue 42): the list may
// only shrink. A new pair fails, and so does a listed pair that no longer imports both ways
// (delete it here). Longer circles among the rest are held to their own list the same way (one
// that runs through a listed pair's import is seen once that pair is gone). Type-only imports
// count, as in dsl/.
const KNOWN_MUTUAL_FOLDERS = [
  'runtime/envs <-> runtime/run',
];
/** Circles of three or more folders when the rule came in, each its folders sorted: the list may only shrink. */
const KNOWN_FOLDER_CIRCLES: string[] = [];

/** runtime/'s floor of a file: its folder under runtime/, or the file itself at runtime/'s top. */
function runtimeFloor(file: string): string | undefined {
  const parts = file.split('/');
  if (parts[0] !== 'runtime') return undefined;
  return parts.length === 2 ? file : parts.slice(0, 2).join('/');
}

/** The floors' imports of each other, one per ordered pair. */
function floorImports(): Import[] {
  const seen = new Map<string, Import>();
  for (const imp of ALL) {
    const [from, to] = [runtimeFloor(imp.from), runtimeFloor(imp.to)];
    if (from === undefined || to === undefined || from === to) continue;
    seen.set(`${from} ${to}`, { from, to, typeOnly: false });
  }
  return [...seen.values()];
}

it('runtime/\'s folders import each other in no circle, but for known pairs that may only go', () => {
  const imports = floorImports();
  const imported = new Set(imports.map((imp) => `${imp.from} ${imp.to}`));
  assert.ok(imported.has('runtime/trainer runtime/run'), 'the trainer writes the run directory (the floors are found)');
  const mutual = [...new Set(imports.filter((imp) => imported.has(`${imp.to} ${imp.from}`)).map((imp) => [imp.from, imp.to].sort().join(' <-> ')))].sort();
  assert.deepEqual(mutual, KNOWN_MUTUAL_FOLDERS, 'folders that import each other: a new pair is a new circle; a pair gone is one to delete from KNOWN_MUTUAL_FOLDERS');
  const known = new Set(KNOWN_MUTUAL_FOLDERS.flatMap((pair) => {
    const [a, b] = pair.split(' <-> ');
    return [`${a} ${b}`, `${b} ${a}`];
  }));
  const longer = importCycles(imports.filter((imp) => !known.has(`${imp.from} ${imp.to}`)));
  assert.deepEqual(longer.map((group) => group.join(' ')).sort(), KNOWN_FOLDER_CIRCLES, 'circles through three or more of runtime/\'s folders: a new one fails; one gone is one to delete from KNOWN_FOLDER_CIRCLES');
});
