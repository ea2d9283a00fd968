// The comparison table: one row per run (with the box that puts it on the chart), the
// hyperparameters that differ between the runs, highlighted, and final metrics; every column
// sorts, by a button in its header (keyboard: Tab to it, Enter or Space).
import { h, replaceChildren } from '../shared/dom.js';
import { toCsv } from '../shared/export.js';
import { formatBytes, formatValue } from '../shared/format.js';
import type { Flat } from './hparams.js';
import { shortName, sweepMemberLabel } from './hparams.js';

export interface TableRow {
  id: string;
  /** What the run column shows: a sweep member's varied values and seed, else the run id. */
  label: string;
  /** The run's directory name (with its experiment when the runs span several): under the label when that is not it. */
  runId: string;
  /** The run column's order, compared item by item: a sweep's members by configuration, then seed. */
  order: (string | number)[];
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
  /** A final figure that is a size: read in binary units (`5.5 GiB`); sorted and exported in bytes. */
  format?: 'bytes';
}

export interface Sort {
  key: string;
  descending: boolean;
}

export interface TableView {
  /** The best configuration's star's tooltip: how it was chosen. */
  bestTitle?: string;
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
    case 'final': {
      const value = row.finals[column.field];
      return column.format === 'bytes' && value !== undefined && Number.isFinite(value) ? formatBytes(value) : formatValue(value);
    }
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

function compareValues(x: number | string, y: number | string): number {
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  return String(x).localeCompare(String(y), undefined, { numeric: true });
}

function compareOrder(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** Rows in the order of `sort`; runs without a value go last either way. */
export function sortRows(view: TableView): TableRow[] {
  const column = view.columns.find((c) => c.key === view.sort.key) ?? view.columns[0];
  const sign = view.sort.descending ? -1 : 1;
  if (column.kind === 'run') return [...view.rows].sort((a, b) => sign * compareOrder(a.order, b.order));
  return [...view.rows].sort((a, b) => {
    const x = sortValue(a, column);
    const y = sortValue(b, column);
    const xMissing = typeof x === 'number' && Number.isNaN(x);
    const yMissing = typeof y === 'number' && Number.isNaN(y);
    if (xMissing || yMissing) return xMissing === yMissing ? 0 : xMissing ? 1 : -1;
    return sign * compareValues(x, y);
  });
}

/** What a run row needs of its run: its plan says whether (and how) it is a sweep member. */
export interface RunNaming {
  experiment: string;
  runId: string;
  seed: number | undefined;
  plan?: unknown;
}

/**
 * A run's label, id and order in the table. A sweep member is named by the values it varies (its
 * id is a start time and a tag, which sort seed 2 before seed 1 when the members started out of
 * order) and ordered by its sweep, configuration and seed; any other run by its id, as before.
 * `withExperiment` when the runs span several experiments (the same run id can be in each).
 */
export function nameRun(run: RunNaming, withExperiment: boolean): Pick<TableRow, 'label' | 'runId' | 'order'> {
  const prefix = withExperiment ? `${run.experiment} / ` : '';
  const runId = prefix + run.runId;
  const sweep = sweepOf(run.plan);
  const member = sweep ? sweepMemberLabel(sweep.values, run.seed) : '';
  if (!sweep || member === '') return { label: runId, runId, order: [runId] };
  return { label: prefix + member, runId, order: [prefix + sweep.name, sweep.index, run.seed ?? Number.MAX_SAFE_INTEGER, run.runId] };
}

/** A plan's `sweep` field when it has the shape plan.json gives it (an odd plan is not a sweep member here). */
function sweepOf(plan: unknown): { name: string; index: number; values: Record<string, unknown> } | undefined {
  const sweep = (plan as { sweep?: unknown } | null | undefined)?.sweep as Record<string, unknown> | null | undefined;
  if (!sweep || typeof sweep !== 'object') return undefined;
  const { name, index, values } = sweep;
  if (typeof name !== 'string' || typeof index !== 'number' || values === null || typeof values !== 'object' || Array.isArray(values)) return undefined;
  return { name, index, values: values as Record<string, unknown> };
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
              attrs: c.kind === 'run' ? { scope: 'row', title: row.runId } : { 'data-column': c.field },
            },
            c.kind === 'run' ? swatch : null,
            c.kind === 'run' ? h('span', { class: 'run-name', text: row.label }) : cellText(row, c),
            c.kind === 'run' && row.best ? h('span', { class: 'best', text: ' ★', attrs: { title: view.bestTitle ?? 'the best configuration', 'aria-label': 'best configuration' } }) : null,
            // The directory's name stays at hand (to find or copy it) when the label is not it.
            c.kind === 'run' && row.label !== row.runId ? h('span', { class: 'run-id', text: row.runId }) : null,
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

export function finalColumn(metric: string, label: string, format?: 'bytes'): Column {
  return { key: `final:${metric}`, field: metric, label, kind: 'final', ...(format ? { format } : {}) };
}

/**
 * The table as CSV, in the order shown: the run, then every column as the table has it, final
 * metrics with all their digits (the table rounds them for reading). Runs named by what they vary
 * keep their id in a `run id` column beside the name.
 */
export function tableCsv(view: TableView): string {
  const withIds = view.rows.some((row) => row.label !== row.runId);
  const fields = (row: TableRow, c: Column) => {
    if (c.kind === 'final') return [row.finals[c.field] === undefined ? '' : String(row.finals[c.field])];
    return c.kind === 'run' && withIds ? [cellText(row, c), row.runId] : [cellText(row, c)];
  };
  const header = (c: Column) => (c.kind === 'final' || c.kind === 'hparam' ? [c.field] : c.kind === 'run' && withIds ? [c.label, 'run id'] : [c.label]);
  return toCsv(
    view.columns.flatMap(header),
    sortRows(view).map((row) => view.columns.flatMap((c) => fields(row, c))),
  );
}
