// Every editing feature end to end, through the protocol, as an editor asks for it: one server
// over stdio, a workspace of two files (main.rlx imports envs.rlx), and the exact items and
// ranges each request answers. What each feature computes in detail is tested beside it
// (test/server/features/); here the point is that the server wires it up right: the right
// document and version, positions, settings, errors and URIs across files.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  LSPErrorCodes,
  ResponseError,
  type CodeAction,
  type CompletionItem,
  type DocumentHighlight,
  type DocumentSymbol,
  type FoldingRange,
  type Hover,
  type InlayHint,
  type Location,
  type Position,
  type Range,
  type SelectionRange,
  type SemanticTokens,
  type SignatureHelp,
  type SymbolInformation,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver-protocol/node';
import { SEMANTIC_TOKENS_LEGEND } from '../../../server/features/semantic-tokens.js';
import { cursor, rangeOf, TestClient } from '../client.js';

const ENVS = `/// The classic pole.
env Pole = CartPole {
  max_steps: 500
}
`;
const MAIN = `import "./envs.rlx"

policy Actor = mlp {
  hidden: [64, 64]
  activation: tanh
}

algorithm Tuned = PPO {
  learning_rate: linear(2.5e-4, 0)
  clip: 0.2
}

/// Faster.
algorithm Fast = Tuned {
  clip: 0.3
}

experiment Balance {
  env: Pole
  policy: Actor
  algorithm: Fast
  budget: 10k
}
`;

let client: TestClient;
let main: string;
before(async () => {
  client = await TestClient.start({ files: { 'envs.rlx': ENVS, 'main.rlx': MAIN } });
  main = await client.open('main.rlx');
});
after(async () => {
  assert.equal(await client.stop(), 0, client.output());
});

/** Where the `n`th `needle` of main.rlx starts, moved `delta` characters in. */
function inMain(needle: string, n = 0, delta = 1): Position {
  const { start } = rangeOf(MAIN, needle, n);
  return { line: start.line, character: start.character + delta };
}

let scratch = 0;
/** Opens a new document with a `<|>` cursor in it; its URI and the cursor's position. */
async function openAt(marked: string): Promise<{ uri: string; position: Position; text: string }> {
  const { text, position } = cursor(marked);
  const uri = await client.open(`scratch${scratch++}.rlx`, text);
  return { uri, position, text };
}

const range = (sl: number, sc: number, el: number, ec: number): Range => ({ start: { line: sl, character: sc }, end: { line: el, character: ec } });

describe('completion', () => {
  const complete = async (marked: string, triggerCharacter?: string) => {
    const { uri, position } = await openAt(marked);
    const context = triggerCharacter ? { triggerKind: 2, triggerCharacter } : { triggerKind: 1 };
    return client.request<CompletionItem[]>('textDocument/completion', { textDocument: { uri }, position, context });
  };

  test('bases after `=`: the user\'s own of the kind (from imports too), then the built-ins', async () => {
    const items = await complete('import "./main.rlx"\nalgorithm X = <|>');
    assert.deepEqual(items.map((i) => i.label), ['Tuned', 'Fast', 'PPO', 'DQN', 'SAC', 'REINFORCE', 'GRPO', 'SFT', 'DPO', 'BC', 'TD3BC', 'IQL', 'module']);
  });

  test('property names with type and default, replacing the word typed so far', async () => {
    const items = await complete('env Pole = CartPole {\n  max<|>\n}\n');
    // The client takes snippets: the default is a placeholder to type over.
    assert.deepEqual(items.map((i) => [i.label, i.detail, i.textEdit, i.insertTextFormat]), [['max_steps', 'integer = 500', { range: range(1, 2, 1, 5), newText: 'max_steps: ${1:500}' }, 2]]);
  });

  test('values of an enum-like property', async () => {
    const items = await complete('policy P = mlp {\n  activation: <|>\n}\n');
    assert.deepEqual(items.map((i) => [i.label, i.textEdit]), [['tanh', { range: range(1, 14, 1, 14), newText: 'tanh' }], ['relu', { range: range(1, 14, 1, 14), newText: 'relu' }]]);
  });

  test('a space triggers completion after `:` only', async () => {
    const afterColon = await complete('import "./envs.rlx"\nexperiment E {\n  env: <|>\n}\n', ' ');
    assert.deepEqual(afterColon.map((i) => i.label).slice(0, 3), ['Pole', 'CartPole', 'CartPoleNoVel']);
    assert.deepEqual(await complete('env Pole = CartPole {\n  max_steps: 500 <|>\n}\n', ' '), []);
  });
});

