// How the comparison table names and orders runs, without a browser (compare.test.ts shows it in one).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nameRun, sortRows, tableCsv, type TableRow, type TableView } from '../../../webview/compare/table.js';

const plan = (name: string, index: number, values: Record<string, unknown>) => ({ sweep: { name, index, count: 4, values } });

function row(id: string, naming: Parameters<typeof nameRun>[0], withExperiment = false): TableRow {
  return { id, ...nameRun(naming, withExperiment), color: '', included: true, seed: String(naming.seed ?? '–'), state: 'finished', hparams: {}, finals: {} };
}

const view = (rows: TableRow[], descending = false): TableView => ({ columns: [{ key: 'run', field: 'run', label: 'run', kind: 'run' }], rows, sort: { key: 'run', descending } });

test('a sweep member is named by what it varies and its seed; a plain run by its id', () => {
  const lr = { 'algorithm.learning_rate': { schedule: 'constant', value: 0.001 } };
  assert.equal(nameRun({ experiment: 'Quick', runId: 'r', seed: 1, plan: plan('LrPair', 0, lr) }, false).label, 'lr=1e-3 · seed 1');
  assert.equal(nameRun({ experiment: 'Quick', runId: 'r', seed: 2, plan: plan('Seeds', 0, {}) }, false).label, 'seed 2', 'a sweep over seeds only');
  assert.equal(nameRun({ experiment: 'Quick', runId: 'r', seed: undefined, plan: plan('LrPair', 1, lr) }, true).label, 'Quick / lr=1e-3');
  assert.equal(nameRun({ experiment: 'Quick', runId: 'r', seed: undefined, plan: plan('Seeds', 0, {}) }, false).label, 'r', 'nothing to name it by: its id');
  assert.equal(nameRun({ experiment: 'Quick', runId: 'r', seed: 1, plan: { sweep: { name: 'S', index: '0', values: {} } } }, false).label, 'r', 'an odd sweep field is no sweep');
  assert.deepEqual(nameRun({ experiment: 'Quick', runId: 'r', seed: 1, plan: { sweep: null } }, true), { label: 'Quick / r', runId: 'Quick / r', order: ['Quick / r'] });
});

test('by run: each sweep by configuration, then seed, whatever the ids; both ways', () => {
  const rows = [
    row('a', { experiment: 'X', runId: '20261126-033359-Lr0-seed1', seed: 1, plan: plan('Lr', 0, { lr: 1 }) }),
    row('b', { experiment: 'X', runId: '20261126-033356-Lr0-seed2', seed: 2, plan: plan('Lr', 0, { lr: 1 }) }),
    row('c', { experiment: 'X', runId: '20261126-033350-Lr10-seed1', seed: 1, plan: plan('Lr', 10, { lr: 3 }) }),
    row('d', { experiment: 'X', runId: '20261126-033351-Lr2-seed1', seed: 1, plan: plan('Lr', 2, { lr: 2 }) }),
    row('e', { experiment: 'X', runId: '20261120-000000-seed1', seed: 1 }),
  ];
  assert.deepEqual(sortRows(view(rows)).map((r) => r.id), ['e', 'a', 'b', 'd', 'c']);
  assert.deepEqual(sortRows(view(rows, true)).map((r) => r.id), ['c', 'd', 'b', 'a', 'e']);
  assert.deepEqual(tableCsv(view(rows)).split('\r\n').slice(0, 3), ['run,run id', '20261120-000000-seed1,20261120-000000-seed1', 'lr=1 · seed 1,20261126-033359-Lr0-seed1']);
  assert.equal(tableCsv(view([rows[4]])).split('\r\n')[0], 'run', 'no id column when every run is named by its id');
});
