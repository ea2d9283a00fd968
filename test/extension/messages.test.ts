// The sentences the user reads, and which plans load user code.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Plan } from '../../dsl/compile/plan.js';
import { batchEnded, cannotTrainLens, failureReport, firstLine, fixErrorsFirst, trainerMissing, untrustedModules } from '../../extension/messages.js';
import { userModules } from '../../extension/trust.js';

test('errors first, with the count', () => {
  assert.equal(fixErrorsFirst('Balance', 2), 'Cannot train Balance: fix the 2 errors first.');
  assert.equal(fixErrorsFirst('Balance', 1), 'Cannot train Balance: fix the 1 error first.');
});

test('Restricted Mode names the modules and the way out', () => {
  assert.equal(
    untrustedModules('Mine', ['envs/my_env.ts']),
    'Cannot train Mine in Restricted Mode: it loads user code (envs/my_env.ts), which would run with your permissions. Trust this workspace to train it.',
  );
  // A Python env runs the workspace's interpreter and packages: said as such.
  assert.equal(
    untrustedModules('Cart', ['gymnasium("CartPole-v1")', 'envs/reacher.py', 'learners/mine.ts']),
    'Cannot train Cart in Restricted Mode: it runs the workspace\'s Python (gymnasium("CartPole-v1"), envs/reacher.py) and loads user code (learners/mine.ts), which would run with your permissions. Trust this workspace to train it.',
  );
});

test('a missing trainer: the bundled one or the setting', () => {
  assert.match(trainerMissing('/ext/dist/rlx.mjs', true), /Reinstall the extension/);
  assert.match(trainerMissing('/x/rlx', false), /^The rlx trainer was not found at \/x\/rlx\. Fix the setting rlx\.trainer\.path/);
});

test('notifications show the first line of a message, shortened', () => {
  assert.equal(firstLine('\ntraining failed: x\nthe run directory ...'), 'training failed: x');
  assert.equal(firstLine('a'.repeat(400)).length, 300);
});

test('user modules come from env modules and learner modules of the plans, once each', () => {
  const plan = (kind: string, module?: string, learner?: string) => ({
    env: { name: 'E', kind, params: {}, module },
    stages: [{ name: 'main', budget: 1, algorithm: learner ? { name: 'Mine', kind: 'module', params: {}, module: learner } : { name: 'PPO', kind: 'PPO', params: {} } }],
  }) as unknown as Plan;
  assert.deepEqual(userModules([plan('CartPole'), plan('module', 'my_env.ts'), plan('module', 'my_env.ts')]), ['my_env.ts']);
  assert.deepEqual(userModules([plan('CartPole')]), []);
  // A learner module runs in the trainer's process: Restricted Mode refuses it as an env module.
  assert.deepEqual(userModules([plan('TextTask', undefined, 'learners/mine.ts'), plan('module', 'my_env.ts', 'learners/mine.ts')]), ['learners/mine.ts', 'my_env.ts']);
  // Python envs run the workspace's Python (its interpreter, its packages, a class in its files): refused too.
  const python = (params: Record<string, unknown>) => ({ ...plan('gymnasium'), env: { name: 'E', kind: 'gymnasium', params } }) as unknown as Plan;
  assert.deepEqual(userModules([python({ id: 'CartPole-v1' }), python({ file: 'envs/reacher.py', class: 'Reacher' }), python({ id: 'CartPole-v1' })]), ['gymnasium("CartPole-v1")', 'envs/reacher.py']);
});

test('a refused plan: every problem after the colon, and the spec to open (not the trainer setting)', () => {
  const error = 'the plan cannot run here:\n  - DQN does not train on continuous actions (Pendulum)\n  - envs must be a positive whole number, got 0';
  assert.deepEqual(failureReport('Swing', error, 'refused', true), {
    message: 'Training Swing did not start: the plan cannot run here: DQN does not train on continuous actions (Pendulum); envs must be a positive whole number, got 0',
    actions: ['Open Spec', 'Open Log'],
  });
  // A trainer that never ran, or died without a word: then the setting is what to check.
  assert.deepEqual(failureReport('Swing', "the trainer '/x/rlx' was not found", 'start', true).actions, ['Open Log', 'Open Settings']);
  assert.deepEqual(failureReport('Swing', 'the env returned NaN', 'run', true).actions, ['Open Log', 'Open Run']);
});

test('the lens over an experiment the trainer cannot run yet says why', () => {
  const lens = cannotTrainLens(['`rlx train` will refuse this: experiments with several stages are implemented for text envs (SFT then GRPO) only']);
  assert.equal(lens.title, '$(warning) Cannot train yet: experiments with several stages are implemented for text envs (SFT then GRPO) only');
  assert.equal(lens.tooltip, 'experiments with several stages are implemented for text envs (SFT then GRPO) only');
});

test('a stopped run: editor words and a Resume button', () => {
  assert.deepEqual(batchEnded('Long', 0, 1, 1), { message: 'Training Long stopped. It saved a checkpoint: Resume goes on from there.', actions: ['Resume', 'Open Dashboard'] });
  assert.deepEqual(batchEnded('Tiny (3 seeds)', 1, 2, 3).message, 'Training Tiny (3 seeds) stopped (1 finished). The 2 stopped runs saved checkpoints: Resume goes on from there.');
  assert.deepEqual(batchEnded('Tiny', 1, 0, 1), { message: 'Training Tiny finished (1 run).', actions: ['Open Dashboard'] });
  // A label that counts its runs already is not followed by the count again.
  assert.equal(batchEnded('sweep TwoRates (2 runs)', 2, 0, 2).message, 'Training sweep TwoRates (2 runs) finished.');
  assert.equal(batchEnded('Tiny (3 seeds)', 3, 0, 3).message, 'Training Tiny (3 seeds) finished.');
  // The run's dashboard is open already: no button to open it.
  assert.deepEqual(batchEnded('Tiny', 1, 0, 1, true), { message: 'Training Tiny finished (1 run).', actions: [] });
  assert.deepEqual(batchEnded('Long', 0, 1, 1, true).actions, ['Resume']);
});
