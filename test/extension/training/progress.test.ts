// A batch's notification line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { batchProgress, resultsSummary, sweepRuns } from '../../../extension/training/progress.js';

test('one run: its steps, or that it waits for a slot', () => {
  assert.deepEqual(batchProgress([{ state: 'running', progress: { step: 1500, budget: 3000, runDir: 'r', run: 0, runs: 1 } }]), { percent: 50, message: '1,500 of 3,000 steps · 50%' });
  assert.deepEqual(batchProgress([{ state: 'running', progress: undefined }]), { percent: 0, message: 'starting · 0%' });
  assert.equal(batchProgress([{ state: 'queued', progress: undefined }]).message, 'waiting for a free slot (rlx.train.maxParallel) · 0%');
});

test('several runs: how many run and wait, ended ones count as done', () => {
  const p = batchProgress([
    { state: 'finished', progress: { step: 3000, budget: 3000, runDir: 'a', run: 0, runs: 1 } },
    { state: 'running', progress: { step: 500, budget: 1000, runDir: 'b', run: 0, runs: 1 } },
    { state: 'queued', progress: undefined },
  ]);
  assert.deepEqual(p, { percent: 50, message: '1 running · 1 queued · 50%' });
});

test('a sweep in one process: one progress over all its runs, counted in runs (it never goes back)', () => {
  const sweep = (run: number, step: number) => batchProgress([{ state: 'running', progress: { step, budget: 1000, runDir: `r${run}`, run, runs: 9 } }]);
  const seen = [sweep(0, 900), sweep(1, 0), sweep(1, 600), sweep(8, 1000)].map((p) => p.percent);
  assert.deepEqual(seen, [10, 11, 17, 100]);
  assert.equal(sweep(3, 500).message, 'run 4 of 9 · 500 of 1,000 steps · 38%');
  // Before its first run starts, it already weighs as many runs.
  assert.equal(batchProgress([{ state: 'running', progress: undefined, runCount: 9 }, { state: 'finished', progress: undefined }]).percent, 10);
});

test('the status bar after runs ended: the one by name, several by count, each in the tooltip', () => {
  assert.equal(resultsSummary([{ label: 'Tiny', state: 'finished' }]).text, '$(check) rlx: Tiny finished');
  const several = resultsSummary([
    { label: 'Tiny seed 1', state: 'finished' },
    { label: 'Tiny seed 2', state: 'finished' },
    { label: 'Tiny seed 3', state: 'stopped' },
  ]);
  assert.equal(several.text, '$(debug-stop) rlx: 2 finished, 1 stopped');
  assert.match(several.tooltip, /^3 runs ended:\nTiny seed 1 finished\nTiny seed 2 finished\nTiny seed 3 stopped\n/);
  assert.equal(resultsSummary([{ label: 'A', state: 'finished' }, { label: 'B', state: 'failed', error: 'NaN\nmore' }]).error, true);
});

test('a sweep counts its runs: members times their seeds ("9 runs", not "3 members")', () => {
  assert.equal(sweepRuns([{ seeds: [1, 2, 3] }, { seeds: [1, 2, 3] }, { seeds: [1, 2, 3] }], 3), 9);
  // A large sweep: the first plans shown stand for the others.
  assert.equal(sweepRuns([{ seeds: [1, 2] }, { seeds: [1, 2] }], 1000), 2000);
});
