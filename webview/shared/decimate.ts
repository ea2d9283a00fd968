// Decimation for display: a chart a few hundred pixels wide cannot show a million points, and
// handing them all to the canvas every frame would not stay smooth. Per pixel-wide bucket of x
// we keep four rows (M4: the first, the lowest, the highest and the last), which draws exactly
// the same line as all the rows would, while the rows themselves stay untouched (the hover
// read-out shows real values of real rows).
//
// `Decimator` works incrementally on a series that grows at its end: each new row costs O(1),
// and when the series outgrows the buckets, neighbouring buckets merge pairwise (the bucket
// width doubles), so streaming points never re-scan the history.

export class Decimator {
  private x0 = NaN;
  /** Bucket width in x units; 0 until two distinct x have been seen. */
  private width = 0;
  /** Buckets in use (the last one may still grow). */
  private used = 0;
  private readonly first: Int32Array;
  private readonly last: Int32Array;
  private readonly lowest: Int32Array;
  private readonly highest: Int32Array;
  private readonly lowY: Float64Array;
  private readonly highY: Float64Array;
  /** Whether the bucket grid may widen (false for a fixed x range: `decimateRange`). */
  private readonly growable: boolean;

  /** `buckets`: about the chart's width in pixels. */
  constructor(
    readonly buckets: number,
    fixed?: { x0: number; width: number },
  ) {
    const n = Math.max(2, Math.floor(buckets));
    this.first = new Int32Array(n).fill(-1);
    this.last = new Int32Array(n);
    this.lowest = new Int32Array(n);
    this.highest = new Int32Array(n);
    this.lowY = new Float64Array(n);
    this.highY = new Float64Array(n);
    this.growable = fixed === undefined;
    if (fixed) {
      this.x0 = fixed.x0;
      this.width = fixed.width > 0 ? fixed.width : Number.MIN_VALUE;
    }
  }

  /** Adds row `i` at (x, y); x must not decrease from one call to the next. NaN y is skipped. */
  push(i: number, x: number, y: number): void {
    if (!Number.isFinite(y) || !Number.isFinite(x)) return;
    if (Number.isNaN(this.x0)) this.x0 = x;
    let k = 0;
    if (this.width === 0) {
      // Until the x range is known, every row so far sits at x0: start with a grid on which
      // this span covers half the buckets, and let it widen from there.
      if (x > this.x0) this.width = (x - this.x0) / (this.first.length / 2);
    }
    if (this.width > 0) {
      k = Math.floor((x - this.x0) / this.width);
      if (k < 0) k = 0;
      if (k >= this.first.length) {
        if (!this.growable) k = this.first.length - 1;
        else {
          while (k >= this.first.length) {
            this.mergePairs();
            k = Math.floor((x - this.x0) / this.width);
          }
        }
      }
    }
    if (this.first[k] === -1) {
      this.first[k] = this.last[k] = this.lowest[k] = this.highest[k] = i;
      this.lowY[k] = this.highY[k] = y;
    } else {
      this.last[k] = i;
      if (y < this.lowY[k]) {
        this.lowY[k] = y;
        this.lowest[k] = i;
      }
      if (y > this.highY[k]) {
        this.highY[k] = y;
        this.highest[k] = i;
      }
    }
    if (k + 1 > this.used) this.used = k + 1;
  }

  /**
   * push() for rows [from, to) of two columns, x shifted by `offset`: the loop a chart runs
   * over a long history. Consecutive rows mostly land in the bucket of the row before, which
   * is updated in place here; the rest go through push().
   */
  pushRange(xs: Float64Array, ys: Float64Array, from: number, to: number, offset: number): void {
    const { last, lowest, highest, lowY, highY } = this;
    let k = -1;
    let lo = 0;
    let hi = -1;
    for (let i = from; i < to; i++) {
      const y = ys[i];
      if (y !== y || y === Infinity || y === -Infinity) continue; // NaN or infinite: no value
      const x = xs[i] + offset;
      if (k >= 0 && x >= lo && x < hi && this.width > 0) {
        last[k] = i;
        if (y < lowY[k]) {
          lowY[k] = y;
          lowest[k] = i;
        }
        if (y > highY[k]) {
          highY[k] = y;
          highest[k] = i;
        }
        continue;
      }
      this.push(i, x, y);
      if (this.width > 0) {
        // The bucket x fell in (after any merge), and its edges.
        k = Math.min(this.first.length - 1, Math.max(0, Math.floor((x - this.x0) / this.width)));
        lo = this.x0 + k * this.width;
        hi = lo + this.width;
        // A fixed grid clamps x beyond its ends into the edge buckets: no fast path there.
        if (x < lo || x >= hi) k = -1;
      }
    }
  }

  /** Halves the resolution: bucket j takes buckets 2j and 2j+1. */
  private mergePairs(): void {
    const n = this.first.length;
    for (let j = 0; j < n / 2; j++) {
      const a = 2 * j;
      const b = a + 1;
      const hasA = this.first[a] !== -1;
      const hasB = b < n && this.first[b] !== -1;
      if (!hasA && !hasB) {
        this.first[j] = -1;
        continue;
      }
      const src = hasA ? a : b;
      const first = this.first[src];
      let last = this.last[src];
      let lo = this.lowest[src];
      let hi = this.highest[src];
      let loY = this.lowY[src];
      let hiY = this.highY[src];
      if (hasA && hasB) {
        last = this.last[b];
        if (this.lowY[b] < loY) [lo, loY] = [this.lowest[b], this.lowY[b]];
        if (this.highY[b] > hiY) [hi, hiY] = [this.highest[b], this.highY[b]];
      }
      this.first[j] = first;
      this.last[j] = last;
      this.lowest[j] = lo;
      this.highest[j] = hi;
      this.lowY[j] = loY;
      this.highY[j] = hiY;
    }
    this.first.fill(-1, Math.ceil(n / 2));
    this.used = Math.ceil(this.used / 2);
    this.width *= 2;
  }

  /** The rows to draw, in order, without repeats; returns how many were written to `out`. */
  indices(out: Int32Array): number {
    let count = 0;
    const quad = [0, 0, 0, 0];
    for (let k = 0; k < this.used; k++) {
      if (this.first[k] === -1) continue;
      quad[0] = this.first[k];
      quad[1] = this.lowest[k];
      quad[2] = this.highest[k];
      quad[3] = this.last[k];
      quad.sort((p, q) => p - q);
      for (const i of quad) if (count === 0 || out[count - 1] !== i) out[count++] = i;
    }
    return count;
  }

  /** An upper bound of indices()' count. */
  get capacity(): number {
    return 4 * this.first.length;
  }
}

/**
 * The rows to draw for x in [xMin, xMax] (a zoomed view): M4 over `buckets` fixed buckets of
 * that range, plus the row just outside each end so the line runs to the chart's edges.
 * `xs` must be non-decreasing over [0, length).
 */
export function decimateRange(
  xs: Float64Array,
  ys: Float64Array,
  length: number,
  xMin: number,
  xMax: number,
  buckets: number,
  lowerBound: (x: number) => number,
): Int32Array {
  const from = Math.max(0, lowerBound(xMin) - 1);
  let to = lowerBound(xMax);
  while (to < length && xs[to] <= xMax) to++;
  to = Math.min(length, to + 1);
  const decimator = new Decimator(buckets, { x0: xMin, width: (xMax - xMin) / buckets });
  decimator.pushRange(xs, ys, from, to, 0);
  const out = new Int32Array(decimator.capacity);
  return out.subarray(0, decimator.indices(out));
}
