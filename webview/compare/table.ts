// The comparison table: one row per run (with the box that puts it on the chart), the
// hyperparameters that differ between the runs, highlighted, and final metrics; every column
// sorts, by a button in its header (keyboard: Tab to it, Enter or Space).
import { h, replaceChildren } from '../shared/dom.js';
import { toCsv } from '../shared/export.js';
import { formatValue } from '../shared/format.js';
import type { Flat } from './hparams.js';
import { shortName } from './hparams.js';

export interface TableRow {
  id: string;
  label: string;
  color: string;
  /** In the best configuration (main.ts's bestGroup): marked with a star. */
  best?: boolean;
  included: boolean;
  seed: string;
  state: string;
  hparams: Flat;
  finals: Record<string, number | undefined>;
}

export interface Column {
  /** Unique among the columns (the sort key). */
  key: string;
  /** The name looked up in the row: a hyperparameter or a metric. */
  field: string;
  label: string;
  kind: 'run' | 'text' | 'hparam' | 'final';
  /** Differs between the runs: highlighted. */
  differs?: boolean;
}

export interface Sort {
  key: string;
  descending: boolean;
}

export interface TableView {
  columns: Column[];
  rows: TableRow[];
  sort: Sort;
}

export function cellText(row: TableRow, column: Column): string {
  switch (column.kind) {
    case 'run':
      return row.label;
    case 'hparam':
      return row.hparams[column.field] ?? '–';
    case 'final':
      return formatValue(row.finals[column.field]);
    default:
      return column.field === 'seed' ? row.seed : row.state;
  }
}

function sortValue(row: TableRow, column: Column): number | string {
  if (column.kind === 'final') return row.finals[column.field] ?? Number.NaN;
  const text = cellText(row, column);
  const n = Number(text);
  return text !== '' && Number.isFinite(n) ? n : text;
}

/** Rows in the order of `sort`; runs without a value go last either way. */
export function sortRows(view: TableView): TableRow[] {
  const column = view.columns.find((c) => c.key === view.sort.key) ?? view.columns[0];
  const sign = view.sort.descending ? -1 : 1;
  return [...view.rows].sort((a, b) => {
    const x = sortValue(a, column);
    const y = sortValue(b, column);
    const xMissing = typeof x === 'number' && Number.isNaN(x);
    const yMissing = typeof y === 'number' && Number.isNaN(y);
    if (xMissing || yMissing) return xMissing === yMissing ? 0 : xMissing ? 1 : -1;
    if (typeof x === 'number' && typeof y === 'number') return sign * (x - y);
    return sign * String(x).localeCompare(String(y), undefined, { numeric: true });
  });
}

export class CompareTable {
  readonly element = h('div', { class: 'table-scroll' });
  private readonly boxes = new Map<string, HTMLInputElement>();

  constructor(
    private readonly handlers: {
      onInclude: (id: string, included: boolean) => void;
      onSort: (key: string) => void;
    },
  ) {}

  render(view: TableView): void {
    const focusedSort = (document.activeElement as HTMLElement | null)?.dataset?.sortKey;
    this.boxes.clear();
    const head = h(
      'tr',
      {},
      h('th', { attrs: { scope: 'col' } }, h('span', { class: 'visually-hidden', text: 'on chart' })),
      ...view.columns.map((c) => {
        const sorted = view.sort.key === c.key;
        const arrow = sorted ? (view.sort.descending ? ' ▼' : ' ▲') : '';
        return h(
          'th',
          {
            class: [c.kind === 'final' ? 'num' : '', c.differs ? 'differs' : ''].filter(Boolean).join(' '),
            attrs: { scope: 'col', 'aria-sort': sorted ? (view.sort.descending ? 'descending' : 'ascending') : undefined, title: c.field },
          },
          h('button', {
            class: 'sort',
            text: c.label + arrow,
            attrs: { 'data-sort-key': c.key, type: 'button' },
            on: { click: () => this.handlers.onSort(c.key) },
          }),
        );
      }),
    );
    const body = sortRows(view).map((row) => {
      const box = h('input', { attrs: { type: 'checkbox', 'aria-label': `show ${row.label} on the chart` } });
      box.checked = row.included;
      box.addEventListener('change', () => this.handlers.onInclude(row.id, box.checked));
      this.boxes.set(row.id, box);
      const swatch = h('span', { class: 'swatch', attrs: { 'aria-hidden': 'true' } });
      swatch.style.background = row.color;
      return h(
        'tr',
        { attrs: { 'data-run': row.id } },
        h('td', {}, box),
        ...view.columns.map((c) =>
          h(
            c.kind === 'run' ? 'th' : 'td',
            {
              class: [c.kind === 'final' ? 'num' : '', c.differs ? 'differs' : ''].filter(Boolean).join(' '),
              attrs: c.kind === 'run' ? { scope: 'row' } : { 'data-column': c.field },
            },
            c.kind === 'run' ? swatch : null,
            cellText(row, c),
            c.kind === 'run' && row.best ? h('span', { class: 'best', text: ' ★', attrs: { title: 'the best configuration', 'aria-label': 'best configuration' } }) : null,
          ),
        ),
      );
    });
    replaceChildren(this.element, h('table', { class: 'compare-table' }, h('thead', {}, head), h('tbody', {}, ...body)));
    // Sorting rebuilds the table: keep the keyboard where it was.
    if (focusedSort) (this.element.querySelector(`[data-sort-key="${CSS.escape(focusedSort)}"]`) as HTMLElement | null)?.focus();
  }

  /** Updates the swatch colours and boxes without rebuilding (keeps focus while toggling). */
  setIncluded(id: string, included: boolean): void {
    const box = this.boxes.get(id);
    if (box) box.checked = included;
  }
}

/** Column headers for hyperparameters read better without the `algorithm.` prefix. */
export function hparamColumn(name: string, differs: boolean): Column {
  return { key: `hp:${name}`, field: name, label: shortName(name), kind: 'hparam', differs };
}

export function finalColumn(metric: string, label: string): Column {
  return { key: `final:${metric}`, field: metric, label, kind: 'final' };
}

/**
 * The table as CSV, in the order shown: the run, then every column as the table has it, final
 * metrics with all their digits (the table rounds them for reading).
 */
export function tableCsv(view: TableView): string {
  const columns = view.columns;
  const rows = sortRows(view).map((row) => columns.map((c) => (c.kind === 'final' ? (row.finals[c.field] === undefined ? '' : String(row.finals[c.field])) : cellText(row, c))));
  return toCsv(
    columns.map((c) => (c.kind === 'final' || c.kind === 'hparam' ? c.field : c.label)),
    rows,
  );
}
