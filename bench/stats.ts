// Timing helpers for benchmark scripts: warm-up, repeated runs, medians and percentiles.

/** Milliseconds of each of `runs` calls, after `warmup` untimed calls. */
export function time(fn: () => unknown, runs: number, warmup = 3): number[] {
  for (let i = 0; i < warmup; i++) fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    out.push(performance.now() - t0);
  }
  return out;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

/** The middle figure, or the mean of the two middle ones. */
export function middle(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const half = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
}

/** The median, and the range when there are several figures. */
export const spread = (xs: readonly number[], show: (x: number) => string): string =>
  xs.length > 1 ? `${show(middle(xs))} (${show(Math.min(...xs))}-${show(Math.max(...xs))})` : show(xs[0]!);

export function report(title: string, rows: [string, string][]): void {
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log(`\n== ${title}`);
  for (const [k, v] of rows) console.log(`  ${k.padEnd(width)}  ${v}`);
}

/**
 * Microseconds per call of `fn`, the best of `blocks` timed blocks of `perBlock` calls after two
 * untimed ones: the block least disturbed by other work on a shared machine.
 */
export async function bestMicros(fn: () => unknown, perBlock: number, blocks = 15): Promise<number> {
  let best = Infinity;
  for (let b = 0; b < blocks + 2; b++) {
    const start = performance.now();
    for (let i = 0; i < perBlock; i++) await fn();
    if (b >= 2) best = Math.min(best, ((performance.now() - start) * 1000) / perBlock);
  }
  return best;
}
