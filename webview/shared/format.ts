// Numbers as people read them in a dashboard: short, aligned, and exact where it matters. Step
// counts, durations and sizes read as on the command line and in the Runs view (../../shared/format.ts).
import { formatBytes, pad } from '../../shared/format.js';

export { formatBytes, formatDuration, formatSteps } from '../../shared/format.js';

/** A metric value: 4 significant digits, exponent for very large or small magnitudes. */
export function formatValue(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  if (!Number.isFinite(value)) return value > 0 ? '∞' : '-∞';
  if (value === 0) return '0';
  const magnitude = Math.abs(value);
  if (magnitude >= 1e6 || magnitude < 1e-4) return value.toExponential(2).replace('e+', 'e');
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(4)));
}

/**
 * A value in a table of many (a batch's rewards and advantages): 3 significant digits, so a
 * normalised advantage of -0.49990 (the std's epsilon) reads -0.5; the exact value goes in a tooltip.
 */
export function formatShort(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value) || !Number.isFinite(value) || value === 0) return formatValue(value);
  const magnitude = Math.abs(value);
  if (magnitude >= 1e6 || magnitude < 1e-4) return value.toExponential(2).replace('e+', 'e');
  return String(Number(value.toPrecision(3)));
}


/** Axis ticks of steps: compact, no decimals a tick does not need. */
export function formatStepTick(steps: number): string {
  if (steps === 0) return '0';
  if (Math.abs(steps) >= 1e6) return `${trim(steps / 1e6)}M`;
  if (Math.abs(steps) >= 1e3) return `${trim(steps / 1e3)}k`;
  return String(Math.round(steps));
}

function trim(value: number): string {
  return String(Number(value.toFixed(2)));
}

/**
 * Wall time since the run started, as an axis tick: `12s` (or `0.4s` for a run of seconds),
 * `m:ss`, `h:mm:ss`.
 */
export function formatClock(seconds: number): string {
  if (Math.abs(seconds) < 60) return `${Number(seconds.toFixed(Math.abs(seconds) < 10 ? 1 : 0))}s`;
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

/** Steps per second: `48.2k`. */
export function formatRate(perSecond: number | undefined): string {
  if (perSecond === undefined || !Number.isFinite(perSecond)) return '–';
  return perSecond >= 1e4 ? `${trim(perSecond / 1e3)}k` : String(Math.round(perSecond));
}

/** Local date and time of an ISO string, to the second. */
export function formatTime(iso: string | undefined): string {
  if (!iso) return '–';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' });
}

const BYTE_UNITS: readonly [number, string][] = [
  [2 ** 40, 'TiB'],
  [2 ** 30, 'GiB'],
  [2 ** 20, 'MiB'],
  [2 ** 10, 'KiB'],
  [1, 'bytes'],
];

/**
 * The tick spacings a y axis of bytes picks from: 1, 2 and 5 of a unit, then hundredths to
 * halves of the next (0.1 GiB, not 100 MiB), so ticks fall on `5.5 GiB`, never on `5.49 GiB`
 * (5,900,000,000 bytes: round only in decimal).
 */
export const BYTE_INCREMENTS: readonly number[] = [
  ...BYTE_UNITS.slice(1)
    .reverse()
    .flatMap(([size]) => [1, 2, 5].map((m) => m * size).concat([0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5].map((f) => f * size * 1024))),
  ...[1, 2, 5, 10, 20, 50, 100, 200, 500].map((m) => m * BYTE_UNITS[0][0]),
];

/**
 * A bytes axis's tick labels: one unit for the axis, the largest in which every tick is round
 * to two decimals (`0.3 GiB` ... `0.9 GiB`; `5.25 GiB`, `5.50 GiB`), else a smaller one
 * (every 5 MiB from 600 MiB reads `600 MiB`, `605 MiB`, not `0.59 GiB`).
 */
export function byteTicks(splits: readonly number[]): string[] {
  const largest = Math.max(0, ...splits.map(Math.abs));
  const found = BYTE_UNITS.findIndex(([size]) => largest >= size);
  // From one unit above the largest tick's: 921.6 MiB reads 0.9 GiB.
  const first = Math.max(0, (found < 0 ? BYTE_UNITS.length - 1 : found) - 1);
  for (const [size, unit] of BYTE_UNITS.slice(first)) {
    for (let decimals = 0; decimals <= 2; decimals++) {
      const scale = 10 ** decimals;
      if (splits.every((v) => Math.abs((v / size) * scale - Math.round((v / size) * scale)) < 1e-6)) return splits.map((v) => `${(v / size).toFixed(decimals)} ${unit}`);
    }
  }
  return splits.map(formatBytes);
}
