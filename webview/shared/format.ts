// Numbers as people read them in a dashboard: short, aligned, and exact where it matters.

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

/** An environment step count: 1,234 below a million, then 1.23M (steps are whole numbers). */
export function formatSteps(steps: number): string {
  if (!Number.isFinite(steps)) return '–';
  if (Math.abs(steps) >= 1e9) return `${trim(steps / 1e9)}B`;
  if (Math.abs(steps) >= 1e6) return `${trim(steps / 1e6)}M`;
  if (Math.abs(steps) >= 1e4) return `${trim(steps / 1e3)}k`;
  return Math.round(steps).toLocaleString('en-US');
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

/** A duration for the header: `2h 05m`, `3m 07s`, `12s`. */
export function formatDuration(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return '–';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${pad(Math.floor((s % 3600) / 60))}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
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

function pad(n: number): string {
  return String(n).padStart(2, '0');
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
