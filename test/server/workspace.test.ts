// The server's workspace: the index of .rlx files, who imports whom, open documents over the
// disk, and when an analysis is reused or made again.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { ServerWorkspace } from '../../server/workspace.js';
import { repoRoot } from '../helpers/repo.js';

const roots: string[] = [];
after(() => roots.forEach((r) => fs.rmSync(r, { recursive: true, force: true })));

/** A temporary folder with these files, and a workspace indexing it. */
async function workspaceWith(files: Record<string, string>): Promise<{ ws: ServerWorkspace; file: (name: string) => string; uri: (name: string) => string }> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-ws-')));
  roots.push(root);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  const ws = new ServerWorkspace();
  ws.setFolders([root]);
  await ws.scan();
  const file = (name: string) => path.join(root, name);
  return { ws, file, uri: (name) => pathToFileURL(file(name)).toString() };
}

const CHAIN = {
  'c.rlx': 'env Pole = CartPole { max_steps: 500 }\n',
  'b.rlx': 'import "./c.rlx"\nenv Longer = Pole { max_steps: 900 }\n',
  'a.rlx': 'import "./b.rlx"\npolicy Net = mlp {}\n',
  'lone.rlx': 'algorithm Tuned = PPO {}\n',
};

const codes = (ws: ServerWorkspace, file: string) => ws.analysisFor([file]).analysis.diagnostics.get(file)?.map((d) => d.code) ?? [];

describe('index', () => {
  test('finds .rlx files under the folders, skipping dependencies, build output and runs', async () => {
    const { ws, file } = await workspaceWith({
      'a.rlx': '', 'specs/b.rlx': '', 'node_modules/x/c.rlx': '', '.git/d.rlx': '', 'out/e.rlx': '', 'dist/f.rlx': '', 'runs/g.rlx': '', 'notes.txt': '',
    });
    assert.deepEqual(ws.knownFiles().sort(), [file('a.rlx'), file('specs/b.rlx')]);
  });

  test("skips a run's copy of its spec wherever --out put the run, not a plain folder named source", async () => {
    const { ws, file, uri } = await workspaceWith({
      'a.rlx': '', 'elsewhere/Reach/20261126-seed1/status.json': '{}', 'elsewhere/Reach/20261126-seed1/source/a.rlx': 'env W = module("./walk.ts")\n', 'source/mine.rlx': '',
    });
    assert.deepEqual(ws.knownFiles().sort(), [file('a.rlx'), file('source/mine.rlx')]);
    // A watcher event from the copy (a resume rewrites it) is ignored too, also from a recorded import of `../`.
    fs.mkdirSync(file('elsewhere/Reach/20261126-seed1/source/_up'));
    fs.writeFileSync(file('elsewhere/Reach/20261126-seed1/source/_up/lib.rlx'), '');
    ws.filesChanged([
      { uri: uri('elsewhere/Reach/20261126-seed1/source/a.rlx'), kind: 'changed' },
      { uri: uri('elsewhere/Reach/20261126-seed1/source/_up/lib.rlx'), kind: 'created' },
    ]);
    assert.deepEqual(ws.knownFiles().sort(), [file('a.rlx'), file('source/mine.rlx')]);
  });

  test('watched-file events add and remove files, and events from skipped folders are ignored', async () => {
    const { ws, file, uri } = await workspaceWith({ 'a.rlx': '' });
    fs.writeFileSync(file('new.rlx'), 'env E = CartPole {}\n');
    fs.mkdirSync(file('node_modules'));
    fs.writeFileSync(file('node_modules/dep.rlx'), '');
    assert.deepEqual(ws.filesChanged([{ uri: uri('new.rlx'), kind: 'created' }, { uri: uri('node_modules/dep.rlx'), kind: 'created' }]), [file('new.rlx'), file('node_modules/dep.rlx')]);
    assert.deepEqual(ws.knownFiles().sort(), [file('a.rlx'), file('new.rlx')]);
    ws.filesChanged([{ uri: uri('new.rlx'), kind: 'deleted' }]);
    assert.deepEqual(ws.knownFiles(), [file('a.rlx')]);
  });

  test('a file saved into a folder joins the index; a new scan drops files that went', async () => {
    const { ws, file, uri } = await workspaceWith({ 'a.rlx': '' });
    fs.writeFileSync(file('saved.rlx'), 'env E = CartPole {}\n');
    ws.documentSaved(TextDocument.create(uri('saved.rlx'), 'rlx', 1, 'env E = CartPole {}\n'));
    assert.deepEqual(ws.knownFiles().sort(), [file('a.rlx'), file('saved.rlx')]);
    fs.rmSync(file('a.rlx'));
    assert.deepEqual(await ws.scan(), { found: [file('saved.rlx')], removed: [file('a.rlx')] });
    assert.deepEqual(ws.knownFiles(), [file('saved.rlx')]);
  });
});

