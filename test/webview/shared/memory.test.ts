// A run's measured peak memory beside the estimate it was checked against: the line across the
// peak's chart, and the header's words; nothing of either for a run without an estimate.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunEvent } from '../../../webview/protocol.js';
import { estimateLines, memoryEstimate, memorySummary } from '../../../webview/shared/memory.js';
import { RunModel } from '../../../webview/shared/run-model.js';
import { eventsOf, fixtureRuns, snapshotOf } from '../fake-host.js';

const GiB = 2 ** 30;

/** The Measured fixture's run: a text run with the memory figures of a pretrained one. */
function measured(transform: (e: RunEvent) => RunEvent = (e) => e): RunModel {
  const info = fixtureRuns('Measured')[0];
  const run = new RunModel(snapshotOf(info));
  run.addEvents(eventsOf(info).map(transform));
  return run;
}

const withoutEstimate = (e: RunEvent): RunEvent => {
  if (e.type !== 'hparams') return e;
  const { memory_estimate_bytes: _, ...values } = e.values;
  return { ...e, values };
};

test('the estimate from the hparams becomes a labelled line on the peak\'s chart, and on no other', () => {
  const run = measured();
  assert.equal(memoryEstimate(run), 5.5 * GiB);
  assert.deepEqual(estimateLines(run, 'memory/peak_rss_bytes'), { ys: [5.5 * GiB], labels: ['estimate 5.5 GiB'] });
  assert.equal(estimateLines(run, 'losses/sft_loss'), undefined);
});

test('the header reads the latest peak against the estimate', () => {
  const run = measured();
  assert.equal(run.metrics.latest('memory/peak_rss_bytes'), Math.round((6.3 * GiB) / 1024) * 1024, 'the fixture peaks at 6.3 GiB');
  assert.equal(memorySummary(run), 'memory: peak 6.3 GiB, estimate 5.5 GiB (1.15x)');
  // Two updates in: the peak so far, not the last one's of the file.
  const early = new RunModel({ id: 'M/r', experiment: 'M', runId: 'r', state: 'running' });
  early.addEvents([
    { type: 'hparams', step: 0, time: 1, algorithm: 'GRPO', values: { memory_estimate_bytes: 4 * GiB } },
    { type: 'metrics', step: 16, time: 2, values: { 'memory/peak_rss_bytes': 3 * GiB } },
    { type: 'metrics', step: 32, time: 3, values: { 'memory/peak_rss_bytes': 3.5 * GiB } },
  ]);
  assert.equal(memorySummary(early), 'memory: peak 3.5 GiB, estimate 4.0 GiB (0.88x)');
  const started = new RunModel({ id: 'M/r', experiment: 'M', runId: 'r', state: 'running' });
  started.addEvents([{ type: 'hparams', step: 0, time: 1, algorithm: 'GRPO', values: { memory_estimate_bytes: 4 * GiB } }]);
  assert.equal(memorySummary(started), 'memory: estimate 4.0 GiB, no peak measured yet');
});

test('without an estimate (a model trained from scratch, an older run) neither shows, though the peak is logged', () => {
  const run = measured(withoutEstimate);
  assert.ok(run.metrics.has('memory/peak_rss_bytes'));
  assert.equal(memoryEstimate(run), undefined);
  assert.equal(estimateLines(run, 'memory/peak_rss_bytes'), undefined);
  assert.equal(memorySummary(run), '');
  const odd = measured((e) => (e.type === 'hparams' ? { ...e, values: { ...e.values, memory_estimate_bytes: 'big' } } : e));
  assert.equal(memorySummary(odd), '', 'a value that is not a size is no estimate');
});
