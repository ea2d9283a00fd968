// A batch's notification line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { batchProgress } from '../../../extension/training/progress.js';

test('one run: its steps, or that it waits for a slot', () => {
  assert.deepEqual(batchProgress([{ state: 'running', progress: { step: 1500, budget: 3000, runDir: 'r' } }]), { percent: 50, message: '1,500 of 3,000 steps · 50%' });
  assert.deepEqual(batchProgress([{ state: 'running', progress: undefined }]), { percent: 0, message: 'starting · 0%' });
  assert.equal(batchProgress([{ state: 'queued', progress: undefined }]).message, 'waiting for a free slot (rlx.train.maxParallel) · 0%');
});

test('several runs: how many run and wait, ended ones count as done', () => {
  const p = batchProgress([
    { state: 'finished', progress: { step: 3000, budget: 3000, runDir: 'a' } },
    { state: 'running', progress: { step: 500, budget: 1000, runDir: 'b' } },
    { state: 'queued', progress: undefined },
  ]);
  assert.deepEqual(p, { percent: 50, message: '1 running · 1 queued · 50%' });
});