describe('hover', () => {
  test('a reference: the declaration, its doc comment, inheritance and properties', async () => {
    const hover = await client.request<Hover>('textDocument/hover', { textDocument: { uri: main }, position: inMain('Fast', 1) });
    assert.deepEqual(hover, {
      contents: {
        kind: 'markdown',
        value: '```rlx\nalgorithm Fast = Tuned\n```\n\nFaster.\n\nInherits: Fast → Tuned → PPO\n\n- `learning_rate: linear(2.5e-4, 0)` (from Tuned)\n- `clip: 0.3`\n\n'
          + `Declared in [main.rlx, line 14](${main}#L14)`,
      },
      range: rangeOf(MAIN, 'Fast', 1),
    });
  });

  test('a property: docs, type, default, range and the value in effect', async () => {
    const hover = await client.request<Hover>('textDocument/hover', { textDocument: { uri: main }, position: inMain('clip', 1) });
    assert.deepEqual(hover.range, rangeOf(MAIN, 'clip', 1));
    assert.equal((hover.contents as { value: string }).value, '```rlx\n(property) PPO.clip: number | schedule\n```\n\n'
      + 'Clip range of the probability ratio in the surrogate objective; a number or a schedule.\n\n'
      + 'Type: `number | schedule`  \nDefault: `0.2`  \nRange: > 0 and <= 10 (unusual above 1)\n\n'
      + 'In effect: `0.3`, set here (overrides `0.2` from Tuned).');
  });
});

describe('navigation', () => {
  test('definition: into the imported file, and to the overridden property in the base', async () => {
    assert.deepEqual(await client.request<Location[]>('textDocument/definition', { textDocument: { uri: main }, position: inMain('Pole') }), [
      { uri: client.uri('envs.rlx'), range: rangeOf(ENVS, 'Pole') },
    ]);
    assert.deepEqual(await client.request<Location[]>('textDocument/definition', { textDocument: { uri: main }, position: inMain('clip', 1) }), [
      { uri: main, range: rangeOf(MAIN, 'clip', 0) },
    ]);
  });

  test('references, with and without the declaration', async () => {
    const at = (includeDeclaration: boolean) => client.request<Location[]>('textDocument/references', { textDocument: { uri: main }, position: inMain('Tuned'), context: { includeDeclaration } });
    assert.deepEqual(await at(true), [{ uri: main, range: rangeOf(MAIN, 'Tuned', 0) }, { uri: main, range: rangeOf(MAIN, 'Tuned', 1) }]);
    assert.deepEqual(await at(false), [{ uri: main, range: rangeOf(MAIN, 'Tuned', 1) }]);
  });

  test('references to a declaration in an imported file come from its importers', async () => {
    const envs = await client.open('envs.rlx');
    const found = await client.request<Location[]>('textDocument/references', { textDocument: { uri: envs }, position: { line: 1, character: 5 }, context: { includeDeclaration: false } });
    assert.deepEqual(found, [{ uri: main, range: rangeOf(MAIN, 'Pole') }]);
    await client.close(envs);
  });

  test('document highlight: the declaration written, the use read', async () => {
    assert.deepEqual(await client.request<DocumentHighlight[]>('textDocument/documentHighlight', { textDocument: { uri: main }, position: inMain('Actor') }), [
      { range: rangeOf(MAIN, 'Actor', 0), kind: 3 },
      { range: rangeOf(MAIN, 'Actor', 1), kind: 2 },
    ]);
  });
});

