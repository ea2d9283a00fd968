// The CSV that "Export Metrics as CSV…" writes from a run's events.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { metricsCsv } from '../../../extension/runs/metrics-csv.js';
import type { RunEvent } from '../../../runtime/run/reader.js';

const time = Date.parse('2026-11-26T00:00:00.000Z');

test('one row per logged step, a column per scalar metric (training and evaluation), sorted', () => {
  const events: RunEvent[] = [
    { type: 'status', time, step: 0, status: 'running' },
    { type: 'metrics', time, step: 128, values: { 'losses/policy': 0.5, 'charts/sps': 900 } },
    { type: 'metrics', time, step: 256, values: { 'losses/policy': 0.25, 'charts/sps': 1000, 'train/mean_return': 21 } },
    { type: 'eval', time, step: 256, values: { 'eval/mean_return': 30 }, returns: [30] } as unknown as RunEvent,
  ];
  assert.equal(
    metricsCsv(events),
    'step,charts/sps,eval/mean_return,losses/policy,train/mean_return\n128,900,,0.5,\n256,1000,30,0.25,21\n',
  );
});

test('a step logged again after a resume keeps the later values; odd numbers and names survive', () => {
  const events = [
    { type: 'metrics', time, step: 64, values: { a: 1 } },
    { type: 'metrics', time, step: 128, values: { a: 2 } },
    { type: 'metrics', time, step: 128, values: { a: 3, 'x,"y"': Number.NaN, b: Number.POSITIVE_INFINITY } },
  ] as unknown as RunEvent[];
  assert.equal(metricsCsv(events), 'step,a,b,"x,""y"""\n64,1,,\n128,3,inf,NaN\n');
});

test('a run with no metrics yet: the header alone', () => {
  assert.equal(metricsCsv([]), 'step\n');
});
