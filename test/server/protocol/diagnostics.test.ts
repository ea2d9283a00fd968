// Diagnostics as an editor receives them: for closed files after the first index, for an open
// document at each version, for the files that import an edited one (with related information
// pointing into the edited file), and for files created, deleted or closed.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { FileChangeType, type Diagnostic } from 'vscode-languageserver-protocol/node';
import { MAX_DIAGNOSTICS_PER_FILE } from '../../../server/limits.js';
import { rangeOf, TestClient } from '../client.js';

const ENVS = `/// The pole.
env Pole = CartPole {
  max_steps: 500
}
`;
const MAIN = `import "./envs.rlx"

policy Actor = mlp { hidden: [64, 64] }

experiment Balance {
  env: Pole
  policy: Actor
  algorithm: PPO
  budget: 10k
}
`;
const BROKEN = 'env Bad = CartPole { gravity: -1 }\n';
const FILES = { 'envs.rlx': ENVS, 'main.rlx': MAIN, 'broken.rlx': BROKEN };

function error(range: Diagnostic['range'], code: string, message: string, extra: Partial<Diagnostic> = {}): Diagnostic {
  return { range, severity: 1, code, source: 'rlx', message, ...extra };
}

async function withClient(run: (client: TestClient) => Promise<void>): Promise<void> {
  const client = await TestClient.start({ files: FILES });
  try {
    await run(client);
  } finally {
    assert.equal(await client.stop(), 0);
  }
}

