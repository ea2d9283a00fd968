// The TextMate grammar, tokenised by the engine VS Code 1.100 itself uses (vscode-textmate and
// vscode-oniguruma, from the code-server the editor tests install): keywords, declaration
// names, numbers with suffixes, strings, comments and doc comments get the scopes themes colour.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/repo.js';
import { codeServerPath } from './harness/code-server.js';

interface Token {
  startIndex: number;
  endIndex: number;
  scopes: string[];
}

type Tokenize = (line: string) => Token[];

/** The little of vscode-textmate and vscode-oniguruma this test uses (their types are not installed). */
interface TextMate {
  INITIAL: unknown;
  Registry: new (options: { onigLib: Promise<unknown>; loadGrammar(scope: string): Promise<unknown> }) => { loadGrammar(scope: string): Promise<Grammar | null> };
  parseRawGrammar(content: string, file: string): unknown;
}
interface Grammar {
  tokenizeLine(line: string, state: unknown): { tokens: Token[]; ruleStack: unknown };
}
interface Oniguruma {
  loadWASM(data: ArrayBuffer): Promise<void>;
  OnigScanner: new (patterns: string[]) => unknown;
  OnigString: new (text: string) => unknown;
}

async function loadGrammar(): Promise<Tokenize | undefined> {
  const bin = codeServerPath(repoRoot());
  if (!bin) return undefined;
  // VS Code's own modules, inside the code-server package (bin -> .../code-server/out/node/entry.js).
  let pkg = path.dirname(fs.realpathSync(bin));
  while (!fs.existsSync(path.join(pkg, 'lib', 'vscode', 'node_modules')) && path.dirname(pkg) !== pkg) pkg = path.dirname(pkg);
  const modules = path.join(pkg, 'lib', 'vscode', 'node_modules');
  const require = createRequire(path.join(modules, 'noop.js'));
  const tm = require('vscode-textmate') as TextMate;
  const onig = require('vscode-oniguruma') as Oniguruma;
  const wasm = fs.readFileSync(path.join(modules, 'vscode-oniguruma', 'release', 'onig.wasm'));
  await onig.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new tm.Registry({
    onigLib: Promise.resolve({ createOnigScanner: (p: string[]) => new onig.OnigScanner(p), createOnigString: (s: string) => new onig.OnigString(s) }),
    loadGrammar: async (scope: string) => (scope === 'source.rlx' ? tm.parseRawGrammar(fs.readFileSync(path.join(repoRoot(), 'syntaxes', 'rlx.tmLanguage.json'), 'utf8'), 'rlx.tmLanguage.json') : null),
  });
  const grammar = await registry.loadGrammar('source.rlx');
  if (!grammar) throw new Error('the rlx grammar did not load');
  let state = tm.INITIAL;
  return (line) => {
    const r = grammar.tokenizeLine(line, state);
    state = r.ruleStack;
    return r.tokens;
  };
}

/** The innermost scope of each token, with its text. */
function scopes(tokenize: Tokenize, line: string): [string, string][] {
  return tokenize(line)
    .map((t): [string, string] => [line.slice(t.startIndex, t.endIndex), t.scopes.at(-1)!])
    .filter(([text]) => text.trim() !== '');
}

test('the rlx grammar colours what the language has', async (t) => {
  const tokenize = await loadGrammar();
  if (!tokenize) {
    t.skip('needs code-server (its vscode-textmate): bash tools/code-server-offline.sh .tmp/code-server');
    return;
  }
  assert.deepEqual(scopes(tokenize, '/// The pole stays up.'), [['///', 'punctuation.definition.comment.rlx'], [' The pole stays up.', 'comment.line.documentation.rlx']]);
  assert.deepEqual(scopes(tokenize, 'import "./cartpole.rlx"'), [['import', 'keyword.control.import.rlx'], ['"', 'punctuation.definition.string.begin.rlx'], ['./cartpole.rlx', 'string.quoted.double.rlx'], ['"', 'punctuation.definition.string.end.rlx']]);
  assert.deepEqual(scopes(tokenize, 'env Pole = CartPole {'), [['env', 'storage.type.env.rlx'], ['Pole', 'entity.name.type.rlx'], ['=', 'keyword.operator.assignment.rlx'], ['CartPole', 'entity.other.inherited-class.rlx'], ['{', 'punctuation.section.braces.rlx']]);
  assert.deepEqual(scopes(tokenize, '  budget: 1.5M   // steps'), [
    ['budget', 'variable.other.property.rlx'], [':', 'punctuation.separator.key-value.rlx'], ['1.5', 'constant.numeric.rlx'], ['M', 'keyword.other.unit.suffix.rlx'],
    ['//', 'punctuation.definition.comment.rlx'], [' steps', 'comment.line.double-slash.rlx'],
  ]);
  assert.deepEqual(scopes(tokenize, '  learning_rate: linear(2.5e-4, 0)'), [
    ['learning_rate', 'variable.other.property.rlx'], [':', 'punctuation.separator.key-value.rlx'], ['linear', 'support.function.rlx'], ['(', 'punctuation.section.parens.rlx'],
    ['2.5e-4', 'constant.numeric.rlx'], [',', 'punctuation.separator.comma.rlx'], ['0', 'constant.numeric.rlx'], [')', 'punctuation.section.parens.rlx'],
  ]);
  assert.deepEqual(scopes(tokenize, '  stop: eval.mean_return >= 475 and not false'), [
    ['stop', 'variable.other.property.rlx'], [':', 'punctuation.separator.key-value.rlx'], ['eval', 'variable.other.object.rlx'], ['.', 'punctuation.accessor.rlx'], ['mean_return', 'variable.other.rlx'],
    ['>=', 'keyword.operator.comparison.rlx'], ['475', 'constant.numeric.rlx'], ['and', 'keyword.operator.logical.rlx'], ['not', 'keyword.operator.logical.rlx'], ['false', 'constant.language.rlx'],
  ]);
  assert.deepEqual(scopes(tokenize, 'sweep LrScan over Balance {').slice(0, 4), [['sweep', 'storage.type.sweep.rlx'], ['LrScan', 'entity.name.type.rlx'], ['over', 'keyword.other.over.rlx'], ['Balance', 'entity.other.inherited-class.rlx']]);
  assert.deepEqual(scopes(tokenize, '  term tilt = -0.1 * abs(next_obs.theta)').slice(0, 5), [['term', 'storage.type.term.rlx'], ['tilt', 'variable.other.member.rlx'], ['=', 'keyword.operator.assignment.rlx'], ['-', 'keyword.operator.arithmetic.rlx'], ['0.1', 'constant.numeric.rlx']]);
  assert.deepEqual(scopes(tokenize, '  hidden: 200kb'), [['hidden', 'variable.other.property.rlx'], [':', 'punctuation.separator.key-value.rlx'], ['200kb', 'invalid.illegal.number.rlx']]);
  assert.deepEqual(scopes(tokenize, 'env Mine = module("./my_env.ts")').slice(0, 4), [['env', 'storage.type.env.rlx'], ['Mine', 'entity.name.type.rlx'], ['=', 'keyword.operator.assignment.rlx'], ['module', 'support.function.rlx']]);
  // A block comment spans lines.
  assert.deepEqual(scopes(tokenize, '/* one'), [['/*', 'punctuation.definition.comment.rlx'], [' one', 'comment.block.rlx']]);
  assert.deepEqual(scopes(tokenize, 'two */'), [['two ', 'comment.block.rlx'], ['*/', 'punctuation.definition.comment.rlx']]);
});
