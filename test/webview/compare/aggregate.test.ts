// Mean and min-max band over seeds: exact where runs log at the same steps, interpolated
// between logged points otherwise, and never extrapolated past a run's own ends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { aggregate, lastPerX, sampleAt } from '../../../webview/compare/aggregate.js';

test('runs logging at the same steps: the grid is those steps, the values exact', () => {
  const agg = aggregate([
    { xs: [1, 2, 3], ys: [1, 2, 3] },
    { xs: [1, 2, 3], ys: [3, 6, 9] },
    { xs: [1, 2, 3], ys: [2, 1, 0] },
  ]);
  assert.deepEqual(agg.xs, [1, 2, 3]);
  assert.deepEqual(agg.mean, [2, 3, 4]);
  assert.deepEqual(agg.min, [1, 1, 0]);
  assert.deepEqual(agg.max, [3, 6, 9]);
  assert.deepEqual(agg.count, [3, 3, 3]);
});

test('between a run’s points its value is interpolated; past its last point it has none', () => {
  const agg = aggregate([
    { xs: [0, 10], ys: [0, 10] },
    { xs: [0, 5], ys: [4, 4] },
  ]);
  assert.deepEqual(agg.xs, [0, 5, 10]);
  assert.deepEqual(agg.mean, [2, 4.5, 10]);
  assert.deepEqual(agg.count, [2, 2, 1]);
});

test('rows sharing an x (episodes of one update) count once, with the last value', () => {
  assert.deepEqual(lastPerX({ xs: [512, 512, 512, 1024], ys: [1, 2, 3, NaN] }), { xs: [512], ys: [3] });
  assert.deepEqual(sampleAt({ xs: [0, 2], ys: [0, 1] }, [-1, 0, 1, 2, 3]), [null, 0, 0.5, 1, null]);
});
