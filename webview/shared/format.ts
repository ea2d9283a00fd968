// Numbers as people read them in a dashboard: short, aligned, and exact where it matters. Step
// counts and durations read as on the command line and in the Runs view (../../shared/format.ts).
import { pad } from '../../shared/format.js';

export { formatDuration, formatSteps } from '../../shared/format.js';

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
