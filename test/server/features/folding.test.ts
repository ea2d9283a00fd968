import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldingRanges } from '../../../server/features/folding.js';
import { fixture } from './fixture.js';

/** Folding ranges as `start-end kind` (lines from 0). */
function check(source: string, expected: string[]): void {
  const ranges = foldingRanges(fixture(source).doc);
  assert.deepEqual(ranges.map((r) => `${r.startLine}-${r.endLine}${r.kind ? ` ${r.kind}` : ''}`), expected);
}

describe('folding ranges', () => {
  it('bodies and blocks, the closing brace left visible', () => {
    check('experiment E {\n  env: Pole\n  eval {\n    every: 10k\n  }\n}', ['0-4', '2-3']);
  });

  it('a body closed at the end of its last line folds to that line; one-line bodies do not fold', () => {
    check('algorithm A = PPO {\n  epochs: 4 }\nenv B = CartPole { max_steps: 5 }', ['0-1']);
  });

  it('an unclosed body folds to its last member', () => {
    check('algorithm A = PPO {\n  epochs: 4\n  gamma: 0.9', ['0-2']);
  });

  it('lists and calls written over several lines', () => {
    check('experiment E {\n  seeds: [\n    1,\n    2,\n  ]\n  stop: max(\n    eval.mean_return,\n    0) >= 1\n}', ['0-7', '1-3', '5-7']);
  });

  it('runs of line comments (doc comments too), block comments and imports', () => {
    check('import "./a.rlx"\nimport "./b.rlx"\n// one\n// two\n/// doc\nenv A = CartPole // after code\n// alone\n/* a\n  b */', ['0-1 imports', '2-4 comment', '7-8 comment']);
  });
});
