// Exporting what a page shows: a chart as PNG (its canvas as drawn) or SVG (built from the
// series data, axes and legend, so it stays sharp and editable), a table as CSV. The page
// cannot write files: it hands the file to the extension host (a `save` message), which asks
// where to save it (showSaveDialog).
import type { PageMessage } from '../protocol.js';
import { h } from './dom.js';

export type ExportFile = Extract<PageMessage, { type: 'save' }>;

/** A file name from a title: `Episode return` -> `episode-return`. */
export function fileStem(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'chart'
  );
}

/** A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180). */
function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(header: string[], rows: string[][]): string {
  return [header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/** Small buttons (`PNG`, `SVG`, `CSV`) that each export one format. */
export function exportButtons(what: string, formats: { label: string; run: () => void }[]): HTMLElement {
  return h(
    'span',
    { class: 'export-buttons', role: 'group', attrs: { 'aria-label': `Export ${what}` } },
    ...formats.map((f) => h('button', { class: 'export', text: f.label, attrs: { type: 'button', title: `Save ${what} as ${f.label}`, 'data-export': f.label.toLowerCase() }, on: { click: f.run } })),
  );
}
