// Step counts, durations and sizes as rlx shows them wherever a run is shown: `rlx train`'s progress
// line (cli/progress.ts), the Runs view (extension/runs/describe.ts) and the dashboard
// (webview/shared/format.ts), so the same run reads the same in each. Each caller says what
// stands for a missing number (`-` on a terminal, `–` in the dashboard).

/** A step count: exact below 10,000 (`1,234`), then 3 significant digits: `20.5k`, `1.5M`, `2.25B`. */
export function formatSteps(steps: number, missing = '–'): string {
  if (!Number.isFinite(steps)) return missing;
  const magnitude = Math.abs(steps);
  if (magnitude >= 1e9) return `${threeDigits(steps / 1e9)}B`;
  if (magnitude >= 1e6) return `${threeDigits(steps / 1e6)}M`;
  if (magnitude >= 1e4) return `${threeDigits(steps / 1e3)}k`;
  return Math.round(steps).toLocaleString('en-US');
}

function threeDigits(value: number): string {
  return String(Number(value.toPrecision(3)));
}

/** A duration: `<1s`, `12s`, `3m 07s`, `2h 05m`, `1d 3h`; `missing` for none or a negative one. */
export function formatDuration(seconds: number | undefined, missing = '–'): string {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return missing;
  if (seconds > 0 && seconds < 0.5) return '<1s';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${pad(Math.floor((s % 3600) / 60))}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

const MiB = 2 ** 20;

/**
 * A size in binary units, one decimal: `5.5 GiB`, `812.0 MiB`, `3.2 KiB`, `900 bytes` (file
 * sizes in errors, `rlx check --memory`'s parts, the dashboard's memory estimate and peak).
 */
export const formatBytes = (bytes: number): string =>
  bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GiB` : bytes >= MiB ? `${(bytes / MiB).toFixed(1)} MiB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes} bytes`;

/** Two digits: the minutes of an hour, the seconds of a minute. */
export function pad(n: number): string {
  return String(n).padStart(2, '0');
}
