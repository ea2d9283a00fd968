// One metric's history within a fixed budget of points: what the host keeps of a run whose
// events.jsonl holds millions of updates (issue 43 item 7: a 900 MB file had cost the extension
// host 3.2 GB), and what it sends the page. Pure code, for the extension host and tests.
//
// Points go into buckets of `width` consecutive points; a bucket keeps its lowest and its
// highest point, so a spike is never lost to the decimation. Until the series outgrows its
// budget the width is 1 and every point is kept: short runs are exact. When it outgrows it, the
// width doubles (neighbouring buckets merge, keeping the extremes of both) until the series fits
// in half its budget, so each point costs O(1) and the history is never re-read. The first and
// the last point are kept besides: a curve starts where the run started and ends at its latest
// value.

/** A point as kept: its row in the table it belongs to (see TableDigest), step, time and value. */
export interface BudgetPoint {
  row: number;
  x: number;
  t: number;
  y: number;
}

/** One point with what the budget needs to know of it. */
interface Kept extends BudgetPoint {
  /** Its place among the series' finite points (0 for the first): its bucket is `index / width`. */
  index: number;
  /** The sum of the series up to and including it: the sum that stays when a resume drops what follows. */
  cum: number;
}

export class SeriesBudget {
  /** The kept points, in order; each bucket's lowest and highest. */
  private kept: Kept[] = [];
  private width = 1;
  private first: Kept | undefined;
  private last: Kept | undefined;
  /** The lowest row whose point was added or dropped since takeChangedFrom(). */
  private changedFrom = Infinity;
  /** Finite points added (less those a truncation dropped, as far as known). */
  count = 0;
  /** The sum of every finite value added, kept or not (a counter's total: `charts/episodes`). */
  sum = 0;

  /** `budget`: the most points kept, first and last included (at least 8). */
  constructor(readonly budget: number) {
    if (!(budget >= 8)) throw new RangeError(`a series budget is at least 8 points, not ${budget}`);
  }

  /** Adds a point; rows and x come in order (x may repeat). A value that is not finite is no point. */
  add(row: number, x: number, t: number, y: number): void {
    if (!Number.isFinite(y)) return;
    this.sum += y;
    const kept = this.kept;
    const n = kept.length;
    const previous = this.last;
    // The last point was in the output as such; it may now drop out of it.
    if (previous) this.mark(previous.row);
    this.mark(row);
    // Most points of a long series are kept by nothing but being the last: the one before is
    // reused, so a million points do not make a million objects for the collector.
    const reuse = previous !== undefined && previous !== this.first && (n === 0 || previous !== kept[n - 1]);
    const p: Kept = reuse ? previous : { row, x, t, y, index: 0, cum: 0 };
    p.row = row;
    p.x = x;
    p.t = t;
    p.y = y;
    p.index = this.count++;
    p.cum = this.sum;
    if (this.first === undefined) this.first = p;
    this.last = p;
    const bucket = Math.floor(p.index / this.width);
    const open = n > 0 && Math.floor(kept[n - 1].index / this.width) === bucket ? (n > 1 && Math.floor(kept[n - 2].index / this.width) === bucket ? 2 : 1) : 0;
    if (open === 0) kept.push(p);
    else if (open === 1) {
      if (y !== kept[n - 1].y) kept.push(p); // now the bucket's lowest and highest
    } else {
      const [a, b] = [kept[n - 2], kept[n - 1]];
      const low = a.y < b.y ? n - 2 : n - 1;
      const high = low === n - 2 ? n - 1 : n - 2;
      const replaced = y < kept[low].y ? low : y > kept[high].y ? high : -1;
      if (replaced !== -1) {
        this.mark(kept[replaced].row);
        kept.splice(replaced, 1);
        kept.push(p);
      }
    }
    if (this.size > this.budget) this.compact();
  }

  /** Points in the output: the kept ones and the first and last when not among them. */
  get size(): number {
    const n = this.kept.length;
    if (n === 0) return this.first ? (this.first === this.last ? 1 : 2) : 0;
    return n + (this.first !== this.kept[0] ? 1 : 0) + (this.last !== this.kept[n - 1] ? 1 : 0);
  }

  /** Calls `fn` with each point of the output whose row is `fromRow` or later, in order. */
  forEachFrom(fromRow: number, fn: (p: BudgetPoint) => void): void {
    const kept = this.kept;
    const first = this.first;
    const last = this.last;
    if (!first || !last) return;
    if ((kept.length === 0 || first !== kept[0]) && first.row >= fromRow) fn(first);
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (kept[mid].row < fromRow) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < kept.length; i++) fn(kept[i]);
    if (last !== first && (kept.length === 0 || last !== kept[kept.length - 1]) && last.row >= fromRow) fn(last);
  }

  /** The lowest row whose point came or went since the last call (Infinity: none), and starts over. */
  takeChangedFrom(): number {
    const from = this.changedFrom;
    this.changedFrom = Infinity;
    return from;
  }

  /**
   * Drops the points after step `x` (a resumed run repeats the steps after its checkpoint).
   * Where the series was decimated, the bucket the cut falls in keeps the extremes it had up to
   * the cut, and the sum is the one at the last point kept before it.
   */
  truncateAfter(x: number): void {
    const keep = (p: Kept | undefined) => p !== undefined && p.x <= x;
    const dropped = [...this.kept, this.first, this.last].filter((p): p is Kept => p !== undefined && !keep(p));
    if (dropped.length === 0) return;
    for (const p of dropped) this.mark(p.row);
    this.kept = this.kept.filter(keep);
    const candidates = [this.first, ...this.kept, this.last].filter(keep) as Kept[];
    this.first = candidates[0];
    this.last = candidates.reduce<Kept | undefined>((a, p) => (a === undefined || p.row > a.row ? p : a), undefined);
    this.count = this.last ? this.last.index + 1 : 0;
    this.sum = this.last ? this.last.cum : 0;
  }

  /** Doubles the width until the output fits in half the budget: room to grow before the next time. */
  private compact(): void {
    while (this.size > this.budget / 2) {
      this.width *= 2;
      const kept = this.kept;
      let w = 0;
      for (let i = 0; i < kept.length;) {
        const bucket = Math.floor(kept[i].index / this.width);
        let j = i;
        let low = i;
        let high = i;
        for (; j < kept.length && Math.floor(kept[j].index / this.width) === bucket; j++) {
          if (kept[j].y < kept[low].y) low = j;
          if (kept[j].y > kept[high].y) high = j;
        }
        for (let k = i; k < j; k++) if (k !== low && k !== high) this.mark(kept[k].row);
        const a = Math.min(low, high);
        const b = Math.max(low, high);
        kept[w++] = kept[a];
        if (b !== a) kept[w++] = kept[b];
        i = j;
      }
      kept.length = w;
    }
  }

  private mark(row: number): void {
    if (row < this.changedFrom) this.changedFrom = row;
  }
}
