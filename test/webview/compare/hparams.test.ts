// The hyperparameter table of the comparison, from the plans of real fixture runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readPlan } from '../../../runtime/run/reader.js';
import { flattenPlan, formatExpr, formatPlanValue, groupRuns, hparamTable } from '../../../webview/compare/hparams.js';
import { fixtureRuns, snapshotOf } from '../fake-host.js';

test('a plan flattens to the names a user wrote, schedules in the language’s words', () => {
  const flat = flattenPlan(readPlan(fixtureRuns('Steady')[0].dir));
  assert.equal(flat.env, 'CartPole');
  assert.equal(flat['env.max_steps'], '100');
  assert.equal(flat['policy.hidden'], '[32, 32]');
  assert.equal(flat['algorithm.learning_rate'], 'linear(0.0025 → 0)');
  assert.equal(flat['algorithm.clip'], '0.2');
  assert.equal(flat['reward.terms'], '[alive, centre, tilt]');
  assert.equal(flat['eval.every'], '2048');
  assert.equal(formatPlanValue({ schedule: 'warmup', steps: 100, then: { schedule: 'constant', value: 1 } }), 'warmup(100, then 1)');
  assert.equal(formatExpr({ op: '>=', args: [{ ref: 'eval.mean_return' }, { const: 475 }] }), 'eval.mean_return >= 475');
});

test('a sweep’s members differ in the swept value only, and group by it over seeds', () => {
  const runs = fixtureRuns('Quick').map(snapshotOf);
  const table = hparamTable(runs.map((r) => ({ id: r.id, plan: r.plan })));
  assert.deepEqual(table.differing, ['algorithm.learning_rate']);
  const groups = groupRuns(
    runs.map((r) => ({ id: r.id, experiment: r.experiment, plan: r.plan })),
    table,
  );
  assert.deepEqual(
    groups.map((g) => [g.label, g.runIds.length]),
    [
      ['learning_rate 0.0003', 2],
      ['learning_rate 0.003', 2],
    ],
  );
});

test('seeds of one experiment have nothing that differs, and form one group', () => {
  const runs = fixtureRuns('Steady').map(snapshotOf);
  const table = hparamTable(runs.map((r) => ({ id: r.id, plan: r.plan })));
  assert.deepEqual(table.differing, []);
  assert.equal(groupRuns(runs, table).length, 1);
});
