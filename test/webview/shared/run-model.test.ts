// A run's events folded into columns, as readers must read them: later events win after a
// resume, nulls are missing values, and status.json fills in what the events lack.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunEvent } from '../../../webview/protocol.js';
import { curriculumLines, RunModel } from '../../../webview/shared/run-model.js';

const metrics = (step: number, values: Record<string, number | null>): RunEvent => ({ type: 'metrics', step, time: 1000 + step / 100, values: values as Record<string, number> });
const episode = (step: number, ret: number): RunEvent => ({ type: 'episode', step, time: 1000 + step / 100, env: 0, return: ret, length: ret });

function model(): RunModel {
  return new RunModel({ id: 'E/r', experiment: 'E', runId: 'r', state: 'running' });
}

test('a key an update does not log, or logs as null, is a missing value there', () => {
  const run = model();
  run.addEvents([metrics(512, { a: 1 }), metrics(1024, { a: null, b: 2 }), metrics(1536, { a: 3 })]);
  assert.deepEqual(Array.from(run.metrics.values('a')), [1, NaN, 3]);
  assert.deepEqual(Array.from(run.metrics.values('b')), [NaN, 2, NaN]);
  assert.equal(run.metrics.latest('a'), 3);
  assert.equal(run.metrics.latest('b'), 2);
});

test('after a crash and a resume, the repeated steps are the ones that count', () => {
  const run = model();
  run.addEvents([metrics(512, { a: 1 }), episode(512, 10), metrics(1024, { a: 2 }), episode(1024, 11), metrics(1536, { a: 3 }), episode(1536, 12)]);
  const revision = run.metrics.revision;
  // Resumed from the checkpoint at 512: everything after it is written again.
  run.addEvents([{ type: 'status', step: 512, time: 2000, status: 'running', pid: 2, resumed: true }, metrics(1024, { a: 20 }), episode(1024, 21)]);
  assert.deepEqual(Array.from(run.metrics.steps.values.subarray(0, run.metrics.length)), [512, 1024]);
  assert.deepEqual(Array.from(run.metrics.values('a')), [1, 20]);
  assert.deepEqual(Array.from(run.episodes.values('return')), [10, 21]);
  assert.ok(run.metrics.revision > revision, 'charts are told to start over');
});

test('a repeated step without a resume event also replaces what followed it', () => {
  const run = model();
  run.addEvents([metrics(512, { a: 1 }), metrics(1024, { a: 2 }), metrics(1024, { a: 5 })]);
  assert.deepEqual(Array.from(run.metrics.values('a')), [1, 5]);
});

test('columns append like the events they stand for', () => {
  const byEvents = model();
  const events = [metrics(512, { a: 1, b: 2 }), metrics(1024, { a: 3 })];
  byEvents.addEvents(events);
  const byColumns = model();
  byColumns.addColumns('metrics', Float64Array.from([512, 1024]), Float64Array.from([1005.12, 1010.24]), { a: Float64Array.from([1, 3]), b: Float64Array.from([2, NaN]) });
  assert.deepEqual(Array.from(byColumns.metrics.values('a')), Array.from(byEvents.metrics.values('a')));
  assert.deepEqual(Array.from(byColumns.metrics.values('b')), Array.from(byEvents.metrics.values('b')));
  byColumns.addEvents([metrics(1536, { a: 4 })]);
  assert.deepEqual(Array.from(byColumns.metrics.values('a')), [1, 3, 4]);
  assert.deepEqual(Array.from(byColumns.metrics.values('b')), [2, NaN, NaN]);
});

test('status.json fills in what events lack; the error comes from wherever it was written', () => {
  const run = new RunModel({
    id: 'E/r',
    experiment: 'E',
    runId: 'r',
    state: 'failed',
    status: { status: 'failed', pid: 1, experiment: 'E', seed: 4, started: '', updated: '', step: 2048, budget: 4096, metrics: { 'charts/sps': 900 } },
  });
  assert.equal(run.seed, 4);
  assert.equal(run.step, 2048);
  assert.equal(run.latestMetric('charts/sps'), 900);
  assert.equal(run.error, undefined);
  run.addEvents([{ type: 'log', step: 2048, time: 1, level: 'error', message: 'disk full' }]);
  assert.equal(run.error, 'disk full');
  run.addEvents([{ type: 'status', step: 2048, time: 1, status: 'failed', error: 'ENOSPC' }]);
  assert.equal(run.error, 'ENOSPC');
});

test('curriculum advances become lines on the charts, by step or by time; a resume drops those after its checkpoint', () => {
  const run = model();
  const advance = (step: number, value: number, previous: number): RunEvent =>
    ({ type: 'curriculum', step, time: 1000 + step / 100, param: 'env.size', value, previous, message: `env.size ${previous} -> ${value}` });
  run.addEvents([metrics(0, { a: 1 }), advance(1024, 7, 5), advance(2048, 9, 7)]);
  assert.deepEqual(curriculumLines(run, 'step'), { xs: [1024, 2048], labels: ['size 7', 'size 9'] });
  assert.deepEqual(curriculumLines(run, 'time').xs.map((x) => Math.round(x * 100) / 100), [10.24, 20.48], 'seconds since the first event');
  run.addEvents([{ type: 'status', step: 1536, time: 2000, status: 'running', pid: 2, resumed: true }]);
  assert.deepEqual(curriculumLines(run, 'step').xs, [1024]);
});
