// Files on disk the way editors save them: a UTF-8 byte-order mark at the start of a file that is
// not open must not count as a character (an editor never shows it), or every answer about the
// file's first line is one character off and a rename from an importer corrupts the declaration.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Location, Position, WorkspaceEdit } from 'vscode-languageserver-protocol/node';
import { rangeOf, TestClient } from '../client.js';

const BOM = '\uFEFF';
const ENVS = 'env Pole = CartPole { max_steps: 500 }\n';
const MAIN = 'import "./envs.rlx"\npolicy Actor = mlp {}\nexperiment Balance {\n  env: Pole\n  policy: Actor\n  algorithm: PPO\n  budget: 1k\n}\n';

/** A run folder wherever --out put it, with the recorded copy of an import from `../`. */
const RUN = 'results/Balance/20261127-010203-seed1';
const MESSY = 'env Pole=CartPole{max_steps:500}\n';

let client: TestClient;
let main: string;
before(async () => {
  client = await TestClient.start({ files: { 'envs.rlx': BOM + ENVS, 'main.rlx': MAIN, [`${RUN}/status.json`]: '{}', [`${RUN}/source/_up/lib.rlx`]: MESSY, 'lib.rlx': MESSY } });
  main = await client.open('main.rlx');
});
after(async () => {
  assert.equal(await client.stop(), 0, client.output());
});

const atPole: Position = { line: 3, character: 8 };

describe('a closed file saved with a byte-order mark', () => {
  test('a rename from its importer edits the declaration at the name, not one character after', async () => {
    const edit = await client.request<WorkspaceEdit>('textDocument/rename', { textDocument: { uri: main }, position: atPole, newName: 'Cart' });
    assert.deepEqual(edit.changes?.[client.uri('envs.rlx')], [{ range: rangeOf(ENVS, 'Pole'), newText: 'Cart' }]);
  });

  test('definition lands on the name in that file', async () => {
    const found = await client.request<Location[]>('textDocument/definition', { textDocument: { uri: main }, position: atPole });
    assert.deepEqual(found, [{ uri: client.uri('envs.rlx'), range: rangeOf(ENVS, 'Pole') }]);
  });
});

describe('a document over the size limit', () => {
  const BIG = `algorithm A = PPO {\n${'  clip: 0.2\n'.repeat(100_000)}}\n`;

  test('is announced once, reported with one warning, and answered with nothing rather than a long wait', async () => {
    const uri = await client.open('big.rlx', BIG);
    const { diagnostics } = await client.waitForDiagnostics(uri, { version: 1 });
    assert.deepEqual(diagnostics.map((d) => [d.code, d.severity, d.range.start]), [['file-too-large', 2, { line: 0, character: 0 }]]);
    assert.match(String(diagnostics[0].message), /^big\.rlx is 1\.1 MB; the rlx language server reads files up to 1\.0 MB, so it gives no diagnostics, completion or navigation/);
    const inBody = { line: 1, character: 4 };
    assert.deepEqual(await client.request('textDocument/completion', { textDocument: { uri }, position: inBody }), []);
    assert.equal(await client.request('textDocument/hover', { textDocument: { uri }, position: inBody }), null);
    // Formatting the empty text analysed in its place would delete the document.
    assert.deepEqual(await client.request('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } }), []);
    await client.edit(uri, { start: { line: 1, character: 2 }, end: { line: 1, character: 2 } }, 'x');
    assert.deepEqual(client.messages.filter((m) => m.message.startsWith('big.rlx')).map((m) => m.type), [2], 'one warning message, not one per edit');
  });

  test('cut down below the limit, it is analysed again', async () => {
    const uri = client.uri('big.rlx');
    const version = await client.change(uri, { text: 'algorithm A = PPO {\n  clipp: 0.2\n}\n' });
    const { diagnostics } = await client.waitForDiagnostics(uri, { version });
    assert.deepEqual(diagnostics.map((d) => d.code), ['unknown-property']);
  });
});

describe("a run's recorded source opened in the editor", () => {
  const options = { tabSize: 2, insertSpaces: true };
  test('gets no formatting edits (format-on-save would rewrite the record of what trained); the same text elsewhere does', async () => {
    const recorded = await client.open(`${RUN}/source/_up/lib.rlx`);
    assert.deepEqual(await client.request('textDocument/formatting', { textDocument: { uri: recorded }, options }), []);
    const whole = { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } };
    assert.deepEqual(await client.request('textDocument/rangeFormatting', { textDocument: { uri: recorded }, range: whole, options }), []);
    const lib = await client.open('lib.rlx');
    assert.notDeepEqual(await client.request('textDocument/formatting', { textDocument: { uri: lib }, options }), []);
  });
});
