import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { definition } from '../../../server/features/definition.js';
import type { Sources } from '../../helpers/source.js';
import { fixture } from './fixture.js';

/** The definitions of what is at `$0` are exactly the ⟦ ⟧ ranges of `file` (default: the cursor's file). */
function check(source: Sources, file?: string): void {
  const f = fixture(source);
  const expected = file === undefined ? f.marks().map((range) => ({ uri: f.doc.uri, range })) : f.marks(file).map((range) => ({ uri: f.uri(file), range }));
  assert.deepEqual(definition(f.doc, f.cursor), expected);
}

describe('go to definition', () => {
  it('a reference goes to the declaration\'s name', () => {
    check('env ⟦Pole⟧ = CartPole\nexperiment E { env: Po$0le }');
    check('env ⟦Pole⟧ = CartPole\nexperiment E { env: Pole$0 }');
  });

  it('into an imported file', () => {
    check({ 'main.rlx': 'import "./envs.rlx"\nexperiment E { env: $0Pole }', 'envs.rlx': '// shared\nenv ⟦Pole⟧ = CartPole' }, 'envs.rlx');
  });

  it('a base name, a sweep\'s experiment, a stage\'s algorithm', () => {
    check('algorithm ⟦Tuned⟧ = PPO\nalgorithm Fast = Tu$0ned');
    check('experiment ⟦Balance⟧ { }\nsweep S over Bal$0ance { seeds: [1] }');
    check('algorithm ⟦G⟧ = GRPO\nexperiment E { stage main = $0G { budget: 1k } }');
  });

  it('a declaration\'s own name is its definition', () => {
    check('algorithm ⟦Tu$0ned⟧ = PPO');
  });

  it('a property goes to the statement it overrides, in the nearest base that sets it', () => {
    check('algorithm A = PPO { ⟦epochs⟧: 4 }\nalgorithm B = A { gamma: 0.9 }\nalgorithm C = B { epo$0chs: 8 }');
    check('algorithm A = PPO { epochs: 4 }\nalgorithm B = A { ⟦epochs⟧: 6 }\nalgorithm C = B { epo$0chs: 8 }');
  });

  it('across files, and for block members', () => {
    check({ 'main.rlx': 'import "./base.rlx"\nexperiment E = Base { budget$0: 5k }', 'base.rlx': 'experiment Base {\n  ⟦budget⟧: 10k\n}' }, 'base.rlx');
    check({ 'main.rlx': 'import "./base.rlx"\nexperiment E = Base { eval { ev$0ery: 5k } }', 'base.rlx': 'experiment Base {\n  eval { ⟦every⟧: 10k }\n}' }, 'base.rlx');
  });

  it('a sweep path goes to the statement in effect in the experiment\'s algorithm', () => {
    check('algorithm T = PPO { ⟦learning_rate⟧: 1e-3 }\nexperiment B { algorithm: T }\nsweep S over B { algorithm.learning_$0rate: [1e-4] }');
  });

  it('a term goes to the term of the base reward it replaces', () => {
    check('reward Base { term ⟦alive⟧ = 1.0 }\nreward R = Base { term al$0ive = 2.0 }');
  });

  it('an import goes to its file', () => {
    const f = fixture({ 'main.rlx': 'import "./en$0vs.rlx"', 'envs.rlx': 'env Pole = CartPole' });
    assert.deepEqual(definition(f.doc, f.cursor), [{ uri: f.uri('envs.rlx'), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } }]);
  });

  it('built-ins and properties set nowhere else have no location', () => {
    check('algorithm X = PP$0O');
    check('algorithm X = PPO { epo$0chs: 4 }');
    check('reward R { term a = ab$0s(obs.x) }');
    check('experiment E { env: Nowhere$0 }');
  });
});
