import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SelectionRange } from 'vscode-languageserver';
import { selectionRanges } from '../../../server/features/selection.js';
import { fixture, textAt } from './fixture.js';

/** The texts selected by expanding from `$0`, innermost first. */
function check(source: string, expected: string[]): void {
  const f = fixture(source);
  const [first] = selectionRanges(f.doc, [f.cursor]);
  const texts: string[] = [];
  for (let r: SelectionRange | undefined = first; r; r = r.parent) texts.push(textAt(f.doc, r.range));
  assert.deepEqual(texts, expected);
}

describe('selection ranges', () => {
  it('from a number to the call, the property, the body, the declaration, the file', () => {
    const source = '/// Doc.\nalgorithm A = PPO {\n  learning_rate: linear(2.5$0e-4, 0)\n}\n';
    check(source, [
      '2.5e-4',
      'linear(2.5e-4, 0)',
      'learning_rate: linear(2.5e-4, 0)',
      '{\n  learning_rate: linear(2.5e-4, 0)\n}',
      'algorithm A = PPO {\n  learning_rate: linear(2.5e-4, 0)\n}',
      '/// Doc.\nalgorithm A = PPO {\n  learning_rate: linear(2.5e-4, 0)\n}',
      source.replace('$0', ''),
    ]);
  });

  it('a dotted property path selects as a whole', () => {
    check('sweep S over B {\n  algorithm.learn$0ing_rate: [1e-4]\n}', [
      'learning_rate', 'algorithm.learning_rate', 'algorithm.learning_rate: [1e-4]', '{\n  algorithm.learning_rate: [1e-4]\n}', 'sweep S over B {\n  algorithm.learning_rate: [1e-4]\n}',
    ]);
  });

  it('one result per position, in order', () => {
    const f = fixture('env A = CartPole\nenv B = Pendulum');
    const ranges = selectionRanges(f.doc, [{ line: 0, character: 5 }, { line: 1, character: 10 }]);
    assert.deepEqual(ranges.map((r) => textAt(f.doc, r.range)), ['A', 'Pendulum']);
  });
});
