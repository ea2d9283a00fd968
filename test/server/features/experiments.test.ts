import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { experiments, planFor } from '../../../server/features/experiments.js';
import { fixture, textAt } from './fixture.js';

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
  it('a clean experiment the trainer cannot run says why (the checker\'s warning), and one it can run says nothing', () => {
    const f = fixture(`${CARTPOLE}experiment Staged {\n  env: Pole\n  policy: Actor\n  stage warm = PPO { budget: 1k }\n  stage main = PPO { budget: 1k }\n}\nexperiment Balance { env: Pole, policy: Actor, algorithm: Tuned, budget: 1k }\nsweep Scan over Staged { seeds: [1, 2] }`);
    const found = experiments(f.doc);
    assert.deepEqual(found.map((e) => [e.name, e.clean, e.unsupported]), [
      ['Staged', true, ['`rlx train` will refuse this: experiments with several stages are implemented for text envs (SFT then GRPO) only']],
      ['Balance', true, []],
      ['Scan', true, ['`rlx train` will refuse this: experiments with several stages are implemented for text envs (SFT then GRPO) only']],
    ]);
  });

  it('follows what the experiment names, in other files too', () => {
    const f = fixture({
      'main.rlx': 'import "./parts.rlx"\nexperiment Guessing = Base { seeds: [2] }\nexperiment Fine { env: Guess, policy: Tiny, algorithm: REINFORCE, budget: 1k }',
      'parts.rlx': 'env Guess = GuessNumber { max_turns: 7 }\nenv Pole = CartPole\npolicy Tiny = transformer\npolicy Actor = mlp\nexperiment Base { env: Pole, policy: Actor, stage a = PPO { budget: 1k }, stage b = PPO { budget: 1k } }\n',
    });
    const found = experiments(f.doc);
    assert.equal(found[0].clean, true);
    assert.match(found[0].unsupported.join('\n'), /several stages/);
    assert.deepEqual(found[1].unsupported, []);
  });
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
    assert.deepEqual(planFor(broken.doc, 'Balance'), { ok: false, error: 'main.rlx has 1 error; fix it first (rlx check main.rlx)' });
    const f = fixture(`${CARTPOLE}experiment Balance { env: Pole, policy: Actor, algorithm: Tuned, budget: 1k }`);
    const missing = planFor(f.doc, 'Nope');
    assert.equal(missing.ok, false);
    assert.match(missing.ok ? '' : missing.error, /no experiment or sweep 'Nope'; it has: Balance/);
  });
});
