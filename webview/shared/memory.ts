// A run's memory as the pages show it: the peak its trainer measured (`memory/peak_rss_bytes`,
// every update of a text learner) beside the estimate it was checked against before its
// weights loaded (a pretrained run's hparams carry `memory_estimate_bytes`, the figure of
// `rlx check --memory`). A run without an estimate (a model trained from scratch, a run of an
// earlier version) gets neither the estimate's line nor the header's words.
import type { HorizontalLines } from './live-chart.js';
import { formatBytes } from './format.js';
import type { RunModel } from './run-model.js';

/** The measured peak, and the hparams value it is read against. */
export const PEAK_METRIC = 'memory/peak_rss_bytes';
export const ESTIMATE_HPARAM = 'memory_estimate_bytes';

/** The run's memory estimate in bytes, from its latest stage's hparams; undefined where it has none. */
export function memoryEstimate(run: RunModel): number | undefined {
  // Read defensively: the event is a line of a file.
  const value = run.hparams?.[ESTIMATE_HPARAM];
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** The estimate as a line across the chart of `metric` (`estimate 5.5 GiB`): the peak's chart only. */
export function estimateLines(run: RunModel, metric: string): HorizontalLines | undefined {
  const estimate = metric === PEAK_METRIC ? memoryEstimate(run) : undefined;
  return estimate === undefined ? undefined : { ys: [estimate], labels: [`estimate ${formatBytes(estimate)}`] };
}

/**
 * The header's words: `memory: peak 6.3 GiB, estimate 5.5 GiB (1.15x)`, the latest peak over the
 * estimate; '' for a run without an estimate.
 */
export function memorySummary(run: RunModel): string {
  const estimate = memoryEstimate(run);
  if (estimate === undefined) return '';
  const peak = run.latestMetric(PEAK_METRIC);
  if (peak === undefined || !Number.isFinite(peak)) return `memory: estimate ${formatBytes(estimate)}, no peak measured yet`;
  return `memory: peak ${formatBytes(peak)}, estimate ${formatBytes(estimate)} (${(peak / estimate).toFixed(2)}x)`;
}
