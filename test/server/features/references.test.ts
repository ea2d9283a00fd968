import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DocumentHighlightKind } from 'vscode-languageserver';
import { documentHighlights } from '../../../server/features/highlight.js';
import { references } from '../../../server/features/references.js';
import { fixture } from './fixture.js';

/** Every ⟦ ⟧ range of every file, as locations, files in the order given: the declaration first. */
function checkReferences(sources: Record<string, string>, includeDeclaration: boolean): void {
  const f = fixture(sources);
  const expected = Object.keys(sources).flatMap((name) => f.marks(name).map((range) => ({ uri: f.uri(name), range })));
  const found = references(f.doc, f.cursor, includeDeclaration);
  const sort = (list: typeof expected) => [...list].sort((a, b) => a.uri.localeCompare(b.uri) || a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  assert.deepEqual(sort(found), sort(expected));
}

const FILES = {
  'envs.rlx': 'env ⟦Pole⟧ = CartPole\nenv Long = ⟦Pole⟧ { max_steps: 1k }',
  'main.rlx': 'import "./envs.rlx"\nexperiment A { env: ⟦Po$0le⟧ }\nexperiment B { env: ⟦Pole⟧ }',
  'other.rlx': 'env Pole = CartPole\nexperiment C { env: Pole }',
};

describe('find references', () => {
  it('in every file that can see the declaration, with the declaration when asked', () => {
    checkReferences(FILES, true);
  });

  it('without the declaration', () => {
    checkReferences({ ...FILES, 'envs.rlx': 'env Pole = CartPole\nenv Long = ⟦Pole⟧ { max_steps: 1k }' }, false);
  });

  it('from the declaration itself', () => {
    checkReferences({ 'main.rlx': 'algorithm ⟦Tu$0ned⟧ = PPO\nalgorithm Fast = ⟦Tuned⟧\nexperiment E { algorithm: ⟦Tuned⟧ }\nsweep S over E { algorithm: [⟦Tuned⟧, Fast] }' }, true);
  });

  it('of a built-in: its uses', () => {
    checkReferences({ 'main.rlx': 'algorithm A = ⟦P$0PO⟧\nalgorithm B = DQN\nexperiment E { algorithm: ⟦PPO⟧ }' }, true);
  });

  it('nothing for what is not a name of a declaration', () => {
    const f = fixture('algorithm A = PPO { epo$0chs: 4 }');
    assert.deepEqual(references(f.doc, f.cursor, true), []);
  });
});

describe('document highlight', () => {
  it('the declaration is written, the uses are read, in this file only', () => {
    const f = fixture({ 'main.rlx': 'env ⟦Pole⟧ = CartPole\nexperiment A { env: ⟦Po$0le⟧ }\nexperiment B = A { env: ⟦Pole⟧ }', 'other.rlx': 'import "./main.rlx"\nexperiment C { env: Pole }' });
    const [declaration, ...uses] = f.marks();
    assert.deepEqual(documentHighlights(f.doc, f.cursor), [
      { range: declaration, kind: DocumentHighlightKind.Write },
      ...uses.map((range) => ({ range, kind: DocumentHighlightKind.Read })),
    ]);
  });

  it('nothing on a property', () => {
    const f = fixture('algorithm A = PPO { epo$0chs: 4 }');
    assert.deepEqual(documentHighlights(f.doc, f.cursor), []);
  });
});
