// Growable numeric columns: a run's metrics are kept as one Float64Array per series, so that a
// million points cost 8 MB each, appends are O(1), and charts read them without copying.

export class Column {
  private data: Float64Array;
  length = 0;

  constructor(capacity = 256) {
    this.data = new Float64Array(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = value;
  }

  /** Pads with NaN ("no value") up to `length`: a series that starts after the others. */
  padTo(length: number): void {
    if (length > this.data.length) this.grow(length);
    this.data.fill(NaN, this.length, length);
    this.length = Math.max(this.length, length);
  }

  /**
   * Appends `values` (a column of a `columns` message) in one copy; an empty column takes a
   * Float64Array as its own storage instead (a message's arrays belong to the page once
   * received, and a million rows are 8 MB a copy).
   */
  append(values: ArrayLike<number>): void {
    if (this.length === 0 && values instanceof Float64Array && values.length > 0) {
      this.data = values;
      this.length = values.length;
      return;
    }
    const need = this.length + values.length;
    if (need > this.data.length) this.grow(need);
    if (values instanceof Float64Array) this.data.set(values, this.length);
    else for (let i = 0; i < values.length; i++) this.data[this.length + i] = values[i];
    this.length = need;
  }

  /** Room for `rows` rows without growing. */
  reserve(rows: number): void {
    if (rows > this.data.length) this.grow(rows);
  }

  get(i: number): number {
    return this.data[i];
  }

  /** Drops rows from `length` on (a resumed run replaces the steps after its checkpoint). */
  truncate(length: number): void {
    this.length = Math.min(this.length, length);
  }

  /** The backing array; valid up to `length`, and only until the next push. */
  get values(): Float64Array {
    return this.data;
  }

  private grow(min: number): void {
    const next = new Float64Array(Math.max(min, this.data.length * 2));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
}

/** Index of the first row with xs[i] >= x, in a non-decreasing column of `length` rows. */
export function lowerBound(xs: Float64Array, length: number, x: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
