import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver';
import { documentSymbols, workspaceSymbols } from '../../../server/features/symbols.js';
import { fixture, textAt } from './fixture.js';

const kindName = (kind: SymbolKind) => Object.entries(SymbolKind).find(([, value]) => value === kind)?.[0];

/** An outline as indented lines: `kind name: detail`, children indented under their parent. */
function outline(symbols: DocumentSymbol[], depth = 0): string[] {
  return symbols.flatMap((s) => [`${'  '.repeat(depth)}${kindName(s.kind)} ${s.name}${s.detail ? `: ${s.detail}` : ''}`, ...outline(s.children ?? [], depth + 1)]);
}

function check(source: string, expected: string[]): void {
  assert.deepEqual(outline(documentSymbols(fixture(source).doc)), expected);
}

describe('document symbols', () => {
  it('declarations with kind-appropriate symbols, their properties, blocks, terms and stages', () => {
    check([
      'env Pole = CartPole { max_steps: 500 }',
      'policy Actor = mlp',
      'algorithm Tuned = PPO { learning_rate: linear(2.5e-4, 0) }',
      'reward Upright {\n  term alive = 1.0\n  replace_env_reward: true\n}',
      'experiment Balance {\n  env: Pole\n  eval { every: 10k }\n  stage main = SFT { updates: 2k }\n}',
      'sweep Scan over Balance { algorithm.learning_rate: [1e-4, 3e-4] }',
    ].join('\n'), [
      'Class Pole: env = CartPole',
      '  Property max_steps: 500',
      'Struct Actor: policy = mlp',
      'Interface Tuned: algorithm = PPO',
      '  Property learning_rate: linear(2.5e-4, 0)',
      'Function Upright: reward',
      '  Variable alive: term = 1.0',
      '  Property replace_env_reward: true',
      'Module Balance: experiment',
      '  Property env: Pole',
      '  Object eval',
      '    Property every: 10k',
      '  Method main: stage = SFT',
      '    Property updates: 2k',
      'Namespace Scan: sweep over Balance',
      '  Property algorithm.learning_rate: [1e-4, 3e-4]',
    ]);
  });

  it('ranges: the whole declaration, the name selected', () => {
    const f = fixture('algorithm Tuned = PPO {\n  epochs: 4\n}');
    const [tuned] = documentSymbols(f.doc);
    assert.equal(textAt(f.doc, tuned.range), 'algorithm Tuned = PPO {\n  epochs: 4\n}');
    assert.equal(textAt(f.doc, tuned.selectionRange), 'Tuned');
    assert.equal(textAt(f.doc, tuned.children![0].selectionRange), 'epochs');
  });

  it('broken declarations still appear', () => {
    check('algorithm = PPO { epochs: 4 }\nenv Pole = CartPole {', ['Interface (unnamed algorithm): algorithm = PPO', '  Property epochs: 4', 'Class Pole: env = CartPole']);
  });
});

describe('workspace symbols', () => {
  const sources = {
    'main.rlx': 'import "./envs.rlx"\nexperiment Balance { env: Pole }\nexperiment BalanceZoo { env: Pole }',
    'envs.rlx': 'env Pole = CartPole\nenv LongPole = Pole',
  };

  function names(query: string): string[] {
    const f = fixture(sources);
    return workspaceSymbols(f.doc.analysis, query).map((s) => `${s.name} (${s.containerName})`);
  }

  it('all declarations of all analysed files for an empty query', () => {
    assert.deepEqual(names(''), ['Balance (main.rlx)', 'BalanceZoo (main.rlx)', 'LongPole (envs.rlx)', 'Pole (envs.rlx)']);
  });

  it('prefix matches first, then substrings, then letters in order; case ignored', () => {
    assert.deepEqual(names('pole'), ['Pole (envs.rlx)', 'LongPole (envs.rlx)']);
    assert.deepEqual(names('bz'), ['BalanceZoo (main.rlx)']);
    assert.deepEqual(names('xyz'), []);
  });

  it('with the declaration\'s location', () => {
    const f = fixture(sources);
    const [pole] = workspaceSymbols(f.doc.analysis, 'LongPole');
    assert.equal(pole.kind, SymbolKind.Class);
    assert.deepEqual(pole.location, { uri: f.uri('envs.rlx'), range: { start: { line: 1, character: 0 }, end: { line: 1, character: 19 } } });
  });
});
