// The curve of one metric of one run, as the comparison draws it: x in steps or seconds since
// the run's start, y smoothed the same way the dashboard smooths.
import type { RunModel } from '../shared/run-model.js';
import { ema } from '../shared/smoothing.js';
import type { XMode } from '../shared/x-axis.js';
import type { Curve } from './aggregate.js';

export type { XMode };

/**
 * Metric names: `episode/return` and `episode/length` (one point per episode), `eval/...`
 * (one per evaluation), anything else a key of the metrics events.
 */
export function curveOf(run: RunModel, metric: string, xMode: XMode, smoothing: number): Curve {
  const t0 = run.startTime ?? 0;
  if (metric.startsWith('eval/')) {
    const points = run.evals.filter((e) => Number.isFinite(e.values[metric]));
    return {
      xs: points.map((e) => (xMode === 'step' ? e.step : e.time - t0)),
      ys: ema(
        points.map((e) => e.values[metric]),
        smoothing,
      ),
    };
  }
  const episode = /^episode\/(.+)$/.exec(metric)?.[1];
  const table = episode ? run.episodes : run.metrics;
  const key = episode ?? metric;
  const n = table.length;
  if (!table.has(key)) return { xs: [], ys: [] };
  const xs = (xMode === 'step' ? table.steps.values : table.times.values).subarray(0, n);
  const ys = ema(table.column(key).values.subarray(0, n), smoothing);
  return { xs: xMode === 'step' ? xs : xs.map((t) => t - t0), ys };
}

/** The metrics any of the runs has, the ones people compare first at the top. */
export function metricChoices(runs: RunModel[]): string[] {
  const first = ['episode/return', 'episode/length'];
  const evals = new Set<string>();
  const metrics = new Set<string>();
  for (const run of runs) {
    for (const e of run.evals) for (const k of Object.keys(e.values)) evals.add(k);
    for (const k of run.metrics.keys()) metrics.add(k);
  }
  return [...first, ...[...evals].sort(), ...[...metrics].sort()];
}

/** Points of a curve averaged for the value a run is judged by: the 20 of train/mean_return. */
export const SETTLED_WINDOW = 20;

/**
 * The value a run is judged by on `metric`, and how it was taken: an evaluation's latest value
 * (itself a mean over its episodes), else the mean of the last SETTLED_WINDOW raw values (one
 * last episode is noise: a final 94 against a mean of 29.9).
 */
export function settledValue(run: RunModel, metric: string, xMode: XMode): number | undefined {
  const curve = curveOf(run, metric, xMode, 0);
  if (metric.startsWith('eval/')) return finalValue(curve);
  const finite = Array.from(curve.ys).filter((v) => Number.isFinite(v));
  const last = finite.slice(-SETTLED_WINDOW);
  return last.length > 0 ? last.reduce((a, b) => a + b, 0) / last.length : undefined;
}

/** How settledValue() judged `metric`, in words: `the latest evaluation`, `the mean of its last 20 episodes`. */
export function settledBasis(metric: string): string {
  if (metric.startsWith('eval/')) return 'the latest evaluation';
  return `the mean of its last ${SETTLED_WINDOW} ${metric.startsWith('episode/') ? 'episodes' : 'values'}`;
}

/** The last finite value of a curve. */
export function finalValue(curve: Curve): number | undefined {
  for (let i = curve.ys.length - 1; i >= 0; i--) if (Number.isFinite(curve.ys[i])) return curve.ys[i];
  return undefined;
}
