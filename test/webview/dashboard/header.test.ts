// What the dashboard's header says about a run, at a given moment.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { headerFacts } from '../../../webview/dashboard/header.js';
import type { StatusFile } from '../../../webview/protocol.js';
import { RunModel } from '../../../webview/shared/run-model.js';

const status = (over: Partial<StatusFile>): StatusFile => ({
  status: 'running',
  pid: 7,
  experiment: 'Balance',
  seed: 3,
  started: '2026-11-21T10:00:00.000Z',
  updated: '2026-11-21T10:10:00.000Z',
  step: 100_000,
  budget: 500_000,
  metrics: { 'charts/sps': 1000 },
  ...over,
});
const at = (iso: string) => Date.parse(iso) / 1000;

test('a running run: elapsed to now, ETA from the remaining budget at the current speed', () => {
  const run = new RunModel({ id: 'B/r', experiment: 'Balance', runId: 'r', state: 'running', status: status({}) });
  const facts = headerFacts(run, at('2026-11-21T10:30:00.000Z'));
  assert.equal(facts.state, 'running');
  assert.equal(facts.seed, '3');
  assert.equal(facts.steps, '100k / 500k');
  assert.equal(facts.sps, '1000');
  assert.equal(facts.elapsed, '30m 00s');
  assert.equal(facts.eta, '6m 40s');
  assert.equal(facts.noticeKind, 'none');
});

test('a resumed run: elapsed is training time (status.json training_seconds), not the time it sat stopped', () => {
  // Started a day before, stopped for most of it: 20 minutes of training when status.json was written.
  const resumed = status({ started: '2026-11-20T10:00:00.000Z', updated: '2026-11-21T10:10:00.000Z', training_seconds: 1200 });
  const running = new RunModel({ id: 'B/r', experiment: 'Balance', runId: 'r', state: 'running', status: resumed });
  assert.equal(headerFacts(running, at('2026-11-21T10:10:30.000Z')).elapsed, '20m 30s', 'still counting since the status was written');
  const finished = new RunModel({ id: 'B/r', experiment: 'Balance', runId: 'r', state: 'finished', status: { ...resumed, status: 'finished', ended: '2026-11-21T10:10:00.000Z' } });
  assert.equal(headerFacts(finished, at('2026-11-22T00:00:00.000Z')).elapsed, '20m 00s');
});

test('a crashed run: the clock stopped at its last sign of life, no ETA, and a notice', () => {
  const run = new RunModel({ id: 'B/r', experiment: 'Balance', runId: 'r', state: 'crashed', status: status({}) });
  const facts = headerFacts(run, at('2026-11-22T10:00:00.000Z'));
  assert.equal(facts.elapsed, '10m 00s');
  assert.equal(facts.eta, '–');
  assert.equal(facts.noticeKind, 'error');
  assert.match(facts.notice, /pid 7.*rlx train --resume/);
});

test('a failed run shows its error; a run without status.json says so', () => {
  const failed = new RunModel({ id: 'B/r', experiment: 'Balance', runId: 'r', state: 'failed', status: status({ status: 'failed', error: 'NaN loss', ended: '2026-11-21T10:05:00.000Z' }) });
  assert.equal(headerFacts(failed, 0).notice, 'Training failed: NaN loss');
  assert.equal(headerFacts(failed, 0).elapsed, '5m 00s');
  const unknown = new RunModel({ id: 'B/r', experiment: 'Balance', runId: 'r', state: 'unknown' });
  assert.equal(headerFacts(unknown, 0).state, 'status unknown');
  assert.match(headerFacts(unknown, 0).notice, /status\.json is missing/);
});

test('the returns line: the latest evaluation (deterministic, its episodes) beside the training return over its window', () => {
  const run = new RunModel({ id: 'B/r', experiment: 'Balance', runId: 'r', state: 'finished', status: status({ status: 'finished' }) });
  run.addEvents([
    { type: 'metrics', step: 512, time: 1, values: { 'charts/episodes': 12, 'train/mean_return': 30 } },
    { type: 'eval', step: 512, time: 1, values: { 'eval/mean_return': 42 }, returns: [40, 44], lengths: [40, 44], deterministic: true },
    { type: 'metrics', step: 1024, time: 2, values: { 'charts/episodes': 5, 'train/mean_return': 251.34 } },
    { type: 'eval', step: 1024, time: 2, values: { 'eval/mean_return': 500 }, returns: [500, 500, 500], lengths: [500, 500, 500], deterministic: true },
  ]);
  assert.equal(headerFacts(run, 0).returns, 'eval 500.0 (deterministic, 3 episodes) · train 251.3 (sampled actions, last 17 episodes)');
  const fresh = new RunModel({ id: 'B/r', experiment: 'Balance', runId: 'r', state: 'running', status: status({}) });
  assert.equal(headerFacts(fresh, 0).returns, '', 'nothing before the first episode');
});

test('the memory line: the latest measured peak against the estimate the run was checked against; none without an estimate', () => {
  const GiB = 2 ** 30;
  const run = new RunModel({ id: 'B/r', experiment: 'Balance', runId: 'r', state: 'running', status: status({}) });
  const peaks = [{ type: 'metrics' as const, step: 16, time: 2, values: { 'memory/peak_rss_bytes': 6.1 * GiB } }, { type: 'metrics' as const, step: 32, time: 3, values: { 'memory/peak_rss_bytes': 6.3 * GiB } }];
  run.addEvents([{ type: 'hparams', step: 0, time: 1, algorithm: 'GRPO', values: { seed: 3, memory_estimate_bytes: 5.5 * GiB } }, ...peaks]);
  assert.equal(headerFacts(run, 0).memory, 'memory: peak 6.3 GiB, estimate 5.5 GiB (1.15x)');
  const scratch = new RunModel({ id: 'B/r', experiment: 'Balance', runId: 'r', state: 'running', status: status({}) });
  scratch.addEvents([{ type: 'hparams', step: 0, time: 1, algorithm: 'GRPO', values: { seed: 3 } }, ...peaks]);
  assert.equal(headerFacts(scratch, 0).memory, '');
});
