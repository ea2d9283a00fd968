// The lens over an experiment that trains now.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { liveLenses } from '../../../extension/training/live-lens.js';

test('nothing trains: no live lens (Train shows)', () => {
  assert.deepEqual(liveLenses({ runs: [], starting: 0, queued: 0, stopTargets: [] }), []);
});

test('one run: its progress, Stop and its Dashboard', () => {
  const lenses = liveLenses({ runs: [{ dir: '/r/Tiny/a', step: 340, budget: 1000 }], starting: 0, queued: 0, stopTargets: ['/r/Tiny/a'] });
  assert.deepEqual(lenses.map((l) => [l.title, l.command, l.arguments]), [
    ['$(sync~spin) Training 34%', 'rlx.openDashboard', ['/r/Tiny/a']],
    ['$(debug-stop) Stop', 'rlx.stopRun', [['/r/Tiny/a']]],
    ['Dashboard', 'rlx.openDashboard', ['/r/Tiny/a']],
  ]);
});

test('seeds side by side: one progress over all runs, the queued ones counted as not started', () => {
  const lenses = liveLenses({ runs: [{ dir: '/r/a', step: 500, budget: 1000 }, { dir: '/r/b', step: 1000, budget: 1000 }], starting: 0, queued: 1, stopTargets: [] });
  assert.equal(lenses[0].title, '$(sync~spin) Training 50% (3 runs, 1 queued)');
  assert.match(lenses[1].tooltip!, /Stop all 3 runs/);
});

test('started, no run directory yet: Starting…, and Stop without a Dashboard', () => {
  const lenses = liveLenses({ runs: [], starting: 1, queued: 0, stopTargets: [] });
  assert.deepEqual(lenses.map((l) => l.title), ['$(sync~spin) Starting…', '$(debug-stop) Stop']);
});
