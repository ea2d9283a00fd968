// Answers in the forms the client declared it takes. A client that says `snippetSupport: false`
// (Eglot without yasnippet) must not get `linear(${1:from}, ${2:to})` to insert literally; one
// that renders plain text gets no markdown syntax; one without CodeAction literals gets fixes as
// commands; one without hierarchical symbols gets a flat outline. (VS Code declares them all:
// features.test.ts covers those answers.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type {
  ClientCapabilities,
  Command,
  CompletionItem,
  Hover,
  MarkupContent,
  SignatureHelp,
  SymbolInformation,
} from 'vscode-languageserver-protocol/node';
import { cursor, rangeOf, TestClient } from '../client.js';

/** Every capability that shapes an answer, declared off (or plain text only). */
const PLAIN_CLIENT: ClientCapabilities = {
  workspace: { applyEdit: true },
  textDocument: {
    completion: { completionItem: { snippetSupport: false, documentationFormat: ['plaintext'] } },
    hover: { contentFormat: ['plaintext'] },
    signatureHelp: { signatureInformation: { documentationFormat: ['plaintext'] } },
    codeAction: {},
    documentSymbol: { hierarchicalDocumentSymbolSupport: false },
  },
};

const MAIN = `/// The classic pole.
env Pole = CartPole {
  max_steps: 500
}

algorithm Tuned = PPO {
  learning_rate: linear(2.5e-4, 0)
  clip: 0.2
}
`;

let client: TestClient;
let main: string;
before(async () => {
  client = await TestClient.start({ capabilities: PLAIN_CLIENT, files: { 'main.rlx': MAIN } });
  main = await client.open('main.rlx');
});
after(async () => {
  assert.equal(await client.stop(), 0, client.output());
});

let scratch = 0;
async function completeAt(marked: string): Promise<CompletionItem[]> {
  const { text, position } = cursor(marked);
  const uri = await client.open(`scratch${scratch++}.rlx`, text);
  return client.request<CompletionItem[]>('textDocument/completion', { textDocument: { uri }, position, context: { triggerKind: 1 } });
}

const SNIPPET_SYNTAX = /\$(\d|\{\d)/;

describe('a client without snippets, markdown, CodeAction literals or a symbol tree', () => {
  test('completion inserts plain text: placeholders at their defaults, no tab stops', async () => {
    const items = [
      ...await completeAt('<|>'),
      ...await completeAt('algorithm A = PPO {\n  learning_rate: <|>\n}\n'),
      ...await completeAt('policy P = mlp {\n  <|>\n}\n'),
      ...await completeAt('env E = <|>'),
    ];
    assert.ok(items.length > 20, `items: ${items.length}`);
    for (const item of items) {
      assert.notEqual(item.insertTextFormat, 2, `${item.label} is sent as a snippet`);
      const inserted = item.textEdit && 'newText' in item.textEdit ? item.textEdit.newText : (item.insertText ?? item.label);
      assert.doesNotMatch(inserted, SNIPPET_SYNTAX, `${item.label} inserts '${inserted}'`);
    }
    const insertedFor = (label: string) => {
      const item = items.find((i) => i.label === label);
      return item?.textEdit && 'newText' in item.textEdit ? item.textEdit.newText : undefined;
    };
    assert.equal(insertedFor('linear'), 'linear(from, to)');
    assert.equal(insertedFor('env'), 'env Name = CartPole {\n  \n}');
    assert.equal(insertedFor('import'), 'import ""');
  });

  test('completion documentation is plain text', async () => {
    const items = await completeAt('algorithm A = PPO {\n  learning_rate: <|>\n}\n');
    const docs = items.map((i) => i.documentation).filter((d): d is MarkupContent => typeof d === 'object');
    assert.ok(docs.length > 0);
    for (const doc of docs) {
      assert.equal(doc.kind, 'plaintext');
      assert.doesNotMatch(doc.value, /```|`/);
    }
  });

  test('hover is plain text: the code and words without markdown syntax', async () => {
    const hover = await client.request<Hover>('textDocument/hover', { textDocument: { uri: main }, position: { line: 1, character: 5 } });
    const contents = hover.contents as MarkupContent;
    assert.equal(contents.kind, 'plaintext');
    assert.match(contents.value, /^env Pole = CartPole\n\nThe classic pole\./);
    assert.doesNotMatch(contents.value, /```|`|\]\(/);
  });

  test('signature help documentation is plain text', async () => {
    const position = { line: 6, character: 'learning_rate: linear('.length + 2 };
    const help = await client.request<SignatureHelp>('textDocument/signatureHelp', { textDocument: { uri: main }, position });
    const doc = help.signatures[0].documentation as MarkupContent;
    assert.equal(doc.kind, 'plaintext');
  });

  test('quick fixes come as commands; running one asks the client to apply the fix', async () => {
    const uri = await client.open('broken.rlx', 'algorithm A = PPO {\n  clipp: 0.2\n}\n');
    await client.waitForDiagnostics(uri, { version: 1 });
    const range = rangeOf('algorithm A = PPO {\n  clipp: 0.2\n}\n', 'clipp');
    const commands = await client.request<Command[]>('textDocument/codeAction', { textDocument: { uri }, range, context: { diagnostics: [] } });
    assert.deepEqual(commands.map((c) => [c.title, c.command]), [["Change to 'clip'", 'rlx.server.applyFix'], ["Remove 'clipp'", 'rlx.server.applyFix']]);
    assert.ok(client.initializeResult.capabilities.executeCommandProvider?.commands.includes('rlx.server.applyFix'));
    await client.request('workspace/executeCommand', { command: commands[0].command, arguments: commands[0].arguments });
    assert.deepEqual(client.appliedEdits.map((e) => e.edit), [{ changes: { [uri]: [{ range, newText: 'clip' }] } }]);
  });

  test('the outline is a flat list, each symbol naming its container', async () => {
    const symbols = await client.request<SymbolInformation[]>('textDocument/documentSymbol', { textDocument: { uri: main } });
    assert.deepEqual(symbols.map((s) => [s.name, s.containerName, s.location.uri]), [
      ['Pole', undefined, main],
      ['max_steps', 'Pole', main],
      ['Tuned', undefined, main],
      ['learning_rate', 'Tuned', main],
      ['clip', 'Tuned', main],
    ]);
    assert.deepEqual(symbols[0].location.range, { start: { line: 1, character: 0 }, end: { line: 3, character: 1 } });
  });
});
