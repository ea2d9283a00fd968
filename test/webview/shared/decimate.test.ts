// Decimation keeps what a line drawing needs (first, lowest, highest, last row per bucket),
// whether rows come all at once or stream in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lowerBound } from '../../../webview/shared/columns.js';
import { Decimator, decimateRange } from '../../../webview/shared/decimate.js';
import { seededRandom } from '../../helpers/random.js';

function series(n: number, seed = 1): { xs: Float64Array; ys: Float64Array } {
  const random = seededRandom(seed);
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    xs[i] = (i + 1) * 512;
    ys[i] = Math.sin(i / 500) * 10 + random() * 3;
  }
  return { xs, ys };
}

function indicesOf(d: Decimator): number[] {
  const out = new Int32Array(d.capacity);
  return Array.from(out.subarray(0, d.indices(out)));
}

test('keeps the first, last, lowest and highest rows, in order, at most four per bucket', () => {
  const { xs, ys } = series(100_000);
  const d = new Decimator(500);
  d.pushRange(xs, ys, 0, xs.length, 0);
  const rows = indicesOf(d);
  assert.ok(rows.length <= 4 * 500, `${rows.length} rows`);
  assert.ok(rows.length > 500, 'the history spreads over most buckets');
  assert.deepEqual(
    rows,
    [...rows].sort((a, b) => a - b),
  );
  assert.equal(new Set(rows).size, rows.length);
  assert.equal(rows[0], 0);
  assert.equal(rows[rows.length - 1], xs.length - 1);
  const argmin = ys.indexOf(Math.min(...ys));
  const argmax = ys.indexOf(Math.max(...ys));
  assert.ok(rows.includes(argmin) && rows.includes(argmax), 'the extremes survive');
});

test('streaming rows in pieces gives what one pass gives, and pushRange what push gives', () => {
  const { xs, ys } = series(50_000, 2);
  const once = new Decimator(300);
  for (let i = 0; i < xs.length; i++) once.push(i, xs[i], ys[i]);
  const streamed = new Decimator(300);
  for (let from = 0; from < xs.length; from += 777) streamed.pushRange(xs, ys, from, Math.min(xs.length, from + 777), 0);
  assert.deepEqual(indicesOf(streamed), indicesOf(once));
});

test('skips rows without a value, and copes with many rows at one x (episodes of one update)', () => {
  const xs = Float64Array.from([0, 0, 0, 0, 512, 512, 512, 1024]);
  const ys = Float64Array.from([1, NaN, 5, 3, 2, Infinity, 9, 4]);
  const d = new Decimator(64);
  d.pushRange(xs, ys, 0, xs.length, 0);
  const rows = indicesOf(d);
  assert.ok(!rows.includes(1) && !rows.includes(5), 'NaN and infinity are no values');
  for (const i of [0, 2, 3, 4, 6, 7]) assert.ok(rows.includes(i), `row ${i}`);
});

test('a zoomed range keeps the rows inside it and one on each side', () => {
  const { xs, ys } = series(10_000, 3);
  const lo = 2000 * 512 + 100;
  const hi = 3000 * 512 + 100;
  const rows = Array.from(decimateRange(xs, ys, xs.length, lo, hi, 200, (x) => lowerBound(xs, xs.length, x)));
  const inside = rows.filter((i) => xs[i] >= lo && xs[i] <= hi);
  assert.equal(rows.length - inside.length, 2);
  assert.ok(xs[rows[0]] < lo && xs[rows[rows.length - 1]] > hi);
  assert.ok(inside.length <= 4 * 200);
});
