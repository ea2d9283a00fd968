// A table of a run's history (metrics: a row per update; episodes: a row per episode) as the
// host keeps it for a page: each column within its own budget of points (series-budget.ts), the
// table's rows those that some column kept. The page is sent patches ("keep your first `keep`
// rows, then these"), so it holds exactly what the host holds, and a patch carries only the rows
// from the first one that changed: mostly the last few, all of them only when a column's
// buckets merged (each time its series doubles). Pure code, for the extension host and tests.
import { lowerBound } from './shared/columns.js';
import { SeriesBudget } from './series-budget.js';

/** A `columns` message's rows: the page keeps its first `keep` rows and appends these. */
export interface TablePatch {
  keep: number;
  steps: Float64Array;
  times: Float64Array;
  columns: Record<string, Float64Array>;
}

export class TableDigest {
  private readonly series = new Map<string, SeriesBudget>();
  /** Rows given out so far: ids only grow, also past a truncation, so they stay in order. */
  private rows = 0;
  /** The step of the last row added (or an upper bound of it after a truncation). */
  lastStep: number | undefined;
  /** The ids of the rows the page holds, in order: what the patches so far left it with. */
  private sent = new Float64Array(0);
  private sentLength = 0;
  /** The columns the page has: a column first comes even without a point in the patch. */
  private readonly announced = new Set<string>();

  /** `budget`: the points kept of each column. */
  constructor(readonly budget: number) {}

  /** Rows added in all (the rows the table stands for, kept or not). */
  get added(): number {
    return this.rows;
  }

  add(step: number, time: number, values: Record<string, unknown>): void {
    const row = this.rows++;
    this.lastStep = step;
    for (const key in values) {
      let s = this.series.get(key);
      if (!s) {
        // A key with no value yet (null: NaN in the file) is a column all the same, as on the page.
        s = new SeriesBudget(this.budget);
        this.series.set(key, s);
      }
      const value = values[key];
      if (typeof value === 'number') s.add(row, step, time, value);
    }
  }

  /** Drops the rows after `step` (a resumed run's repeated steps: the later ones count). */
  truncateAfter(step: number): void {
    for (const s of this.series.values()) s.truncateAfter(step);
    if (this.lastStep !== undefined && this.lastStep > step) this.lastStep = step;
  }

  /** Each column's sum over every row added, kept or not (counters: `charts/episodes`). */
  sums(): Record<string, number> {
    return Object.fromEntries([...this.series].map(([key, s]) => [key, s.sum]));
  }

  /** Rows the page holds after the patches so far. */
  get length(): number {
    return this.sentLength;
  }

  /**
   * What brings the page up to date: the rows from the first one that changed since the last
   * patch; undefined when none did.
   */
  patch(): TablePatch | undefined {
    let from = Infinity;
    for (const s of this.series.values()) from = Math.min(from, s.takeChangedFrom());
    if (from === Infinity) return undefined;
    const keep = lowerBound(this.sent, this.sentLength, from);
    // The rows from `from` on, each once, in order, with their values by column.
    const steps = new Map<number, number>();
    const times = new Map<number, number>();
    const byKey: [string, number[], number[]][] = [];
    for (const [key, s] of this.series) {
      const rows: number[] = [];
      const ys: number[] = [];
      s.forEachFrom(from, (p) => {
        rows.push(p.row);
        ys.push(p.y);
        steps.set(p.row, p.x);
        times.set(p.row, p.t);
      });
      if (rows.length > 0 || !this.announced.has(key)) byKey.push([key, rows, ys]);
    }
    const ids = Float64Array.from(steps.keys()).sort();
    const at = new Map<number, number>();
    ids.forEach((id, i) => at.set(id, i));
    const patch: TablePatch = { keep, steps: new Float64Array(ids.length), times: new Float64Array(ids.length), columns: {} };
    ids.forEach((id, i) => {
      patch.steps[i] = steps.get(id)!;
      patch.times[i] = times.get(id)!;
    });
    for (const [key, rows, ys] of byKey) {
      const column = new Float64Array(ids.length).fill(NaN);
      for (let i = 0; i < rows.length; i++) column[at.get(rows[i])!] = ys[i];
      patch.columns[key] = column;
    }
    if (ids.length > 0) for (const [key] of byKey) this.announced.add(key);
    this.remember(keep, ids);
    return patch;
  }

  private remember(keep: number, ids: Float64Array): void {
    const need = keep + ids.length;
    if (need > this.sent.length) {
      const next = new Float64Array(Math.max(need, this.sent.length * 2, 256));
      next.set(this.sent.subarray(0, keep));
      this.sent = next;
    }
    this.sent.set(ids, keep);
    this.sentLength = need;
  }
}