describe('rename', () => {
  test('prepareRename gives the name\'s range and text', async () => {
    assert.deepEqual(await client.request('textDocument/prepareRename', { textDocument: { uri: main }, position: inMain('Actor', 1) }), {
      range: rangeOf(MAIN, 'Actor', 1), placeholder: 'Actor',
    });
  });

  test('renames across files', async () => {
    const edit = await client.request<WorkspaceEdit>('textDocument/rename', { textDocument: { uri: main }, position: inMain('Pole'), newName: 'Cart' });
    assert.deepEqual(edit, {
      changes: {
        [client.uri('envs.rlx')]: [{ range: rangeOf(ENVS, 'Pole'), newText: 'Cart' }],
        [main]: [{ range: rangeOf(MAIN, 'Pole'), newText: 'Cart' }],
      },
    });
  });

  test('a refused rename is an error with a message the editor shows', async () => {
    const refused = (position: Position, newName: string) => client.request('textDocument/rename', { textDocument: { uri: main }, position, newName });
    await assert.rejects(refused(inMain('PPO'), 'X'), (err: ResponseError<unknown>) => {
      assert.equal(err.code, LSPErrorCodes.RequestFailed);
      assert.equal(err.message, "'PPO' is a built-in algorithm and cannot be renamed; rename your own declarations instead.");
      return true;
    });
    await assert.rejects(refused(inMain('Fast', 1), 'Tuned'), (err: ResponseError<unknown>) => {
      assert.equal(err.code, LSPErrorCodes.RequestFailed);
      assert.equal(err.message, "'Tuned' is already declared in main.rlx (algorithm Tuned); choose another name.");
      return true;
    });
  });
});

describe('symbols', () => {
  test('document symbols: declarations with their members', async () => {
    const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri: main } });
    const outline = (s: DocumentSymbol): unknown => [s.name, s.detail, s.kind, ...(s.children?.length ? [s.children.map(outline)] : [])];
    assert.deepEqual(symbols.map(outline), [
      ['Actor', 'policy = mlp', 23, [['hidden', '[64, 64]', 7], ['activation', 'tanh', 7]]],
      ['Tuned', 'algorithm = PPO', 11, [['learning_rate', 'linear(2.5e-4, 0)', 7], ['clip', '0.2', 7]]],
      ['Fast', 'algorithm = Tuned', 11, [['clip', '0.3', 7]]],
      ['Balance', 'experiment', 2, [['env', 'Pole', 7], ['policy', 'Actor', 7], ['algorithm', 'Fast', 7], ['budget', '10k', 7]]],
    ]);
    assert.deepEqual([symbols[0].range, symbols[0].selectionRange], [range(2, 0, 5, 1), rangeOf(MAIN, 'Actor')]);
  });

  test('workspace symbols: matching declarations of every file, open or not', async () => {
    assert.deepEqual(await client.request<SymbolInformation[]>('workspace/symbol', { query: 'Bal' }), [
      { name: 'Balance', kind: 2, location: { uri: main, range: range(17, 0, 22, 1) }, containerName: 'main.rlx' },
    ]);
    // Other tests' scratch documents declare a Pole too; envs.rlx is not open.
    const poles = await client.request<SymbolInformation[]>('workspace/symbol', { query: 'Pole' });
    assert.deepEqual(poles.filter((s) => !s.containerName?.startsWith('scratch')), [
      { name: 'Pole', kind: 5, location: { uri: client.uri('envs.rlx'), range: range(1, 0, 3, 1) }, containerName: 'envs.rlx' },
    ]);
  });
});

