import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CodeAction, Range } from 'vscode-languageserver';
import { codeActions } from '../../../server/features/code-actions.js';
import { fixture } from './fixture.js';

/**
 * The actions for the ⟦ ⟧ range as `title -> text after applying it`, a `*` marking the
 * preferred one; each action carries the diagnostic it fixes.
 */
function check(source: string, expected: string[], only?: string[]): CodeAction[] {
  const f = fixture(source);
  const [range] = f.marks();
  const actions = codeActions(f.doc, range, only);
  const text = f.doc.unit.text;
  const shown = actions.map((a) => {
    const edits = a.edit?.changes?.[f.doc.uri] ?? [];
    let after = text;
    for (const e of [...edits].sort((x, y) => f.doc.lines.offset(y.range.start) - f.doc.lines.offset(x.range.start))) {
      after = after.slice(0, f.doc.lines.offset(e.range.start)) + e.newText + after.slice(f.doc.lines.offset(e.range.end));
    }
    assert.equal(a.kind, 'quickfix');
    assert.equal(a.diagnostics?.length, 1);
    return `${a.isPreferred ? '* ' : ''}${a.title} -> ${after}`;
  });
  assert.deepEqual(shown, expected);
  return actions;
}

describe('code actions', () => {
  it('did you mean: the one close name is preferred; removing is offered too', () => {
    const [change] = check('algorithm A = PPO { ⟦gama⟧: 0.9 }', [
      "* Change to 'gamma' -> algorithm A = PPO { gamma: 0.9 }",
      "Remove 'gama' -> algorithm A = PPO { }",
    ]);
    assert.equal(change.diagnostics![0].code, 'unknown-property');
    assert.equal(change.diagnostics![0].source, 'rlx');
  });

  it('two equally close names: neither is preferred', () => {
    check('env Pole = CartPole\nenv Poll = CartPole\nexperiment E { env: ⟦Pol⟧, policy: mlp, algorithm: PPO, budget: 1k }', [
      "Change to 'Pole' -> env Pole = CartPole\nenv Poll = CartPole\nexperiment E { env: Pole, policy: mlp, algorithm: PPO, budget: 1k }",
      "Change to 'Poll' -> env Pole = CartPole\nenv Poll = CartPole\nexperiment E { env: Poll, policy: mlp, algorithm: PPO, budget: 1k }",
    ]);
  });

  it('an unknown property with no close name: removal, not preferred', () => {
    check('algorithm A = PPO {\n  epochs: 4\n  ⟦lr⟧: 1e-3\n}', ["Remove 'lr' -> algorithm A = PPO {\n  epochs: 4\n}"]);
  });

  it('clamps an out-of-range value', () => {
    check('algorithm A = PPO { gamma: ⟦1.5⟧ }', ['* Clamp to 1 -> algorithm A = PPO { gamma: 1 }']);
  });

  it('adds missing required properties', () => {
    check('env Pole = CartPole\nexperiment ⟦E⟧ {\n  env: Pole\n}', ['* Add policy, algorithm, budget -> env Pole = CartPole\nexperiment E {\n  env: Pole\n  policy: mlp\n  algorithm: PPO\n  budget: 100k\n}']);
  });

  it('only diagnostics the range touches; a cursor inside one counts', () => {
    check('algorithm A = PPO { gamma: 1.5, ⟦⟧epochs: 4, gama: 1 }', []);
    check('algorithm A = PPO { gamma: 1.⟦⟧5 }', ['* Clamp to 1 -> algorithm A = PPO { gamma: 1 }']);
  });

  it('honours `only`: quick fixes are offered for quickfix (and the empty kind), not for refactorings', () => {
    check('algorithm A = PPO { gamma: ⟦1.5⟧ }', ['* Clamp to 1 -> algorithm A = PPO { gamma: 1 }'], ['quickfix']);
    check('algorithm A = PPO { gamma: ⟦1.5⟧ }', [], ['refactor']);
    check('algorithm A = PPO { gamma: ⟦1.5⟧ }', [], ['source.organizeImports']);
  });

  it('nothing for diagnostics without fixes', () => {
    check('algorithm A = PPO { ⟦epochs⟧: "four" }', []);
  });
});
