// The sentences the user reads, and which plans load user code.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Plan } from '../../dsl/compile/plan.js';
import { firstLine, fixErrorsFirst, trainerMissing, untrustedModules } from '../../extension/messages.js';
import { userModules } from '../../extension/trust.js';

test('errors first, with the count', () => {
  assert.equal(fixErrorsFirst('Balance', 2), 'Cannot train Balance: fix the 2 errors first.');
  assert.equal(fixErrorsFirst('Balance', 1), 'Cannot train Balance: fix the 1 error first.');
});

test('Restricted Mode names the modules and the way out', () => {
  assert.equal(
    untrustedModules('Mine', ['envs/my_env.ts']),
    'Cannot train Mine in Restricted Mode: its environment loads user code (envs/my_env.ts), which would run with your permissions. Trust this workspace to train it.',
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

test('user modules come from env modules of the plans, once each', () => {
  const plan = (kind: string, module?: string) => ({ env: { name: 'E', kind, params: {}, module } }) as unknown as Plan;
  assert.deepEqual(userModules([plan('CartPole'), plan('module', 'my_env.ts'), plan('module', 'my_env.ts')]), ['my_env.ts']);
  assert.deepEqual(userModules([plan('CartPole')]), []);
});
