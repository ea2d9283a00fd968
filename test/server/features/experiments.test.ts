import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { experiments, planFor } from '../../../server/features/experiments.js';
import { fixture, textAt } from './fixture.js';
import { algorithmSpec } from '../../../dsl/schema/index.js';

const CARTPOLE = 'env Pole = CartPole\npolicy Actor = mlp\nalgorithm Tuned = PPO { epochs: 8 }\n';

describe('experiments of a document', () => {
  it('experiments and sweeps with their ranges; clean when the import closure has no errors', () => {
    const f = fixture(`${CARTPOLE}experiment Balance { env: Pole, policy: Actor, algorithm: Tuned, budget: 1k }\nsweep Scan over Balance { seeds: [1, 2] }`);
    const found = experiments(f.doc);
    assert.deepEqual(found.map((e) => [e.name, e.kind, e.clean, e.errors, textAt(f.doc, e.nameRange)]), [
      ['Balance', 'experiment', true, 0, 'Balance'],
      ['Scan', 'sweep', true, 0, 'Scan'],
    ]);
    assert.equal(textAt(f.doc, found[1].range), 'sweep Scan over Balance { seeds: [1, 2] }');
  });

  it('an error in an imported file makes them unclean; one in an unrelated file does not', () => {
    const f = fixture({
      'main.rlx': 'import "./parts.rlx"\nexperiment Balance { env: Pole, policy: Actor, algorithm: Tuned, budget: 1k }',
      'parts.rlx': `${CARTPOLE}algorithm Broken = PPO { gamma: 2 }`,
      'elsewhere.rlx': 'env Bad = Nowhere',
    });
    assert.deepEqual(experiments(f.doc).map((e) => [e.name, e.clean, e.errors]), [['Balance', false, 1]]);
    const g = fixture({ 'main.rlx': `${CARTPOLE}experiment Balance { env: Pole, policy: Actor, algorithm: Tuned, budget: 1k }`, 'elsewhere.rlx': 'env Bad = Nowhere' });
    assert.deepEqual(experiments(g.doc).map((e) => [e.name, e.clean]), [['Balance', true]]);
  });
});

describe('what the trainer would refuse', () => {
  // Nothing the language declares is left unrun by the trainer today; these tests mark a
  // built-in as not implemented for their duration, as the registry would.
  const withDqnNotImplemented = (run: () => void) => {
    const dqn = algorithmSpec('DQN')!;
    dqn.notImplemented = 'a reason';
    try {
      run();
    } finally {
      delete dqn.notImplemented;
    }
  };

  it('a clean experiment the trainer cannot run says why (the checker\'s warning), and one it can run says nothing', () => withDqnNotImplemented(() => {
    const f = fixture(`${CARTPOLE}experiment Staged {\n  env: Pole\n  policy: Actor\n  stage warm = DQN { budget: 1k }\n  stage main = DQN { budget: 1k }\n}\nexperiment Balance { env: Pole, policy: Actor, algorithm: Tuned, budget: 1k }\nsweep Scan over Staged { seeds: [1, 2] }`);
    const found = experiments(f.doc);
    assert.deepEqual(found.map((e) => [e.name, e.clean, e.unsupported]), [
      ['Staged', true, ['algorithm DQN is not implemented in the trainer yet (`rlx train` will refuse it): a reason']],
      ['Balance', true, []],
      ['Scan', true, ['algorithm DQN is not implemented in the trainer yet (`rlx train` will refuse it): a reason']],
    ]);
  }));

  it('follows what the experiment names, in other files too', () => withDqnNotImplemented(() => {
    const f = fixture({
      'main.rlx': 'import "./parts.rlx"\nexperiment Steady = Base { seeds: [2] }\nexperiment Fine { env: Pole, policy: Actor, algorithm: PPO, budget: 1k }',
      'parts.rlx': 'env Pole = CartPole\npolicy Actor = mlp\nalgorithm Q = DQN { double: true }\nexperiment Base { env: Pole, policy: Actor, algorithm: Q, budget: 1k }\n',
    });
    const found = experiments(f.doc);
    assert.equal(found[0].clean, true);
    assert.match(found[0].unsupported.join('\n'), /algorithm DQN is not implemented in the trainer yet/);
    assert.deepEqual(found[1].unsupported, []);
  }));
});

describe('the plan of an experiment', () => {
  it('compiles an experiment (defaults filled, bases merged)', () => {
    const f = fixture({ 'main.rlx': `${CARTPOLE}experiment Balance { env: Pole, policy: Actor, algorithm: Tuned, budget: 1k }`, 'elsewhere.rlx': 'env Bad = Nowhere' });
    const result = planFor(f.doc, 'Balance');
    assert.ok(result.ok, result.ok ? '' : result.error);
    assert.equal(result.plans.length, 1);
    const [plan] = result.plans;
    assert.equal(plan.experiment, 'Balance');
    assert.equal(plan.stages[0].algorithm.params.epochs, 8);
    assert.equal(plan.stages[0].algorithm.params.gamma, 0.99);
  });

  it('a sweep: one plan per point', () => {
    const f = fixture(`${CARTPOLE}experiment Balance { env: Pole, policy: Actor, algorithm: Tuned, budget: 1k }\nsweep Scan over Balance { algorithm.gamma: [0.9, 0.99] }`);
    const result = planFor(f.doc, 'Scan');
    assert.ok(result.ok);
    assert.equal(result.plans.length, 2);
  });

  it('says why there is no plan', () => {
    const broken = fixture(`${CARTPOLE}experiment Balance { env: Pole, policy: Actor, algorithm: Tuned }`);
    // The hint names the file by the path the check was given (here the document's absolute path).
    assert.deepEqual(planFor(broken.doc, 'Balance'), { ok: false, error: `main.rlx has 1 error; fix it first (rlx check ${broken.doc.unit.path})` });
    const f = fixture(`${CARTPOLE}experiment Balance { env: Pole, policy: Actor, algorithm: Tuned, budget: 1k }`);
    const missing = planFor(f.doc, 'Nope');
    assert.equal(missing.ok, false);
    assert.match(missing.ok ? '' : missing.error, /no experiment or sweep 'Nope'; it has: Balance/);
  });
});
