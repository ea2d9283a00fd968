// Mean and min-max band of several runs' curves (seeds of one configuration). Runs log at
// their own steps (and wall times never line up), so every run is read at the same x grid:
// the union of their x values when that is small enough, which keeps each logged value exact
// where runs log at the same steps (seeds of one experiment do), else an even grid; between
// two logged points a run's value is interpolated linearly, and outside its own first and
// last x it has no value (a run that ended early leaves the mean to the others).

export interface Curve {
  /** Non-decreasing x, one y each (NaN: no value). */
  xs: ArrayLike<number>;
  ys: ArrayLike<number>;
}

export interface Aggregate {
  xs: number[];
  mean: (number | null)[];
  min: (number | null)[];
  max: (number | null)[];
  /** How many runs had a value at each x. */
  count: number[];
}

/** Above this many distinct x, an even grid of GRID_POINTS replaces the union. */
const UNION_LIMIT = 4000;
const GRID_POINTS = 2000;

/** The last finite value at each distinct x (episodes share their update's step). */
export function lastPerX(curve: Curve): { xs: number[]; ys: number[] } {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < curve.xs.length; i++) {
    const x = curve.xs[i];
    const y = curve.ys[i];
    if (!Number.isFinite(y) || !Number.isFinite(x)) continue;
    if (xs.length > 0 && xs[xs.length - 1] === x) ys[ys.length - 1] = y;
    else {
      xs.push(x);
      ys.push(y);
    }
  }
  return { xs, ys };
}

export function commonGrid(curves: { xs: number[] }[]): number[] {
  const all = new Set<number>();
  for (const c of curves) for (const x of c.xs) all.add(x);
  if (all.size <= UNION_LIMIT) return [...all].sort((a, b) => a - b);
  let lo = Infinity;
  let hi = -Infinity;
  for (const c of curves) {
    if (c.xs.length === 0) continue;
    lo = Math.min(lo, c.xs[0]);
    hi = Math.max(hi, c.xs[c.xs.length - 1]);
  }
  return Array.from({ length: GRID_POINTS }, (_, i) => lo + ((hi - lo) * i) / (GRID_POINTS - 1));
}

/** A curve's values at increasing grid points: linear between points, null outside its range. */
export function sampleAt(curve: { xs: number[]; ys: number[] }, grid: number[]): (number | null)[] {
  const out: (number | null)[] = new Array(grid.length).fill(null);
  const { xs, ys } = curve;
  if (xs.length === 0) return out;
  let j = 0;
  for (let g = 0; g < grid.length; g++) {
    const x = grid[g];
    if (x < xs[0] || x > xs[xs.length - 1]) continue;
    // Advance to the last point at or before x.
    while (j < xs.length - 1 && xs[j + 1] <= x) j++;
    if (xs[j] === x || j === xs.length - 1) out[g] = ys[j];
    else out[g] = ys[j] + ((x - xs[j]) / (xs[j + 1] - xs[j])) * (ys[j + 1] - ys[j]);
  }
  return out;
}

/** Mean, min and max of `curves` at `grid` (default: their common grid). */
export function aggregate(curves: Curve[], grid?: number[]): Aggregate {
  const deduped = curves.map(lastPerX);
  const xs = grid ?? commonGrid(deduped);
  const samples = deduped.map((c) => sampleAt(c, xs));
  const mean: (number | null)[] = [];
  const min: (number | null)[] = [];
  const max: (number | null)[] = [];
  const count: number[] = [];
  for (let g = 0; g < xs.length; g++) {
    let sum = 0;
    let n = 0;
    let lo = Infinity;
    let hi = -Infinity;
    for (const s of samples) {
      const v = s[g];
      if (v === null) continue;
      sum += v;
      n++;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    mean.push(n > 0 ? sum / n : null);
    min.push(n > 0 ? lo : null);
    max.push(n > 0 ? hi : null);
    count.push(n);
  }
  return { xs, mean, min, max, count };
}
