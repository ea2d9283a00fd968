// The hyperparameter table of the comparison, from the plans of real fixture runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readPlan } from '../../../runtime/run/reader.js';
import { compactValue, flattenPlan, formatExpr, formatPlanValue, groupRuns, hparamTable } from '../../../webview/compare/hparams.js';
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
      ['lr=3e-4', 2],
      ['lr=3e-3', 2],
    ],
  );
});

test('seeds of one experiment have nothing that differs, and form one group', () => {
  const runs = fixtureRuns('Steady').map(snapshotOf);
  const table = hparamTable(runs.map((r) => ({ id: r.id, plan: r.plan })));
  assert.deepEqual(table.differing, []);
  assert.equal(groupRuns(runs, table).length, 1);
});

test('a text run\'s plan (the Sums fixture): its task call reads as written, with named arguments', () => {
  const flat = flattenPlan(readPlan(fixtureRuns('Sums')[0].dir));
  assert.equal(flat.env, 'TextTask');
  assert.equal(flat['env.task'], 'addition(digits: 1, pad: false)', 'the plan resolves pad to its default');
  assert.equal(flat['warmup.algorithm'], 'SFT');
  assert.equal(flat['warmup.budget'], 'none', 'an SFT stage counts updates, not steps');
  assert.equal(flat['main.algorithm'], 'GRPO');
  assert.equal(flat['main.budget'], '800');
  assert.equal(flat['reward.terms'], '[answer, format]');
});

test('any plan shape flattens without throwing: what is not understood is shown as its JSON', () => {
  const odd: unknown[] = [
    undefined,
    null,
    7,
    'plan',
    [],
    { env: 5, policy: { kind: 'mlp', params: [1, 2] }, stages: 'main', reward: { terms: [null, 3, { name: 'alive' }] }, eval: [1], curriculum: 'x' },
    { stages: [null, { name: 'b', algorithm: 'PPO' }, { algorithm: { kind: 'PPO', params: { lr: { schedule: 'linear' } } } }] },
    { stop: { op: '>=' }, env: { kind: 'TextTask', params: { task: { call: 3 }, other: { call: 'f', args: 'x' }, l: { list: 'no' } } } },
    { future_field: { a: [1, { b: 2 }] } },
  ];
  for (const plan of odd) assert.doesNotThrow(() => flattenPlan(plan), JSON.stringify(plan));
  const flat = flattenPlan(odd[5]);
  assert.equal(flat.env, '5');
  assert.equal(flat.policy, '{"kind":"mlp","params":[1,2]}');
  assert.equal(flat.stages, '"main"');
  assert.equal(flat['reward.terms'], '[null, 3, alive]');
  assert.equal(flat.eval, '[1]');
  assert.equal(flattenPlan(odd[6])['stage1.stage'], 'null');
  assert.equal(flattenPlan(odd[6])['b.stage'], '{"name":"b","algorithm":"PPO"}');
  assert.equal(flattenPlan(odd[6])['stage3.algorithm.lr'], '{"schedule":"linear"}');
  assert.equal(flattenPlan(odd[7]).stop, '{"op":">="}');
  assert.equal(flattenPlan(odd[7])['env.task'], '{"call":3}');
  assert.equal(flattenPlan(odd[8]).future_field, '{"a":[1,{"b":2}]}');
  assert.deepEqual(flattenPlan('plan'), { plan: '"plan"' });
});

test('values in labels: small numbers with their magnitude (3e-4), others as in the table', () => {
  assert.deepEqual(['0.0003', '0.00025', '0.003', '0.5', '64', '0', 'linear(0.00025 → 0)', 'tanh'].map(compactValue), ['3e-4', '2.5e-4', '3e-3', '0.5', '64', '0', 'linear(0.00025 → 0)', 'tanh']);
});