describe('structure', () => {
  test('folding ranges: one per body', async () => {
    assert.deepEqual(await client.request<FoldingRange[]>('textDocument/foldingRange', { textDocument: { uri: main } }), [
      { startLine: 2, endLine: 4 }, { startLine: 7, endLine: 9 }, { startLine: 13, endLine: 14 }, { startLine: 17, endLine: 21 },
    ]);
  });

  test('selection ranges: number, call, property, body, declaration, file', async () => {
    const [selection] = await client.request<SelectionRange[]>('textDocument/selectionRange', { textDocument: { uri: main }, positions: [inMain('2.5e-4')] });
    const chain: Range[] = [];
    for (let s: SelectionRange | undefined = selection; s; s = s.parent) chain.push(s.range);
    assert.deepEqual(chain, [range(8, 24, 8, 30), range(8, 17, 8, 34), range(8, 2, 8, 34), range(7, 22, 10, 1), range(7, 0, 10, 1), range(0, 0, 23, 0)]);
  });

  test('semantic tokens: declarations and references by kind, built-ins, keywords, numbers', async () => {
    const { data } = await client.request<SemanticTokens>('textDocument/semanticTokens/full', { textDocument: { uri: main } });
    const { tokenTypes, tokenModifiers } = SEMANTIC_TOKENS_LEGEND;
    const tokens: string[] = [];
    for (let i = 0, line = 0, character = 0; i < data.length; i += 5) {
      line += data[i];
      character = data[i] === 0 ? character + data[i + 1] : data[i + 1];
      const text = MAIN.split('\n')[line].slice(character, character + data[i + 2]);
      const modifiers = tokenModifiers.filter((_, bit) => data[i + 4] & (1 << bit));
      tokens.push(`${text} ${[tokenTypes[data[i + 3]], ...modifiers].join('.')}`);
    }
    assert.deepEqual(tokens.slice(0, 9), [
      'import keyword', '"./envs.rlx" string', 'policy keyword', 'Actor struct.declaration', '= operator', 'mlp struct.defaultLibrary',
      'hidden property', '64 number', '64 number',
    ]);
    assert.ok(tokens.includes('Pole class'), tokens.join('\n'));
    assert.ok(tokens.includes('10k number'), tokens.join('\n'));
    assert.ok(tokens.includes('/// Faster. comment.documentation'), tokens.join('\n'));
  });
});

describe('formatting', () => {
  const options = { tabSize: 2, insertSpaces: true };

  test('the whole document', async () => {
    const { uri } = await openAt('env   Pole=CartPole{max_steps:500}\n<|>');
    assert.deepEqual(await client.request<TextEdit[]>('textDocument/formatting', { textDocument: { uri }, options }), [
      { range: range(0, 0, 1, 0), newText: 'env Pole = CartPole { max_steps: 500 }\n' },
    ]);
  });

  test('a range: only the declarations it touches', async () => {
    const { uri } = await openAt('env   A=CartPole{}\n\nenv   B=CartPole{}<|>\n');
    assert.deepEqual(await client.request<TextEdit[]>('textDocument/rangeFormatting', { textDocument: { uri }, range: range(2, 0, 2, 3), options }), [
      { range: range(2, 0, 2, 18), newText: 'env B = CartPole {}' },
    ]);
  });

  test('the canonical layout whatever the editor\'s tab size and insertSpaces (Neovim, Eglot defaults)', async () => {
    const { uri } = await openAt('algorithm T = PPO {\nepochs: 4\n}\n<|>');
    const expected = [{ range: range(1, 0, 2, 0), newText: '  epochs: 4\n' }];
    for (const odd of [{ tabSize: 8, insertSpaces: false }, { tabSize: 0, insertSpaces: true }, { tabSize: -1, insertSpaces: true }, { tabSize: 2.5, insertSpaces: true }, { tabSize: 30000, insertSpaces: true }]) {
      const started = Date.now();
      assert.deepEqual(await client.request<TextEdit[]>('textDocument/formatting', { textDocument: { uri }, options: odd }), expected, JSON.stringify(odd));
      assert.deepEqual(await client.request<TextEdit[]>('textDocument/rangeFormatting', { textDocument: { uri }, range: range(0, 0, 2, 1), options: odd }), expected, JSON.stringify(odd));
      assert.ok(Date.now() - started < 2000, `formatting with ${JSON.stringify(odd)} took ${Date.now() - started} ms`);
    }
  });
});

