// The server under abuse, over stdio: thousands of random edits of the docs/language.md examples
// interleaved with every kind of request; requests about a version the client has already
// edited past; requests cancelled as soon as sent. It must never crash, never answer with
// positions of another version, never hang, and still answer like a fresh server at the end.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CancellationTokenSource,
  ErrorCodes,
  LSPErrorCodes,
  ResponseError,
  type Diagnostic,
  type Hover,
  type Position,
  type Range,
  type WorkspaceEdit,
} from 'vscode-languageserver-protocol/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { analyze, LineIndex, Workspace } from '../../../dsl/index.js';
import { codeBlocks, readLanguageDoc } from '../../helpers/repo.js';
import { seededRandom } from '../../helpers/random.js';
import { rangeOf, TestClient } from '../client.js';

const EXAMPLES = codeBlocks(readLanguageDoc(), 'rlx').map((b) => b.text);
const TOKENS = ['{', '}', '[', ']', '(', ')', '=', ':', ',', '.', '"', '\n', ' ', '  ', '///', '//', '/*', '*/', '-', '^', 'k', 'M', 'e',
  'env', 'policy', 'algorithm', 'experiment', 'sweep', 'reward', 'term', 'import', 'obs.', 'Pole', 'PPO', 'mlp', 'linear(', '1e-3', '10k', '\u00e9', '\ud83d\ude00'];

/** A request about `position` (or the whole document) and the parameters it takes. */
const REQUESTS: { method: string; params: (uri: string, p: Position, r: Range) => object }[] = [
  { method: 'textDocument/hover', params: (uri, position) => ({ textDocument: { uri }, position }) },
  { method: 'textDocument/completion', params: (uri, position) => ({ textDocument: { uri }, position }) },
  { method: 'textDocument/definition', params: (uri, position) => ({ textDocument: { uri }, position }) },
  { method: 'textDocument/references', params: (uri, position) => ({ textDocument: { uri }, position, context: { includeDeclaration: true } }) },
  { method: 'textDocument/documentHighlight', params: (uri, position) => ({ textDocument: { uri }, position }) },
  { method: 'textDocument/prepareRename', params: (uri, position) => ({ textDocument: { uri }, position }) },
  { method: 'textDocument/rename', params: (uri, position) => ({ textDocument: { uri }, position, newName: 'Renamed' }) },
  { method: 'textDocument/documentSymbol', params: (uri) => ({ textDocument: { uri } }) },
  { method: 'textDocument/foldingRange', params: (uri) => ({ textDocument: { uri } }) },
  { method: 'textDocument/selectionRange', params: (uri, position) => ({ textDocument: { uri }, positions: [position] }) },
  { method: 'textDocument/semanticTokens/full', params: (uri) => ({ textDocument: { uri } }) },
  { method: 'textDocument/formatting', params: (uri) => ({ textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } }) },
  { method: 'textDocument/rangeFormatting', params: (uri, _p, range) => ({ textDocument: { uri }, range, options: { tabSize: 2, insertSpaces: true } }) },
  { method: 'textDocument/codeAction', params: (uri, _p, range) => ({ textDocument: { uri }, range, context: { diagnostics: [] } }) },
  { method: 'textDocument/inlayHint', params: (uri, _p, range) => ({ textDocument: { uri }, range }) },
  { method: 'textDocument/signatureHelp', params: (uri, position) => ({ textDocument: { uri }, position }) },
  { method: 'rlx/experiments', params: (uri) => ({ textDocument: { uri } }) },
  { method: 'rlx/plan', params: (uri) => ({ textDocument: { uri }, name: 'Balance' }) },
];

/** Every LSP range inside a result that speaks of `uri` (or of no document, meaning this one). */
function rangesIn(value: unknown, uri: string, out: Range[] = []): Range[] {
  if (Array.isArray(value)) {
    value.forEach((v) => rangesIn(v, uri, out));
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (typeof record.uri === 'string' && record.uri !== uri) return out;
    if (isPosition(record.start) && isPosition(record.end)) out.push(record as unknown as Range);
    for (const [key, v] of Object.entries(record)) {
      if (key === 'changes' && v && typeof v === 'object') rangesIn((v as Record<string, unknown>)[uri] ?? [], uri, out);
      else rangesIn(v, uri, out);
    }
  }
  return out;
}

function isPosition(value: unknown): value is Position {
  return value !== null && typeof value === 'object' && typeof (value as Position).line === 'number' && typeof (value as Position).character === 'number';
}

/** A position the text has: a line it has, a character within that line. */
function fits(doc: TextDocument, p: Position): boolean {
  if (p.line < 0 || p.line >= doc.lineCount || p.character < 0) return false;
  const lineText = doc.getText({ start: { line: p.line, character: 0 }, end: { line: p.line + 1, character: 0 } }).replace(/\r?\n$/, '');
  return p.character <= lineText.length;
}

const isExpectedRefusal = (err: unknown) =>
  err instanceof ResponseError && (err.code === LSPErrorCodes.ContentModified || err.code === LSPErrorCodes.RequestCancelled || err.code === LSPErrorCodes.RequestFailed);