describe('imports', () => {
  test('importers are found transitively, for files whether open or not', async () => {
    const { ws, file } = await workspaceWith(CHAIN);
    assert.deepEqual(ws.importersOf(file('c.rlx')).sort(), [file('a.rlx'), file('b.rlx')]);
    assert.deepEqual(ws.importersOf(file('a.rlx')), []);
  });

  test('an edit that adds an import makes the file an importer at once', async () => {
    const { ws, file, uri } = await workspaceWith(CHAIN);
    const doc = TextDocument.create(uri('lone.rlx'), 'rlx', 1, CHAIN['lone.rlx']);
    ws.documentChanged(doc);
    assert.deepEqual(ws.importersOf(file('c.rlx')).sort(), [file('a.rlx'), file('b.rlx')]);
    ws.documentChanged(TextDocument.update(doc, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: 'import "./c.rlx"\n' }], 2));
    assert.deepEqual(ws.importersOf(file('c.rlx')).sort(), [file('a.rlx'), file('b.rlx'), file('lone.rlx')]);
  });

  test('an import cycle does not loop', async () => {
    const { ws, file } = await workspaceWith({ 'x.rlx': 'import "./y.rlx"\n', 'y.rlx': 'import "./x.rlx"\n' });
    assert.deepEqual(ws.importersOf(file('x.rlx')), [file('y.rlx')]);
    assert.deepEqual(codes(ws, file('x.rlx')), ['import-cycle']);
  });
});

