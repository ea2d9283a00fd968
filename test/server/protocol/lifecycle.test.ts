// The server's life as a client sees it over stdio: initialize and what it offers, the
// registrations it asks for, shutdown and exit with status 0, and the other ways to start it
// (`rlx lsp --stdio`, the esbuild bundle).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { ResponseError, type Hover } from 'vscode-languageserver-protocol/node';
import { SEMANTIC_TOKENS_LEGEND } from '../../../server/features/semantic-tokens.js';
import { bundle } from '../../../tools/bundle.js';
import { repoRoot } from '../../helpers/repo.js';
import { TestClient } from '../client.js';

const POLE = '/// The pole.\nenv Pole = CartPole { max_steps: 500 }\n';

describe('lifecycle', () => {
  test('initialize offers every feature, with its triggers and legend', async () => {
    const client = await TestClient.start();
    try {
      const caps = client.initializeResult.capabilities;
      assert.deepEqual(caps.textDocumentSync, { openClose: true, change: 2, save: { includeText: false } });
      assert.deepEqual(caps.completionProvider?.triggerCharacters, ['.', ':', '=', ' ', '"', '/']);
      assert.deepEqual(caps.signatureHelpProvider?.triggerCharacters, ['(', ',']);
      assert.deepEqual(caps.renameProvider, { prepareProvider: true });
      assert.deepEqual(caps.codeActionProvider, { codeActionKinds: ['quickfix'] });
      assert.deepEqual(caps.semanticTokensProvider, { legend: SEMANTIC_TOKENS_LEGEND, full: true, range: false });
      for (const key of ['hoverProvider', 'definitionProvider', 'referencesProvider', 'documentHighlightProvider', 'documentSymbolProvider',
        'workspaceSymbolProvider', 'foldingRangeProvider', 'selectionRangeProvider', 'documentFormattingProvider', 'documentRangeFormattingProvider',
        'inlayHintProvider'] as const) {
        assert.equal(caps[key], true, key);
      }
      assert.equal(client.initializeResult.serverInfo?.name, 'rlx');
      // After `initialized`: a watcher for .rlx files and the configuration section.
      await client.request('workspace/symbol', { query: '' }); // answered after the first index: registrations went out by then
      assert.deepEqual(client.registrations.map((r) => [r.method, r.registerOptions]), [
        ['workspace/didChangeWatchedFiles', { watchers: [{ globPattern: '**/*.rlx' }, { globPattern: '**/*.{ts,js,mjs}' }] }],
        ['workspace/didChangeConfiguration', { section: 'rlx' }],
      ]);
      assert.equal(client.configurationRequests.length, 1);
    } finally {
      assert.equal(await client.stop(), 0);
    }
  });

  test('a client without dynamic registration or configuration requests still gets everything else', async () => {
    const client = await TestClient.start({ capabilities: {}, files: { 'p.rlx': POLE } });
    try {
      assert.equal(client.initializeResult.capabilities.renameProvider, true);
      // Fixes reach a client as CodeAction literals or as commands that ask it to apply an edit; this one takes neither.
      assert.equal(client.initializeResult.capabilities.codeActionProvider, false);
      const uri = await client.open('p.rlx');
      assert.deepEqual((await client.waitForDiagnostics(uri, { version: 1 })).diagnostics, []);
      assert.deepEqual(client.registrations, []);
      assert.deepEqual(client.configurationRequests, []);
    } finally {
      assert.equal(await client.stop(), 0);
    }
  });

  test('bad requests are answered, not fatal: unknown documents, malformed parameters, unknown methods', async () => {
    const client = await TestClient.start({ files: { 'p.rlx': POLE } });
    try {
      assert.equal(await client.request('textDocument/hover', { textDocument: { uri: client.uri('missing.rlx') }, position: { line: 0, character: 0 } }), null);
      assert.equal(await client.request('textDocument/hover', { textDocument: { uri: 'untitled:never-opened' }, position: { line: 0, character: 0 } }), null);
      await assert.rejects(client.request('textDocument/hover', {}), ResponseError);
      await assert.rejects(client.request('rlx/no-such-request', {}), (err: ResponseError<unknown>) => err.code === -32601);
      const uri = await client.open('p.rlx');
      // A position far outside the text is clamped by the server, not an error.
      await client.request('textDocument/hover', { textDocument: { uri }, position: { line: 999, character: 999 } });
      const hover = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line: 1, character: 5 } });
      assert.ok(hover, 'still answering');
    } finally {
      assert.equal(await client.stop(), 0);
    }
  });

  test('over node-ipc, as vscode-languageclient forks the server module', async () => {
    const client = await TestClient.start({ transport: 'node-ipc', files: { 'p.rlx': 'env Pole = CartPol {}\n' } });
    try {
      const published = await client.waitForDiagnostics(client.uri('p.rlx'));
      assert.deepEqual(published.diagnostics.map((d) => d.code), ['unknown-name']);
    } finally {
      assert.equal(await client.stop(), 0);
    }
  });

  test('`rlx lsp --stdio` runs the same server', async () => {
    const client = await TestClient.start({ serverMain: path.join(repoRoot(), 'bin', 'rlx.js'), args: ['lsp', '--stdio'], files: { 'p.rlx': POLE } });
    try {
      assert.equal(client.initializeResult.serverInfo?.name, 'rlx');
      const uri = await client.open('p.rlx');
      assert.deepEqual((await client.waitForDiagnostics(uri, { version: 1 })).diagnostics, []);
    } finally {
      assert.equal(await client.stop(), 0);
    }
  });

  test('the bundled server (dist/server.mjs) starts and answers', async () => {
    // Inside the repository (ignored by git), as the bundle test of the command line does.
    fs.mkdirSync(path.join(repoRoot(), '.tmp'), { recursive: true });
    const out = fs.mkdtempSync(path.join(repoRoot(), '.tmp', 'server-bundle-'));
    try {
      await bundle(out);
      const client = await TestClient.start({ serverMain: path.join(out, 'server.mjs'), files: { 'p.rlx': 'env Pole = CartPol {}\n' } });
      try {
        const uri = client.uri('p.rlx');
        const published = await client.waitForDiagnostics(uri);
        assert.deepEqual(published.diagnostics.map((d) => d.code), ['unknown-name']);
      } finally {
        assert.equal(await client.stop(), 0);
      }
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  test('exit without shutdown ends the process with status 1, as the protocol says', async () => {
    const client = await TestClient.start();
    await client.connection.sendNotification('exit');
    assert.equal(await client.waitForExit(), 1);
    await client.stop();
  });
});
