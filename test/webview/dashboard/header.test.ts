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