describe('diagnostics', () => {
  test('a file of thousands of errors: the first MAX_DIAGNOSTICS_PER_FILE, then one that counts the rest', () => withClient(async (client) => {
    // Each line: a name declared again (duplicate-name, from the second on) with an unknown base.
    const uri = await client.open('many.rlx', 'env A = Q\n'.repeat(1500));
    const published = await client.waitForDiagnostics(uri, { version: 1, timeoutMs: 30_000 });
    assert.equal(published.diagnostics.length, MAX_DIAGNOSTICS_PER_FILE + 1);
    const last = published.diagnostics.at(-1)!;
    assert.deepEqual({ code: last.code, severity: last.severity, message: last.message }, {
      code: 'too-many-diagnostics',
      severity: 1,
      message: '1,999 more errors not shown: the first 1,000 are; fix those and check again',
    });
    // It sits where the first error not shown is (the kept ones come in file order).
    assert.ok(last.range.start.line >= published.diagnostics.at(-2)!.range.start.line);
  }));

  test('a closed file with an error is reported after the first index; clean files are not', () => withClient(async (client) => {
    const published = await client.waitForDiagnostics(client.uri('broken.rlx'));
    assert.deepEqual(published, {
      uri: client.uri('broken.rlx'),
      diagnostics: [error(rangeOf(BROKEN, '-1'), 'out-of-range', 'gravity must be > 0 and <= 100; found -1')],
    });
    assert.equal(client.latestDiagnostics(client.uri('main.rlx')), undefined);
  }));

  test('typing an error in an open document: its version, exact range and message', () => withClient(async (client) => {
    const uri = await client.open('main.rlx');
    assert.deepEqual(await client.waitForDiagnostics(uri, { version: 1 }), { uri, version: 1, diagnostics: [] });
    const at = rangeOf(MAIN, 'Actor', 1);
    const version = await client.edit(uri, { start: { line: at.start.line, character: at.start.character + 2 }, end: { line: at.start.line, character: at.start.character + 3 } }, '');
    const text = MAIN.replace('policy: Actor', 'policy: Acor');
    assert.deepEqual(await client.waitForDiagnostics(uri, { version }), {
      uri, version, diagnostics: [error(rangeOf(text, 'Acor'), 'unknown-name', "unknown policy 'Acor'; did you mean 'Actor'?")],
    });
  }));

  test('editing an imported file re-checks its importer, with related information in the edited file', () => withClient(async (client) => {
    const main = await client.open('main.rlx');
    await client.waitForDiagnostics(main, { version: 1 });
    const envs = await client.open('envs.rlx');
    await client.waitForDiagnostics(envs, { version: 1 });
    const mark = client.mark();
    const end = { line: 4, character: 0 };
    const version = await client.edit(envs, { start: end, end }, 'policy Actor = mlp {}\n');
    assert.deepEqual(await client.waitForDiagnostics(envs, { version }), { uri: envs, version, diagnostics: [] });
    const edited = ENVS + 'policy Actor = mlp {}\n';
    assert.deepEqual(await client.waitForDiagnostics(main, { after: mark }), {
      uri: main,
      version: 1,
      diagnostics: [error(rangeOf(MAIN, 'Actor'), 'duplicate-name', "'Actor' is also declared in envs.rlx, which this file imports", {
        relatedInformation: [{ location: { uri: envs, range: rangeOf(edited, 'Actor') }, message: 'also declared here' }],
      })],
    });
    // The importer's tokens and hints may have changed too: the editor is asked to fetch them again.
    assert.ok(client.refreshes.includes('workspace/semanticTokens/refresh'), JSON.stringify(client.refreshes));
    // Undo: the importer is clean again.
    const again = client.mark();
    await client.edit(envs, { start: end, end: { line: 5, character: 0 } }, '');
    assert.deepEqual((await client.waitForDiagnostics(main, { after: again })).diagnostics, []);
  }));

  test('an importer that is not open is re-checked too', () => withClient(async (client) => {
    const envs = await client.open('envs.rlx');
    await client.waitForDiagnostics(envs, { version: 1 });
    const name = rangeOf(ENVS, 'Pole');
    await client.edit(envs, name, 'Pola');
    const published = await client.waitForDiagnostics(client.uri('main.rlx'));
    assert.deepEqual(published, {
      uri: client.uri('main.rlx'),
      diagnostics: [error(rangeOf(MAIN, 'Pole'), 'unknown-name', "unknown env 'Pole'; did you mean 'Pola'?")],
    });
  }));

  test('closing a document with unsaved changes shows the diagnostics of the file on disk', () => withClient(async (client) => {
    const uri = await client.open('broken.rlx');
    await client.edit(uri, rangeOf(BROKEN, '-1'), '9.8');
    await client.waitForDiagnostics(uri, { version: 2 });
    const mark = client.mark();
    await client.close(uri);
    assert.deepEqual((await client.waitForDiagnostics(uri, { after: mark })).diagnostics.map((d) => d.code), ['out-of-range']);
  }));

  test('a workspace folder added later is indexed and checked; removed, its diagnostics go', () => withClient(async (client) => {
    const other = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-lsp-folder-')));
    try {
      fs.writeFileSync(path.join(other, 'far.rlx'), BROKEN);
      const uri = pathToFileURL(path.join(other, 'far.rlx')).toString();
      const folder = { uri: pathToFileURL(other).toString(), name: 'other' };
      await client.connection.sendNotification('workspace/didChangeWorkspaceFolders', { event: { added: [folder], removed: [] } });
      assert.deepEqual((await client.waitForDiagnostics(uri)).diagnostics.map((d) => d.code), ['out-of-range']);
      const mark = client.mark();
      await client.connection.sendNotification('workspace/didChangeWorkspaceFolders', { event: { added: [], removed: [folder] } });
      assert.deepEqual((await client.waitForDiagnostics(uri, { after: mark })).diagnostics, []);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  }));

  test('files created and deleted on disk: the watcher events bring and clear their diagnostics', () => withClient(async (client) => {
    await client.waitForDiagnostics(client.uri('broken.rlx'));
    const extra = client.write('extra.rlx', 'import "./envs.rlx"\nenv Again = Pol {}\n');
    await client.watched({ uri: extra, type: FileChangeType.Created });
    assert.deepEqual((await client.waitForDiagnostics(extra)).diagnostics.map((d) => d.message), ["unknown env 'Pol'; did you mean 'Pole'?"]);

    const mark = client.mark();
    fs.rmSync(new URL(client.uri('envs.rlx')));
    fs.rmSync(new URL(client.uri('broken.rlx')));
    await client.watched({ uri: client.uri('envs.rlx'), type: FileChangeType.Deleted }, { uri: client.uri('broken.rlx'), type: FileChangeType.Deleted });
    assert.deepEqual(await client.waitForDiagnostics(client.uri('broken.rlx'), { after: mark }), { uri: client.uri('broken.rlx'), diagnostics: [] });
    const main = await client.waitForDiagnostics(client.uri('main.rlx'), { after: mark });
    assert.deepEqual(main.diagnostics.map((d) => [d.code, d.range.start.line]), [['import-not-found', 0], ['unknown-name', 5]]);
  }));
});
