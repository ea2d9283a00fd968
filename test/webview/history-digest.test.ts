// The host's digest of a run's history against the page's own reading of the events: the same
// curves when they fit the budget, a resumed run's history as it stands, logs as the page keeps them.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { EventTail } from '../../runtime/run/event-tail.js';
import { HistoryDigest } from '../../webview/history-digest.js';
import type { HostMessage, RunEvent } from '../../webview/protocol.js';
import { Runs } from '../../webview/shared/runs.js';
import type { RunModel } from '../../webview/shared/run-model.js';
import { fixturesRoot } from './fake-host.js';
import { listRuns } from '../../runtime/run/reader.js';

function page(messages: HostMessage[]): RunModel {
  const runs = new Runs();
  runs.apply({ type: 'runs', runs: [{ id: 'r', experiment: 'E', runId: 'r', state: 'finished' }] });
  for (const m of messages) runs.apply(m);
  return runs.get('r')!;
}

/** Each series of a table as (step, value) pairs of its points. */
function series(run: RunModel, table: 'metrics' | 'episodes'): Record<string, [number, number, number][]> {
  const t = run[table];
  return Object.fromEntries(
    t
      .keys()
      .sort()
      .map((key) => [key, Array.from(t.values(key)).flatMap((v, i): [number, number, number][] => (Number.isFinite(v) ? [[t.steps.get(i), t.times.get(i), v]] : []))]),
  );
}

test('every fixture run: the streamed digest gives the page the series the events give it', async () => {
  const runs = listRuns(fixturesRoot());
  assert.ok(runs.length >= 10);
  for (const info of runs) {
    const file = path.join(info.dir, 'events.jsonl');
    const old = new EventTail(file);
    const direct = page([{ type: 'events', runId: 'r', events: old.poll(), reset: true }]);
    const tail = new EventTail(file);
    const digest = new HistoryDigest('r');
    const messages: HostMessage[] = [];
    // Small pieces, and messages between them, as a long history is posted while it is read.
    await tail.read(
      (events) => {
        digest.add(events);
        messages.push(...digest.messages());
      },
      { chunkBytes: 4096 },
    );
    const streamed = page(messages);
    const name = path.relative(fixturesRoot(), info.dir);
    for (const table of ['metrics', 'episodes'] as const) assert.deepEqual(series(streamed, table), series(direct, table), `${name} ${table}`);
    assert.deepEqual(streamed.evals, direct.evals, name);
    assert.deepEqual(streamed.logs, direct.logs, name);
    assert.deepEqual(streamed.rollouts, direct.rollouts, name);
    assert.deepEqual(streamed.stages, direct.stages, name);
    assert.deepEqual(streamed.curriculum, direct.curriculum, name);
    assert.deepEqual(streamed.hparams, direct.hparams, name);
    assert.equal(streamed.lastStatusEvent?.status, direct.lastStatusEvent?.status, name);
    assert.equal(streamed.startTime, direct.startTime, name);
    assert.equal(streamed.step, direct.step, name);
    assert.equal(streamed.trainingEpisodes(), direct.trainingEpisodes(), name);
    assert.equal(tail.skipped, old.skipped, name);
  }
});

test('a resumed run: the later events of a repeated step count, on the host as on the page', () => {
  const m = (step: number, a: number): RunEvent => ({ type: 'metrics', step, time: step, values: { a } });
  const events: RunEvent[] = [m(1, 1), m(2, 2), m(3, 3), { type: 'status', step: 1, time: 4, status: 'running', pid: 2, resumed: true }, m(2, 20), m(3, 30), m(2, 200)];
  const digest = new HistoryDigest('r');
  const messages: HostMessage[] = [];
  for (const e of events) {
    digest.add([e]);
    messages.push(...digest.messages());
  }
  const direct = page([{ type: 'events', runId: 'r', events, reset: true }]);
  assert.deepEqual(series(page(messages), 'metrics'), series(direct, 'metrics'));
  assert.deepEqual(Array.from(page(messages).metrics.values('a')), [1, 200]);
});

test('a million log lines cost the page what it keeps of them, the last 200', () => {
  const digest = new HistoryDigest('r');
  for (let i = 0; i < 100_000; i++) digest.add([{ type: 'log', step: i, time: i, level: i === 99_950 ? 'error' : 'info', message: `line ${i}` }]);
  const [events] = digest.messages();
  assert.ok(events.type === 'events' && events.events.length <= 400, `${events.type === 'events' && events.events.length} events`);
  const run = page([events]);
  assert.equal(run.logs.length, 200);
  assert.equal(run.logs.at(-1)?.message, 'line 99999');
  assert.equal(run.error, 'line 99950');
});
