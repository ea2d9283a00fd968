// The dashboard's moving average is TensorBoard's: debiased, NaN-transparent, incremental.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ema, emaInto, emptyEma } from '../../../webview/shared/smoothing.js';

/** The textbook definition, written out. */
function reference(ys: number[], w: number): number[] {
  let last = 0;
  let n = 0;
  return ys.map((y) => {
    last = last * w + (1 - w) * y;
    n++;
    return last / (1 - w ** n);
  });
}

test('matches the debiased definition; the first value is the first point', () => {
  const ys = [3, 1, 4, 1, 5, 9, 2, 6];
  const got = Array.from(ema(ys, 0.6));
  reference(ys, 0.6).forEach((v, i) => assert.ok(Math.abs(got[i] - v) < 1e-12, `point ${i}`));
  assert.ok(Math.abs(got[0] - 3) < 1e-12);
});

test('weight 0 is the series itself', () => {
  assert.deepEqual(Array.from(ema([1, 2, 3], 0)), [1, 2, 3]);
});

test('a missing value stays missing and does not restart the average', () => {
  const got = Array.from(ema([2, NaN, 4], 0.5));
  assert.ok(Number.isNaN(got[1]));
  assert.ok(Math.abs(got[2] - reference([2, 4], 0.5)[1]) < 1e-12);
});

test('continuing a state over new points equals smoothing everything at once', () => {
  const ys = Array.from({ length: 1000 }, (_, i) => Math.sin(i / 10));
  const out = new Float64Array(ys.length);
  const state = emptyEma();
  for (let from = 0; from < ys.length; from += 37) emaInto(ys, out, from, Math.min(ys.length, from + 37), 0.9, state);
  assert.deepEqual(Array.from(out), Array.from(ema(ys, 0.9)));
});