describe('code actions', () => {
  test('quick fixes of the diagnostic under the cursor', async () => {
    const { uri } = await openAt('env Pole = CartPole { max_stepz: 500 }\n<|>');
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: range(0, 22, 0, 22), context: { diagnostics: [] } });
    assert.deepEqual(actions.map((a) => [a.title, a.kind, a.isPreferred, a.diagnostics?.map((d) => d.code), a.edit]), [
      ["Change to 'max_steps'", 'quickfix', true, ['unknown-property'], { changes: { [uri]: [{ range: range(0, 22, 0, 31), newText: 'max_steps' }] } }],
      ["Remove 'max_stepz'", 'quickfix', false, ['unknown-property'], { changes: { [uri]: [{ range: range(0, 21, 0, 36), newText: '' }] } }],
    ]);
  });
});

describe('inlay hints', () => {
  test('defaults not written in the source, on and off through the configuration', async () => {
    const ask = () => client.request<InlayHint[]>('textDocument/inlayHint', { textDocument: { uri: main }, range: range(0, 0, 5, 0) });
    assert.deepEqual((await ask()).map((h) => [h.position, h.label]), [[{ line: 2, character: 20 }, 'defaults: shared_trunk false, core none']]);
    await client.configure({ inlayHints: { defaults: false } });
    assert.deepEqual(await ask(), []);
    await client.configure({ inlayHints: { defaults: true } });
    assert.equal((await ask()).length, 1);
  });
});

describe('signature help', () => {
  test('inside a schedule call: its parameters, the active one', async () => {
    const { uri, position } = await openAt('algorithm A = PPO {\n  learning_rate: linear(1e-3, <|>\n}\n');
    const help = await client.request<SignatureHelp>('textDocument/signatureHelp', { textDocument: { uri }, position });
    assert.equal(help.signatures[0].label, 'linear(from, to, over = 1)');
    assert.deepEqual(help.signatures[0].parameters?.map((p) => p.label), [[7, 11], [13, 15], [17, 25]]);
    assert.equal(help.activeParameter, 1);
  });
});

describe('rlx requests', () => {
  test('rlx/experiments: the experiments of a document, with ranges and whether they are clean', async () => {
    assert.deepEqual(await client.request('rlx/experiments', { textDocument: { uri: main } }), [
      { name: 'Balance', kind: 'experiment', range: range(17, 0, 22, 1), nameRange: rangeOf(MAIN, 'Balance'), clean: true, errors: 0, unsupported: [] },
    ]);
  });

  test('rlx/plan: the plan of an experiment, or why there is none', async () => {
    const planned = await client.request<{ ok: true; plans: { experiment: string; env: { name: string }; stages: { algorithm: { name: string; params: { clip: unknown } } }[] }[] }>(
      'rlx/plan', { textDocument: { uri: main }, name: 'Balance' });
    assert.equal(planned.ok, true);
    assert.deepEqual(planned.plans.map((p) => [p.experiment, p.env.name, p.stages[0].algorithm.name, p.stages[0].algorithm.params.clip]), [
      ['Balance', 'Pole', 'Fast', { schedule: 'constant', value: 0.3 }],
    ]);
    assert.deepEqual(await client.request('rlx/plan', { textDocument: { uri: main }, name: 'Nope' }), {
      ok: false, error: "main.rlx has no experiment or sweep 'Nope'; it has: Balance",
    });
  });
});
