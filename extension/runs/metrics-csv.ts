// A run's metrics as CSV, for "Export Metrics as CSV…" in the Runs view: one row per logged step,
// a `step` column and one column per scalar metric the run logged (training and evaluation,
// their namespaced names as headers, sorted). A step logged again after a resume keeps the
// values of the run that went on (the later ones). Pure: tested without VS Code.
import type { RunEvent } from '../../runtime/run/reader.js';

export function metricsCsv(events: Iterable<RunEvent>): string {
  const rows = new Map<number, Map<string, number>>();
  const columns = new Set<string>();
  for (const event of events) {
    if (event.type !== 'metrics' && event.type !== 'eval') continue;
    let row = rows.get(event.step);
    if (!row) rows.set(event.step, (row = new Map()));
    for (const [name, value] of Object.entries(event.values)) {
      if (typeof value !== 'number') continue;
      row.set(name, value);
      columns.add(name);
    }
  }
  const header = ['step', ...[...columns].sort()];
  const lines = [header.map(csvField).join(',')];
  for (const step of [...rows.keys()].sort((a, b) => a - b)) {
    const row = rows.get(step)!;
    lines.push([String(step), ...header.slice(1).map((c) => (row.has(c) ? numberField(row.get(c)!) : ''))].join(','));
  }
  return lines.join('\n') + '\n';
}

/** NaN and infinities as the words spreadsheets and pandas read back. */
function numberField(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  return String(value);
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
