// Diagnostics after edits: gathered over a short delay, published for the edited file and for
// every file whose diagnostics changed (importers included), and cleared for files that went.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import type { Diagnostic } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { toLspDiagnostics } from '../../server/features/diagnostics.js';
import { DiagnosticsPublisher } from '../../server/publisher.js';
import { ServerWorkspace } from '../../server/workspace.js';

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-publisher-')));
after(() => fs.rmSync(root, { recursive: true, force: true }));

interface Published {
  file: string;
  version: number | undefined;
  codes: string[];
}

async function setUp(files: Record<string, string>) {
  const dir = fs.mkdtempSync(path.join(root, 'ws-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  const ws = new ServerWorkspace();
  ws.setFolders([dir]);
  await ws.scan();
  const published: Published[] = [];
  const errors: unknown[] = [];
  const publisher = new DiagnosticsPublisher(ws, {
    convert: toLspDiagnostics,
    publish: (uri, version, diagnostics: Diagnostic[]) => published.push({ file: path.basename(new URL(uri).pathname), version, codes: diagnostics.map((d) => String(d.code)) }),
    onError: (err) => errors.push(err),
    debounceMs: 5,
    maxDelayMs: 50,
  });
  const uri = (name: string) => pathToFileURL(path.join(dir, name)).toString();
  return { ws, publisher, published, errors, uri, file: (name: string) => path.join(dir, name) };
}

const FILES = {
  'envs.rlx': 'env Pole = CartPole { max_steps: 500 }\n',
  'main.rlx': 'import "./envs.rlx"\nexperiment A { env: Pole, policy: mlp, algorithm: PPO, budget: 10k }\n',
  'other.rlx': 'env Solo = CartPol {}\n',
};

test('at start-up only files with diagnostics are published', async () => {
  const { publisher, published } = await setUp(FILES);
  publisher.publishAll();
  assert.deepEqual(published, [{ file: 'other.rlx', version: undefined, codes: ['unknown-name'] }]);
});

test('a burst of edits is analysed once; the edited file and its importer are published', async () => {
  const { ws, publisher, published, uri, errors } = await setUp(FILES);
  publisher.publishAll();
  published.length = 0;
  let doc = TextDocument.create(uri('envs.rlx'), 'rlx', 1, FILES['envs.rlx']);
  for (let v = 2; v <= 6; v++) {
    doc = TextDocument.update(doc, [{ range: { start: { line: 0, character: 4 }, end: { line: 0, character: 8 } }, text: `Pol${v}` }], v);
    publisher.schedule([ws.documentChanged(doc)]);
  }
  assert.deepEqual(published, [], 'nothing before the delay');
  // The debounce fires once the edits stop; a loaded machine may take longer than its 5 ms to run it.
  for (const started = performance.now(); published.length === 0 && performance.now() - started < 5000;) await sleep(5);
  await sleep(20);
  assert.deepEqual(published, [
    { file: 'envs.rlx', version: 6, codes: [] },
    { file: 'main.rlx', version: undefined, codes: ['unknown-name'] },
  ]);
  assert.deepEqual(errors, []);
});

test('an edit that changes nothing for the importers publishes only the edited file', async () => {
  const { ws, publisher, published, uri } = await setUp(FILES);
  publisher.publishAll();
  published.length = 0;
  const doc = TextDocument.create(uri('envs.rlx'), 'rlx', 2, 'env Pole = CartPole { max_steps: 400 }\n');
  publisher.schedule([ws.documentChanged(doc)]);
  publisher.flush();
  assert.deepEqual(published, [{ file: 'envs.rlx', version: 2, codes: [] }]);
});

test('changes that keep coming are still published within the maximum delay', async () => {
  const { ws, publisher, published, uri } = await setUp(FILES);
  let doc = TextDocument.create(uri('other.rlx'), 'rlx', 1, FILES['other.rlx']);
  const started = performance.now();
  // Edits every 2 ms would postpone a plain debounce for ever: the loop gives up after 2 s.
  for (let v = 2; published.length === 0 && performance.now() - started < 2000; v++) {
    doc = TextDocument.update(doc, [{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: ' ' }], v);
    publisher.schedule([ws.documentChanged(doc)]);
    await sleep(2);
  }
  // Not a timing assertion (a loaded machine stretches any delay): only that it came while the edits did.
  assert.ok(published.length > 0, `nothing published in ${Math.round(performance.now() - started)} ms of continuous edits`);
});

test('a deleted file is cleared and its importers report the missing import', async () => {
  const { ws, publisher, published, uri, file } = await setUp(FILES);
  publisher.publishAll();
  published.length = 0;
  fs.rmSync(file('other.rlx'));
  fs.rmSync(file('envs.rlx'));
  publisher.schedule(ws.filesChanged([{ uri: uri('other.rlx'), kind: 'deleted' }, { uri: uri('envs.rlx'), kind: 'deleted' }]));
  publisher.flush();
  assert.deepEqual(published, [
    { file: 'other.rlx', version: undefined, codes: [] },
    { file: 'main.rlx', version: undefined, codes: ['import-not-found', 'unknown-name'] },
  ]);
});

test('a closed document outside the workspace is cleared', async () => {
  const { ws, publisher, published } = await setUp({});
  const doc = TextDocument.create(pathToFileURL(path.join(root, 'elsewhere.rlx')).toString(), 'rlx', 1, 'env E = CartPol {}\n');
  publisher.schedule([ws.documentChanged(doc)]);
  publisher.flush();
  publisher.schedule([ws.documentClosed(doc)]);
  publisher.flush();
  assert.deepEqual(published, [
    { file: 'elsewhere.rlx', version: 1, codes: ['unknown-name'] },
    { file: 'elsewhere.rlx', version: undefined, codes: [] },
  ]);
});
