// A metric's history within a budget of points: what the host keeps of a long run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SeriesBudget, type BudgetPoint } from '../../webview/series-budget.js';

function points(s: SeriesBudget, fromRow = 0): BudgetPoint[] {
  const out: BudgetPoint[] = [];
  s.forEachFrom(fromRow, (p) => out.push({ row: p.row, x: p.x, t: p.t, y: p.y }));
  return out;
}

test('a series of a million points comes back within the budget, with its lowest, highest, first and last points', () => {
  const s = new SeriesBudget(1000);
  const n = 1_000_000;
  const y = (i: number) => Math.sin(i / 5000) + (i === 123_457 ? 50 : 0) + (i === 654_321 ? -40 : 0);
  for (let i = 0; i < n; i++) s.add(i, i * 8, 1000 + i, y(i));
  const kept = points(s);
  assert.ok(kept.length <= 1000, `${kept.length} points`);
  assert.ok(kept.length >= 250, `${kept.length} points: the budget is used, not wasted`);
  const ys = kept.map((p) => p.y);
  assert.equal(Math.max(...ys), y(123_457), 'the spike up');
  assert.equal(Math.min(...ys), y(654_321), 'the spike down');
  assert.deepEqual(kept[0], { row: 0, x: 0, t: 1000, y: y(0) });
  assert.deepEqual(kept.at(-1), { row: n - 1, x: (n - 1) * 8, t: 1000 + n - 1, y: y(n - 1) });
  for (let i = 1; i < kept.length; i++) assert.ok(kept[i].row > kept[i - 1].row, 'in order, no repeats');
  for (const p of kept) assert.equal(p.y, y(p.row), 'real points, not averages');
  assert.equal(s.count, n);
});

test('every stretch of the series keeps its extremes: a spike anywhere survives', () => {
  for (const at of [1, 999, 1000, 4097, 77_777, 199_998]) {
    const s = new SeriesBudget(64);
    for (let i = 0; i < 200_000; i++) s.add(i, i, i, i === at ? 1e9 : i % 7);
    assert.ok(points(s).some((p) => p.row === at && p.y === 1e9), `spike at ${at}`);
    assert.ok(points(s).length <= 64);
  }
});

test('under the budget the series is exact', () => {
  const s = new SeriesBudget(100);
  const ys = Array.from({ length: 100 }, (_, i) => ((i * 37) % 11) - 5);
  ys.forEach((y, i) => s.add(i * 2, i * 10, i, y));
  assert.deepEqual(
    points(s).map((p) => [p.row, p.x, p.y]),
    ys.map((y, i) => [i * 2, i * 10, y]),
  );
  assert.equal(s.sum, ys.reduce((a, b) => a + b, 0));
});

test('values that are not numbers are no points; the sum is of every value, decimated or not', () => {
  const s = new SeriesBudget(16);
  s.add(0, 0, 0, NaN);
  s.add(1, 1, 1, Infinity);
  assert.deepEqual(points(s), []);
  for (let i = 2; i < 10_002; i++) s.add(i, i, i, 1);
  assert.equal(s.sum, 10_000);
  assert.equal(s.count, 10_000);
});

test('the last point is always there, as the series grows one point at a time', () => {
  const s = new SeriesBudget(16);
  for (let i = 0; i < 5000; i++) {
    s.add(i, i, i, Math.cos(i));
    const kept = points(s);
    assert.equal(kept.at(-1)?.row, i);
    assert.ok(kept.length <= 16);
  }
});

test('changes are said from the first row that changed: what was before it stays as it was', () => {
  const s = new SeriesBudget(32);
  let before = points(s);
  for (let i = 0; i < 3000; i++) {
    s.add(i, i, i, Math.sin(i * 0.37) * (i % 13));
    const from = s.takeChangedFrom();
    const after = points(s);
    const unchanged = (list: BudgetPoint[]) => list.filter((p) => p.row < from);
    assert.deepEqual(unchanged(after), unchanged(before), `after row ${i}`);
    before = after;
  }
  assert.equal(s.takeChangedFrom(), Infinity, 'nothing since');
});

test('a resumed run: the points after a step are dropped, the series goes on from there', () => {
  const s = new SeriesBudget(8);
  for (let i = 0; i < 6; i++) s.add(i, i * 10, i, i);
  s.takeChangedFrom();
  s.truncateAfter(25);
  assert.deepEqual(points(s).map((p) => p.x), [0, 10, 20]);
  assert.equal(s.takeChangedFrom(), 3);
  assert.equal(s.sum, 0 + 1 + 2);
  s.add(9, 30, 9, 33);
  assert.deepEqual(points(s).map((p) => p.y), [0, 1, 2, 33]);
  // Decimated: what stays is at or before the step.
  const d = new SeriesBudget(16);
  for (let i = 0; i < 10_000; i++) d.add(i, i, i, i % 100);
  d.truncateAfter(4999);
  const kept = points(d);
  assert.ok(kept.length > 0 && kept.every((p) => p.x <= 4999));
  assert.ok(kept.some((p) => p.y === 99) && kept.some((p) => p.y === 0));
  d.add(20_000, 5000, 5000, -1);
  assert.equal(points(d).at(-1)?.y, -1);
});
