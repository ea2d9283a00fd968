// "Did you mean" over many names (issue 43 item 6): a file of 10k declarations, each naming an
// unknown base, asked closestNames() to compare every unknown name with every declared one,
// 10^8 edit distances. A NameIndex is built once per file and kind (Model.nameIndex): names one
// edit away (most typos) are looked up through their one-letter deletions, with no scan; else it
// scans the names grouped by length, visiting only lengths that can be close enough and stopping
// a distance once it exceeds what could still be kept. It remembers the answers it gave and fills
// at most WORK_PER_INDEX cells of distance tables in all; past that, names get no suggestion
// (the error itself is unchanged). Its answers are closestNames()'s, best first.
import { acceptedDistance, boundedEditDistance } from './diagnostics.js';

/** Cells of edit-distance tables one index may fill (a few hundred ms): beyond, no more suggestions. */
export const WORK_PER_INDEX = 30_000_000;

interface Entry {
  readonly name: string;
  readonly lower: string;
}

export class NameIndex {
  /** Entries by the length of their lower-case name, each list sorted by it (for prefix ranges). */
  private readonly byLength = new Map<number, Entry[]>();
  private readonly lengths: number[];
  private readonly answers = new Map<string, string[]>();
  private work = 0;

  constructor(names: Iterable<string>, private readonly budget = WORK_PER_INDEX) {
    for (const name of new Set(names)) {
      const lower = name.toLowerCase();
      let list = this.byLength.get(lower.length);
      if (!list) this.byLength.set(lower.length, (list = []));
      list.push({ name, lower });
    }
    for (const list of this.byLength.values()) list.sort((a, b) => (a.lower < b.lower ? -1 : a.lower > b.lower ? 1 : 0));
    this.lengths = [...this.byLength.keys()].sort((a, b) => a - b);
  }

  /** closestNames(name, the indexed names, max); [] once this index's work budget is spent. */
  closest(name: string, max = 3): string[] {
    const key = `${max}\u0000${name}`;
    const known = this.answers.get(key);
    if (known) return known;
    if (this.work >= this.budget) return [];
    const lower = name.toLowerCase();
    const near = this.withinOne(lower);
    if (near.length > 0) return this.remember(key, near, max);
    const found: { candidate: string; distance: number }[] = [];
    let best = Infinity;
    // Lengths nearest first: a length differing by d costs at least d edits (or is a prefix match at d).
    const order = [...this.lengths].sort((a, b) => Math.abs(a - lower.length) - Math.abs(b - lower.length) || a - b);
    for (const length of order) {
      const gap = Math.abs(length - lower.length);
      if (gap > best) break;
      const list = this.byLength.get(length)!;
      const limit = acceptedDistance(name.length, length);
      if (gap <= limit) {
        for (const entry of list) {
          const cutoff = Math.min(limit, best);
          const { distance, cells } = boundedEditDistance(lower, entry.lower, cutoff);
          this.work += cells;
          const prefix = lower.length >= 3 && entry.lower.startsWith(lower);
          const d = distance <= cutoff ? distance : prefix ? gap : Infinity;
          if (d !== Infinity && d <= best) {
            best = d;
            found.push({ candidate: entry.name, distance: d });
          }
        }
      } else if (lower.length >= 3 && length > lower.length) {
        // Too far by length alone, but a name this one begins is kept at distance `gap`.
        for (let i = lowerBound(list, lower); i < list.length && list[i].lower.startsWith(lower); i++) {
          best = Math.min(best, gap);
          found.push({ candidate: list[i].name, distance: gap });
        }
      }
    }
    return this.remember(key, found, max);
  }

  /** The best of `found`, at most `max`, as closestNames() orders them; kept for the next query of the same name. */
  private remember(key: string, found: readonly { candidate: string; distance: number }[], max: number): string[] {
    const best = Math.min(...found.map((f) => f.distance));
    const kept = found.filter((f) => f.distance === best).sort((a, b) => a.candidate.localeCompare(b.candidate));
    const answer = [...new Set(kept.map((k) => k.candidate))].slice(0, max);
    this.answers.set(key, answer);
    return answer;
  }

  /**
   * The names at most one edit away (a typo's usual distance), found without a scan: two names
   * within one edit (a swap included) share a form with at most one letter deleted from each.
   * Any such name is the best there is, as a distance of one is always close enough.
   */
  private withinOne(lower: string): { candidate: string; distance: number }[] {
    const deletions = this.deletionIndex();
    const seen = new Set<Entry>();
    const found: { candidate: string; distance: number }[] = [];
    for (const form of oneDeletion(lower)) {
      for (const entry of deletions.get(form) ?? []) {
        if (seen.has(entry)) continue;
        seen.add(entry);
        const { distance, cells } = boundedEditDistance(lower, entry.lower, 1);
        this.work += cells;
        if (distance <= 1) found.push({ candidate: entry.name, distance });
      }
    }
    return found;
  }

  private deletions: Map<string, Entry[]> | undefined;

  /** Every indexed name and each of its one-letter deletions, to the names they come from (built at the first query). */
  private deletionIndex(): Map<string, Entry[]> {
    if (this.deletions) return this.deletions;
    const index = new Map<string, Entry[]>();
    for (const list of this.byLength.values()) {
      for (const entry of list) {
        for (const form of oneDeletion(entry.lower)) {
          const bucket = index.get(form);
          if (!bucket) index.set(form, [entry]);
          else if (bucket[bucket.length - 1] !== entry) bucket.push(entry);
        }
      }
    }
    return (this.deletions = index);
  }
}

/** A word and each form of it with one letter left out. */
function oneDeletion(word: string): string[] {
  const forms = [word];
  for (let i = 0; i < word.length; i++) forms.push(word.slice(0, i) + word.slice(i + 1));
  return forms;
}

/** The first entry of a sorted list whose name is not below `lower`. */
function lowerBound(list: readonly Entry[], lower: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid].lower < lower) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
