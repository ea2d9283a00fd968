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

let client: TestClient;
let main: string;
before(async () => {
  client = await TestClient.start({ files: { 'envs.rlx': BOM + ENVS, 'main.rlx': MAIN } });
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
