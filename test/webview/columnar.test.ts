// A long history posted as columns reads back exactly as the events it came from.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foldHistory } from '../../webview/columnar.js';
import type { HostMessage, RunEvent } from '../../webview/protocol.js';
import { RunModel } from '../../webview/shared/run-model.js';
import { eventsOf, fixtureRuns } from './fake-host.js';

function apply(messages: HostMessage[]): RunModel {
  const run = new RunModel({ id: 'r', experiment: 'E', runId: 'r', state: 'finished' });
  for (const m of messages) {
    if (m.type === 'events') run.addEvents(m.events);
    if (m.type === 'columns') run.addColumns(m.table, m.steps, m.times, m.columns);
  }
  return run;
}

test('the columns of a real run hold what its events hold', () => {
  const events = eventsOf(fixtureRuns('Steady')[0]);
  const messages = foldHistory('r', events, 0);
  assert.deepEqual(
    messages.map((m) => m.type),
    ['events', 'columns', 'columns'],
  );
  const direct = apply([{ type: 'events', runId: 'r', events }]);
  const folded = apply(messages);
  for (const table of ['metrics', 'episodes'] as const) {
    assert.equal(folded[table].length, direct[table].length);
    assert.deepEqual(folded[table].keys().sort(), direct[table].keys().sort());
    for (const key of direct[table].keys()) assert.deepEqual(Array.from(folded[table].values(key)), Array.from(direct[table].values(key)), `${table} ${key}`);
  }
  assert.equal(folded.evals.length, direct.evals.length);
  assert.equal(folded.hparams?.device, 'cpu');
});

test('a resumed run folds to the history as it stands (the later events of a step)', () => {
  const m = (step: number, a: number): RunEvent => ({ type: 'metrics', step, time: step, values: { a } });
  const events: RunEvent[] = [m(1, 1), m(2, 2), m(3, 3), { type: 'status', step: 1, time: 4, status: 'running', pid: 2, resumed: true }, m(2, 20), m(3, 30)];
  const folded = apply(foldHistory('r', events, 0));
  assert.deepEqual(Array.from(folded.metrics.values('a')), [1, 20, 30]);
});

test('a short history stays one events message', () => {
  const events = eventsOf(fixtureRuns('Steady')[0]);
  assert.deepEqual(
    foldHistory('r', events).map((m) => m.type),
    ['events'],
  );
});