describe('analyses', () => {
  test("a file's analysis includes its imports and its importers", async () => {
    const { ws, file } = await workspaceWith(CHAIN);
    const units = ws.analysisFor([file('c.rlx')]).analysis.units.map((u) => u.path).sort();
    assert.deepEqual(units, [file('a.rlx'), file('b.rlx'), file('c.rlx')]);
  });

  test('is reused while no file it saw changed, and made again after an edit of an import', async () => {
    const { ws, file, uri } = await workspaceWith(CHAIN);
    const first = ws.analysisFor([file('a.rlx')]);
    assert.equal(ws.analysisFor([file('a.rlx')]), first);
    assert.equal(ws.analysisFor([file('b.rlx')]) === first, false, 'b has its own roots (b and a), analysed once for both');
    const forB = ws.analysisFor([file('b.rlx')]);
    assert.equal(ws.analysisFor([file('a.rlx')]), forB, 'the analysis for b also serves a, its importer');

    const doc = TextDocument.create(uri('c.rlx'), 'rlx', 1, 'env Renamed = CartPole {}\n');
    ws.documentChanged(doc);
    const again = ws.analysisFor([file('a.rlx')]);
    assert.notEqual(again, forB);
    assert.deepEqual(codes(ws, file('b.rlx')), ['unknown-name']);
  });

  test('an open document is read instead of the disk, and the disk again once closed', async () => {
    const { ws, file, uri } = await workspaceWith({ 'p.rlx': 'env E = CartPol {}\n' });
    assert.deepEqual(codes(ws, file('p.rlx')), ['unknown-name']);
    const doc = TextDocument.create(uri('p.rlx'), 'rlx', 1, 'env E = CartPole {}\n');
    ws.documentChanged(doc);
    assert.deepEqual(codes(ws, file('p.rlx')), []);
    ws.documentClosed(doc);
    assert.deepEqual(codes(ws, file('p.rlx')), ['unknown-name']);
  });

  test('remembers the document version it saw', async () => {
    const { ws, uri } = await workspaceWith({ 'p.rlx': 'env E = CartPole {}\n' });
    const v3 = TextDocument.create(uri('p.rlx'), 'rlx', 3, 'env E = CartPole {}\n');
    ws.documentChanged(v3);
    const at3 = ws.context(uri('p.rlx'))!;
    assert.equal(at3.version, 3);
    assert.equal(at3.entry.versions.get(at3.context.unit.path), 3);
    const v4 = TextDocument.update(v3, [{ text: 'env F = CartPole {}\n' }], 4);
    ws.documentChanged(v4);
    const at4 = ws.context(uri('p.rlx'))!;
    assert.equal(at4.version, 4);
    assert.match(at4.context.unit.text, /env F/);
    assert.equal(at3.version, 3, 'the earlier answer keeps its version');
  });

  test("the publisher's check in slices lets the event loop run between them, finds what the whole check finds, and gives up on texts edited meanwhile", async () => {
    const text = Array.from({ length: 40 }, (_, i) => `env E${i} = CartPol${i % 2 === 0 ? 'e' : ''} {}\n`).join('');
    const { ws, file, uri } = await workspaceWith({ 'p.rlx': text });
    const doc = TextDocument.create(uri('p.rlx'), 'rlx', 1, text);
    ws.documentChanged(doc);
    let turns = 0;
    const counting = setInterval(() => turns++, 0);
    const sliced = await ws.analysisInSlices([file('p.rlx')], 0).finally(() => clearInterval(counting));
    assert.ok(sliced);
    assert.ok(turns > 0, 'timers ran while it checked');
    assert.equal(sliced.analysis.diagnostics.get(file('p.rlx'))?.filter((d) => d.code === 'unknown-name').length, 20);
    assert.equal(ws.analysisFor([file('p.rlx')]), sliced, 'requests reuse it');

    ws.documentChanged(TextDocument.update(doc, [{ text: text.replace('E0 =', 'F0 =') }], 2));
    const pending = ws.analysisInSlices([file('p.rlx')], 0);
    ws.documentChanged(TextDocument.update(doc, [{ text: text.replace('E0 =', 'G0 =') }], 3));
    assert.equal(await pending, null, 'its text changed while it ran');
    assert.match(ws.context(uri('p.rlx'))!.context.unit.text, /G0 =/);
  });

  test('a check made stale by an edit stops at its next slice instead of running to the end', async () => {
    // While a person types, each keystroke makes the running check stale; its result is never
    // published, and running it to the end took the turns a completion needed.
    const text = Array.from({ length: 2000 }, (_, i) => `env E${i} = CartPole { max_steps: ${i + 1} }\n`).join('');
    const { ws, file, uri } = await workspaceWith({ 'p.rlx': text });
    const doc = TextDocument.create(uri('p.rlx'), 'rlx', 1, text);
    ws.documentChanged(doc);
    const pending = ws.analysisInSlices([file('p.rlx')], 0); // one declaration per slice
    await new Promise((resolve) => setImmediate(resolve));
    ws.documentChanged(TextDocument.update(doc, [{ text: text.replace('E0 =', 'F0 =') }], 2));
    let turns = 0;
    let done = false;
    void pending.finally(() => (done = true));
    while (!done && turns < 1000) {
      await new Promise((resolve) => setImmediate(resolve));
      turns++;
    }
    assert.equal(await pending, null);
    assert.ok(turns < 5, `the stale check ran on for ${turns} turns of the event loop`);
  });

  test('a document that is not a file (untitled) is analysed under a path of its own', async () => {
    const { ws } = await workspaceWith({});
    const doc = TextDocument.create('untitled:Untitled-1', 'rlx', 1, 'env E = CartPol {}\n');
    const p = ws.documentChanged(doc);
    const found = ws.context('untitled:Untitled-1')!;
    assert.equal(found.context.uri, 'untitled:Untitled-1');
    assert.equal(found.context.unit.path, p);
    assert.deepEqual(found.context.analysis.diagnostics.get(p)?.map((d) => d.code), ['unknown-name']);
    assert.equal(ws.clientUris().get(pathToFileURL(p).toString()), 'untitled:Untitled-1');
  });

  test('a file that changes on disk without an event is still read again', async () => {
    const { ws, file } = await workspaceWith({ 'p.rlx': 'env E = CartPole {}\n' });
    assert.deepEqual(codes(ws, file('p.rlx')), []);
    fs.writeFileSync(file('p.rlx'), 'env E = CartPol {}\n// longer now\n');
    assert.deepEqual(codes(ws, file('p.rlx')), ['unknown-name']);
  });

  test('a dataset is checked at its path, and again when it changes on disk (issue 30)', async () => {
    const { ws, file } = await workspaceWith({
      'sums.jsonl': '{"prompt": "1+1=", "target": "2"}\n{"prompt": "1+2="}\n',
      'p.rlx': 'env Sums = TextTask { task: dataset("./sums.jsonl") }\n',
    });
    assert.deepEqual(codes(ws, file('p.rlx')), ['invalid-dataset']);
    fs.writeFileSync(file('sums.jsonl'), '{"prompt": "1+1=", "target": "2"}\n{"prompt": "1+2=", "target": "3"}\n');
    assert.deepEqual(codes(ws, file('p.rlx')), []);
    fs.rmSync(file('sums.jsonl'));
    assert.deepEqual(codes(ws, file('p.rlx')), ['dataset-not-found']);
  });

  test("an edit of an env module re-checks the specs that read it, with or without the watcher's event", async () => {
    const spec = (fields: string) => `export default class {}\nexport const spec = { observations: [${fields}], actions: 'discrete' };\n`;
    const { ws, file, uri } = await workspaceWith({
      'walk.ts': spec("'x'"),
      'p.rlx': 'env Walk = module("./walk.ts")\npolicy Net = mlp {}\nalgorithm Tuned = PPO {}\nreward R {\n  term far = obs.distance\n}\nexperiment Go {\n  env: Walk\n  policy: Net\n  algorithm: Tuned\n  budget: 10k\n  reward: R\n}\n',
      'other.rlx': 'env Pole = CartPole {}\n',
    });
    const termCodes = () => codes(ws, file('p.rlx'));
    assert.ok(termCodes().length > 0, 'obs.distance is not among the module\'s declared fields yet');
    ws.analysisFor([file('other.rlx')]);
    fs.writeFileSync(file('walk.ts'), spec("'x', 'distance'"));
    // The watcher's event names the specs to publish again: the one that reads the module, not the other.
    assert.deepEqual(ws.filesChanged([{ uri: uri('walk.ts'), kind: 'changed' }]), [file('p.rlx')]);
    assert.deepEqual(termCodes(), []);
    // Without an event (a client that does not watch files) the next request sees it too.
    fs.writeFileSync(file('walk.ts'), spec("'y'") + '// longer now\n');
    assert.ok(termCodes().length > 0);
  });

  test('a pretrained model folder that is completed (a download finishing) is seen at the next request', async () => {
    const { ws, file } = await workspaceWith({ 'p.rlx': 'policy Base = pretrained("./models/tiny")\n' });
    const errors = () => codes(ws, file('p.rlx')).filter((c) => c !== 'not-implemented');
    assert.deepEqual(errors(), ['model-not-found']);
    fs.mkdirSync(file('models/tiny'), { recursive: true });
    fs.copyFileSync(path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2/config.json'), file('models/tiny/config.json'));
    assert.deepEqual(errors(), ['invalid-model'], 'config.json, but no tokenizer or weights yet');
    for (const name of ['tokenizer.json', 'model.safetensors']) fs.writeFileSync(file(`models/tiny/${name}`), '');
    // A folder's modification time may not move within its clock's resolution; set it as a later write would.
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(file('models/tiny'), later, later);
    assert.deepEqual(errors(), []);
  });

  test('a file on disk over the size limit is analysed as empty and reported; one far over it is not even read', async () => {
    const body = (bytes: number) => `algorithm A = PPO {\n${'  clip: 0.2\n'.repeat(Math.ceil(bytes / 12))}}\n`;
    const { ws, file } = await workspaceWith({ 'over.rlx': body(1.5 * 2 ** 20), 'huge.rlx': body(4 * 2 ** 20) });
    for (const name of ['over.rlx', 'huge.rlx']) {
      assert.deepEqual(codes(ws, file(name)), [], `${name} is analysed as empty`);
      assert.equal(ws.tooLarge(file(name)), fs.statSync(file(name)).size, `${name} is reported with its size`);
    }
    fs.writeFileSync(file('huge.rlx'), 'algorithm A = PPO { clipp: 0.2 }\n');
    assert.deepEqual(codes(ws, file('huge.rlx')), ['unknown-property'], 'cut down, it is read again');
    assert.equal(ws.tooLarge(file('huge.rlx')), undefined);
  });

  test('a file asked about before it exists is read once it does', async () => {
    const { ws, file, uri } = await workspaceWith({});
    assert.equal(ws.context(uri('later.rlx')), undefined);
    fs.writeFileSync(file('later.rlx'), 'env E = CartPol {}\n');
    assert.deepEqual(ws.context(uri('later.rlx'))?.context.analysis.diagnostics.get(file('later.rlx'))?.map((d) => d.code), ['unknown-name']);
  });

  test('workspace symbols see every known file without checking them', async () => {
    const { ws } = await workspaceWith(CHAIN);
    const model = ws.workspaceModel();
    assert.deepEqual([...model.model.allSymbols()].map((s) => s.name).sort(), ['Longer', 'Net', 'Pole', 'Tuned']);
    assert.equal(model.diagnostics.size, 0);
  });
});

describe('typing features (modelContext)', () => {
  test('after an edit, they get a model of the new text and its imports without the checks; once checked, the checked analysis', async () => {
    const { ws, file, uri } = await workspaceWith(CHAIN);
    const doc = TextDocument.create(uri('a.rlx'), 'rlx', 1, CHAIN['a.rlx']);
    ws.documentChanged(doc);
    ws.analysisFor([file('a.rlx')]);
    const edited = TextDocument.update(doc, [{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, text: 'env Typed = Longer { max_steps: 0 }\n' }], 2);
    ws.documentChanged(edited);

    const typing = ws.modelContext(uri('a.rlx'))!;
    assert.equal(typing.version, 2);
    const model = typing.context.analysis.model;
    assert.ok(model.lookup(typing.context.unit, 'Typed'), 'the name just typed');
    assert.ok(model.lookup(typing.context.unit, 'Longer'), 'a name from an import');
    assert.equal(typing.context.analysis.diagnostics.size, 0, 'no check ran: max_steps: 0 is not reported yet');
    assert.equal(ws.modelContext(uri('a.rlx'))!.entry, typing.entry, 'reused while the text stays');

    const checked = ws.analysisFor([file('a.rlx')]);
    assert.ok((checked.analysis.diagnostics.get(file('a.rlx')) ?? []).length > 0, 'the publisher\'s check reports max_steps: 0');
    assert.equal(ws.modelContext(uri('a.rlx'))!.entry, checked, 'the checked analysis serves the next request');
  });

  test("a user env module's spec is read there too, and read again when the module changes (obs. right after an edit)", async () => {
    const walk = (fields: string) => `export default class Walk {}\nexport const spec = { observations: [${fields}], actions: 'discrete' };\n`;
    const { ws, file, uri } = await workspaceWith({ 'walk.ts': walk("'position', 'speed'"), 'a.rlx': 'env Walk = module("./walk.ts")\n' });
    const doc = TextDocument.create(uri('a.rlx'), 'rlx', 1, 'env Walk = module("./walk.ts")\n');
    ws.documentChanged(doc);
    ws.analysisFor([file('a.rlx')]);
    ws.documentChanged(TextDocument.update(doc, [{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: 'env Typed = Walk\n' }], 2));
    const fields = () => {
      const typing = ws.modelContext(uri('a.rlx'))!;
      const model = typing.context.analysis.model;
      const typed = model.lookup(typing.context.unit, 'Typed');
      assert.equal(typing.context.analysis.diagnostics.size, 0, 'the typing model, not a checked analysis');
      return typed ? model.envSpec(typed)?.obsFields : undefined;
    };
    assert.deepEqual(fields(), ['position', 'speed']);
    fs.writeFileSync(file('walk.ts'), walk("'position', 'speed', 'angle'"));
    assert.deepEqual(fields(), ['position', 'speed', 'angle']);
  });
});