describe('robustness', () => {
  test('thousands of random edits interleaved with requests: no crash, no answer for the wrong version, and fresh answers at the end', async (t) => {
    const random = seededRandom(4);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const client = await TestClient.start({ files: { 'fuzz.rlx': EXAMPLES.join('\n') } });
    try {
      const uri = await client.open('fuzz.rlx');
      let doc = TextDocument.create(uri, 'rlx', 1, EXAMPLES.join('\n'));
      const pending: Promise<void>[] = [];
      let answered = 0;
      let refused = 0;
      const ask = (current: TextDocument) => {
        // TextDocument.update changes a document in place: keep this version's text apart.
        const snapshot = TextDocument.create(uri, 'rlx', current.version, current.getText());
        const request = pick(REQUESTS);
        const at = (o: number) => snapshot.positionAt(o);
        const a = Math.floor(random() * (snapshot.getText().length + 1));
        const b = Math.min(snapshot.getText().length, a + Math.floor(random() * 200));
        const position = random() < 0.05 ? { line: snapshot.lineCount + 3, character: 99 } : at(a); // now and then, outside the text
        return client.request(request.method, request.params(uri, position, { start: at(a), end: at(b) })).then((result) => {
          answered++;
          for (const r of rangesIn(result, uri)) {
            assert.ok(fits(snapshot, r.start) && fits(snapshot, r.end), `${request.method} answered with ${JSON.stringify(r)}, outside version ${snapshot.version}:\n${snapshot.getText()}`);
          }
        }, (err: unknown) => {
          assert.ok(isExpectedRefusal(err), `${request.method} failed: ${String(err)}\n${client.output()}`);
          refused++;
        });
      };

      for (let step = 0; step < 3000; step++) {
        const text = doc.getText();
        const start = Math.floor(random() * (text.length + 1));
        const end = Math.min(text.length, start + (random() < 0.5 ? 0 : Math.floor(random() * 12)));
        const roll = random();
        const insert = roll < 0.45 ? pick(TOKENS) : roll < 0.75 ? pick(EXAMPLES).slice(0, Math.floor(random() * 40)) : '';
        const range = { start: doc.positionAt(start), end: doc.positionAt(end) };
        doc = TextDocument.update(doc, [{ range, text: insert }], doc.version + 1);
        await client.change(uri, { range, text: insert });
        if (random() < 0.1) {
          const answer = ask(doc);
          // Mostly wait for the answer; sometimes keep editing while the request is in flight.
          if (random() < 0.7) await answer;
          else pending.push(answer);
        }
      }
      await Promise.all(pending);
      assert.ok(answered > 100, `only ${answered} requests answered (${refused} refused)`);
      // A feature that threw was logged and answered empty: not a crash, but a bug to see.
      const failures = client.logs.filter((l) => / failed at /.test(l));
      if (failures.length > 0) t.diagnostic(`${failures.length} feature failure(s) logged; first:\n${failures[0]}`);

      // Back to a known text: diagnostics as the front end gives them, and the same answers
      // as a document opened fresh with that text.
      const final = EXAMPLES[0];
      const version = await client.change(uri, { range: { start: { line: 0, character: 0 }, end: doc.positionAt(doc.getText().length) }, text: final });
      const published = await client.waitForDiagnostics(uri, { version });
      assert.deepEqual(published.diagnostics, expectedDiagnostics(final));
      const fresh = await client.open('fresh.rlx', final);
      const asFresh = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll('fuzz.rlx', 'fresh.rlx'));
      for (const method of ['textDocument/documentSymbol', 'textDocument/foldingRange', 'textDocument/semanticTokens/full', 'rlx/experiments']) {
        const [edited, opened] = await Promise.all([uri, fresh].map((u) => client.request(method, { textDocument: { uri: u } })));
        assert.deepEqual(asFresh(edited), opened, method);
      }
      const position = rangeOf(final, 'Tuned', 1).start;
      const hover = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position });
      assert.ok(hover);
      assert.deepEqual(asFresh(hover), await client.request('textDocument/hover', { textDocument: { uri: fresh }, position }));
    } finally {
      assert.equal(await client.stop(), 0, client.output());
    }
  });

  test('a request overtaken by an edit is answered for its own version or refused with ContentModified', async () => {
    const text = 'env Pole = CartPole {}\nexperiment A { env: Pole, policy: mlp, algorithm: PPO, budget: 10k }\n';
    const client = await TestClient.start({ files: { 'p.rlx': text } });
    try {
      const uri = await client.open('p.rlx');
      await client.waitForDiagnostics(uri, { version: 1 });
      const use = rangeOf(text, 'Pole', 2); // the one after `env:` (the first two are in `env Pole = CartPole`)
      let modified = 0;
      for (let i = 0; i < 10; i++) {
        // Both sent before the server reads either: the edit shifts every line down by two.
        const hover = client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: use.start });
        const rename = client.request<WorkspaceEdit | null>('textDocument/rename', { textDocument: { uri }, position: use.start, newName: 'Cart' });
        const shift = client.edit(uri, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, i % 2 === 0 ? '\n\n' : '');
        const remove = { start: { line: 0, character: 0 }, end: { line: 2, character: 0 } };
        await shift;
        for (const answer of await Promise.allSettled([hover, rename])) {
          if (answer.status === 'fulfilled') {
            // Answered: then for the version it was asked about, where `Pole` sits at `use`.
            const ranges = rangesIn(answer.value, uri);
            assert.ok(ranges.some((r) => r.start.line === use.start.line && r.start.character === use.start.character), JSON.stringify(answer.value));
          } else {
            assert.equal((answer.reason as ResponseError<unknown>).code, LSPErrorCodes.ContentModified, String(answer.reason));
            modified++;
          }
        }
        if (i % 2 === 0) await client.edit(uri, remove, '');
      }
      assert.ok(modified > 0, 'the server noticed at least one overtaken request');
      // Asked after the edit: answered for the new text.
      const now = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: use.start });
      assert.deepEqual(now?.range, use);
    } finally {
      assert.equal(await client.stop(), 0);
    }
  });

  test('cancelled requests get RequestCancelled (or their result when too late), never a hang', async () => {
    const client = await TestClient.start({ files: { 'p.rlx': EXAMPLES[0] } });
    try {
      const uri = await client.open('p.rlx');
      await client.waitForDiagnostics(uri, { version: 1 });
      let cancelled = 0;
      for (let i = 0; i < 20; i++) {
        const source = new CancellationTokenSource();
        const method = i % 2 === 0 ? 'textDocument/semanticTokens/full' : 'textDocument/hover';
        const answer = client.request(method, { textDocument: { uri }, position: { line: 1, character: 5 } }, source);
        if (i % 4 === 3) await new Promise((resolve) => setImmediate(resolve)); // sometimes a little later
        source.cancel();
        try {
          await answer;
        } catch (err) {
          assert.equal((err as ResponseError<unknown>).code, LSPErrorCodes.RequestCancelled, String(err));
          cancelled++;
        }
      }
      assert.ok(cancelled > 0, 'at least one cancellation arrived before its request was served');
      // The server goes on answering.
      assert.ok(await client.request('textDocument/hover', { textDocument: { uri }, position: rangeOf(EXAMPLES[0], 'Pole', 0).start }));
    } finally {
      assert.equal(await client.stop(), 0);
    }
  });

  test('malformed notifications and requests leave the server answering', async () => {
    const client = await TestClient.start({ files: { 'p.rlx': EXAMPLES[0] } });
    try {
      await client.connection.sendNotification('textDocument/didChange', { textDocument: { uri: client.uri('never-opened.rlx'), version: 2 }, contentChanges: [{ text: 'x' }] });
      await client.connection.sendNotification('textDocument/didOpen', {});
      await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: 'not a uri', type: 1 }] });
      await client.connection.sendNotification('workspace/didChangeConfiguration', { settings: null });
      await assert.rejects(client.request('textDocument/completion', { textDocument: null, position: null }), (err: ResponseError<unknown>) => err.code === ErrorCodes.InternalError || err.code === ErrorCodes.InvalidParams);
      const uri = await client.open('p.rlx');
      const diagnostics: Diagnostic[] = (await client.waitForDiagnostics(uri, { version: 1 })).diagnostics;
      assert.deepEqual(diagnostics, []);
      // rlx/plan with bad parameters: InvalidParams or { ok: false } saying what is missing, never a raw TypeError (issue 43 item 15).
      for (const params of [{}, { textDocument: null, name: 'Balance' }, { textDocument: { uri: 7 } }]) {
        await assert.rejects(client.request('rlx/plan', params), (err: ResponseError<unknown>) =>
          err.code === ErrorCodes.InvalidParams && /^rlx\/plan needs params\.textDocument\.uri/.test(err.message) && !/TypeError|Cannot read/.test(err.message));
      }
      for (const name of [undefined, 42, { x: 1 }]) {
        assert.deepEqual(await client.request('rlx/plan', { textDocument: { uri }, name }),
          { ok: false, error: 'rlx/plan needs params.name, the name of an experiment or sweep of the document, as a string' });
      }
      assert.equal(client.logs.filter((l) => /TypeError/.test(l)).length, 0, client.logs.join('\n'));
    } finally {
      assert.equal(await client.stop(), 0, client.output());
    }
  });
});

/** The front end's diagnostics for a text, as the server should publish them. */
function expectedDiagnostics(text: string): Diagnostic[] {
  const workspace = new Workspace({ readFile: () => undefined });
  const file = '/virtual/expected.rlx';
  workspace.setOverlay(file, text);
  const lines = new LineIndex(text);
  return (analyze(workspace, [file]).diagnostics.get(file) ?? []).map((d) => ({
    range: { start: lines.position(d.range.start), end: lines.position(d.range.end) },
    severity: d.severity === 'error' ? 1 : d.severity === 'warning' ? 2 : 3,
    code: d.code,
    source: 'rlx',
    message: d.message,
  }));
}
