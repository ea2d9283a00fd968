// Run comparison: several runs (seeds of one experiment, the members of a sweep, or any mix)
// overlaid or as mean and min-max band per configuration, with their hyperparameters side by
// side. Entry point of dist/webview/compare.js.
import type { HostMessage, PersistedPageState } from '../protocol.js';
import { Bridge, exposeTestHook } from '../shared/bridge.js';
import { h, replaceChildren } from '../shared/dom.js';
import { formatClock, formatSteps, formatStepTick, formatValue } from '../shared/format.js';
import type { RunModel } from '../shared/run-model.js';
import { ESTIMATE_HPARAM, memoryEstimate, PEAK_METRIC } from '../shared/memory.js';
import { isTextPlan, metricInfo, metricTitle } from '../shared/metrics.js';
import { Runs } from '../shared/runs.js';
import { watchTheme } from '../shared/theme.js';
import { xAxisPicker } from '../shared/x-axis.js';
import { checkbox, dropdown, radioGroup, slider } from '../ui/components.js';
import { aggregate, commonGrid, lastPerX, sampleAt } from './aggregate.js';
import { CompareChart, type ChartData, type ChartSeries, type Range } from './chart.js';
import { groupRuns, hparamTable, type RunGroup } from './hparams.js';
import { curveOf, finalValue, metricChoices, settledBasis, settledValue, type XMode } from './series.js';
import { exportButtons } from '../shared/export.js';
import { CompareTable, finalColumn, hparamColumn, nameRun, tableCsv, type Column, type Sort, type TableView } from './table.js';

type Mode = 'runs' | 'band';

interface CompareState extends PersistedPageState {
  /** Runs left off the chart (new runs are on it by default). */
  excluded: string[];
  metric: string;
  mode: Mode;
  smoothing: number;
  xAxis: XMode;
  sort: Sort;
  showAll: boolean;
  zoom: Range | null;
}

const DEFAULT_STATE: CompareState = {
  runs: [],
  excluded: [],
  metric: 'episode/return',
  mode: 'band',
  smoothing: 0.6,
  xAxis: 'step',
  sort: { key: 'run', descending: false },
  showAll: false,
  zoom: null,
};

/** Final metrics in the table (those no run has are left out). */
const FINALS: [string, string][] = [
  ['train/mean_return', 'train return'],
  ['eval/mean_return', 'eval return'],
  ['train/success', 'train success'],
  ['eval/success', 'eval success'],
  ['charts/sps', 'steps/s'],
];

const runs = new Runs();
let dirty = true;
let lastChart: ChartData | undefined;
let lastGroups: RunGroup[] = [];
let lastBest: { group: number; value: number } | undefined;
let lastView: TableView | undefined;
let tableKey = '';
let metricChoicesKey = '';

const bridge = new Bridge<CompareState>('compare', applyBatch);
const state = bridge.loadState(DEFAULT_STATE);
let theme = watchTheme((next) => {
  theme = next;
  chart.redraw();
  render(true);
});

const save = () => bridge.saveState(state);

const chart = new CompareChart({
  theme: () => theme,
  xValue: (x) => (state.xAxis === 'step' ? `step ${formatSteps(x)}` : formatClock(x)),
  xTick: (x) => (state.xAxis === 'step' ? formatStepTick(x) : formatClock(x)),
  onZoom: (range) => {
    state.zoom = range;
    save();
  },
  onExport: (file) => bridge.post(file),
});
chart.setZoom(state.zoom);

const table = new CompareTable({
  onInclude: (id, included) => {
    state.excluded = included ? state.excluded.filter((x) => x !== id) : [...state.excluded, id];
    save();
    render(false);
  },
  onSort: (key) => {
    state.sort = { key, descending: state.sort.key === key ? !state.sort.descending : false };
    save();
    render(true);
  },
});

const metricPicker = dropdown({
  label: 'Metric',
  id: 'metric',
  choices: [{ value: state.metric, label: state.metric }],
  value: state.metric,
  onChange: (metric) => {
    if (!metric || metric === state.metric) return;
    state.metric = metric;
    state.zoom = null;
    chart.setZoom(null);
    save();
    render(true);
  },
});

const modeGroup = radioGroup({
  label: 'Show',
  id: 'mode',
  value: state.mode,
  choices: [
    { value: 'band', label: 'Mean and range over seeds' },
    { value: 'runs', label: 'Each run' },
  ],
  onChange: (value) => {
    const mode: Mode = value === 'runs' ? 'runs' : 'band';
    if (mode === state.mode) return;
    state.mode = mode;
    save();
    render(true);
  },
});

const smoothingSlider = slider({
  label: 'Smoothing',
  id: 'smoothing',
  min: 0,
  max: 0.99,
  step: 0.01,
  value: state.smoothing,
  format: (v) => v.toFixed(2),
  onInput: (value) => {
    state.smoothing = value;
    save();
    render(true);
  },
});

const xAxisGroup = xAxisPicker(
  () => state.xAxis,
  (mode) => {
    state.xAxis = mode;
    state.zoom = null;
    chart.setZoom(null);
    save();
    render(false);
  },
);

const showAll = checkbox({
  label: 'Show every hyperparameter',
  checked: state.showAll,
  onChange: (checked) => {
    if (checked === state.showAll) return;
    state.showAll = checked;
    save();
    render(true);
  },
});

const summary = h('p', { class: 'summary' });
const waiting = h('p', { class: 'placeholder', text: 'Waiting for the runs from the editor…' });
const root = document.getElementById('root')!;
const page = [
  h('h1', { text: 'Compare runs' }),
  summary,
  h('div', { class: 'toolbar', role: 'toolbar', attrs: { 'aria-label': 'Chart settings' } }, metricPicker.element, modeGroup, smoothingSlider.element, xAxisGroup),
  chart.element,
  h(
    'div',
    { class: 'table-head' },
    h('h2', { text: 'Runs and hyperparameters' }),
    showAll,
    h('span', { class: 'hint legend-differs', text: 'highlighted: differs between the runs' }),
    exportButtons('the table', [{ label: 'CSV', run: () => lastView && bridge.post({ type: 'save', name: 'compare-runs.csv', format: 'csv', data: tableCsv(lastView), encoding: 'utf8' }) }]),
  ),
  table.element,
];
replaceChildren(root, waiting);
root.removeAttribute('aria-busy');
new ResizeObserver(() => chart.resize()).observe(chart.element);

function applyBatch(messages: HostMessage[]): void {
  for (const message of messages) {
    runs.apply(message);
    if (message.type === 'runs') {
      state.runs = runs.order;
      save();
    }
  }
  dirty = true;
  render(true);
}

function ordered(): RunModel[] {
  return runs.list();
}

/** Redraws the chart, and the table when `withTable` (its structure or values may have changed). */
function render(withTable: boolean): void {
  const all = ordered();
  if (all.length === 0) {
    replaceChildren(root, waiting);
    return;
  }
  if (root.firstChild === waiting) replaceChildren(root, ...page);
  const choices = metricChoices(all);
  if (!choices.includes(state.metric)) choices.push(state.metric);
  // Rebuilding the options would close the list under the user's pointer: only when they change.
  const choicesKey = choices.join('\n');
  if (choicesKey !== metricChoicesKey) {
    metricChoicesKey = choicesKey;
    metricPicker.setChoices(
      choices.map((m) => ({ value: m, label: metricLabel(m) })),
      state.metric,
    );
  } else metricPicker.setValue(state.metric);

  const hp = hparamTable(all.map((r) => ({ id: r.id, plan: r.snapshot.plan })));
  lastGroups = groupRuns(
    all.map((r) => ({ id: r.id, experiment: r.snapshot.experiment, plan: r.snapshot.plan })),
    hp,
  );
  const groupOf = new Map<string, number>();
  lastGroups.forEach((g, i) => g.runIds.forEach((id) => groupOf.set(id, i)));
  const included = all.filter((r) => !state.excluded.includes(r.id));
  // A band is one colour per configuration; each run on its own gets its own colour.
  const colorIndex = (run: RunModel) => (state.mode === 'band' ? groupOf.get(run.id)! : all.indexOf(run));
  const runLabel = (run: RunModel) => `${lastGroups.length > 1 ? lastGroups[groupOf.get(run.id)!].label : run.snapshot.experiment} · seed ${run.seed ?? '?'}`;
  lastBest = bestGroup(lastGroups, all, state.metric, state.xAxis);
  const sweeps = sweepNames(all);
  const best = lastBest ? ` Best by ${bestRule(state.metric)}: ★ ${lastGroups[lastBest.group].label} (${formatValue(lastBest.value)}).` : '';
  summary.textContent = `${all.length} run${all.length === 1 ? '' : 's'}${sweeps.length > 0 ? ` of sweep ${sweeps.join(', ')}` : ''} in ${lastGroups.length} configuration${lastGroups.length === 1 ? '' : 's'} (runs that differ only in their seed); ${included.length} on the chart.${best}`;

  lastChart = chartData(included, colorIndex, runLabel);
  const format = metricInfo(state.metric).format;
  chart.show(metricLabel(state.metric), lastChart, included.length === 0 ? 'No run selected: tick runs in the table below' : 'No run has logged this metric yet', format);

  if (withTable || dirty) {
    dirty = false;
    const columns: Column[] = [
      { key: 'run', field: 'run', label: 'run', kind: 'run' },
      { key: 'seed', field: 'seed', label: 'seed', kind: 'text' },
      { key: 'state', field: 'state', label: 'state', kind: 'text' },
      // What differs first; the rest, when asked for, after it.
      ...hp.differing.map((k) => hparamColumn(k, true)),
      ...(state.showAll ? hp.keys.filter((k) => !hp.differing.includes(k)) : []).map((k) => hparamColumn(k, false)),
      finalColumn('steps', 'steps'),
      finalColumn(state.metric, `final ${metricLabel(state.metric)}`, format),
      ...FINALS.filter(([key]) => key !== state.metric && all.some((r) => r.latestMetric(key) !== undefined)).map(([key, label]) => finalColumn(key, label)),
      // Runs with a memory estimate (pretrained models'): the measured peak beside it.
      ...(all.some((r) => memoryEstimate(r) !== undefined)
        ? [...(state.metric === PEAK_METRIC ? [] : [finalColumn(PEAK_METRIC, 'peak memory', 'bytes')]), finalColumn(ESTIMATE_HPARAM, 'memory estimate', 'bytes')]
        : []),
    ];
    // The same run id can appear under several experiments.
    const withExperiment = new Set(all.map((r) => r.snapshot.experiment)).size > 1;
    lastView = {
      bestTitle: `the best configuration by ${bestRule(state.metric)}`,
      columns,
      sort: state.sort,
      rows: all.map((run) => ({
        id: run.id,
        ...nameRun({ experiment: run.snapshot.experiment, runId: run.snapshot.runId, seed: run.seed, plan: run.snapshot.plan }, withExperiment),
        color: theme.categorical[colorIndex(run) % theme.categorical.length],
        included: !state.excluded.includes(run.id),
        ...(lastBest && groupOf.get(run.id) === lastBest.group ? { best: true } : {}),
        seed: run.seed === undefined ? '–' : String(run.seed),
        state: run.state,
        hparams: hp.values.get(run.id) ?? {},
        finals: {
          steps: run.step,
          [state.metric]: finalValue(curveOf(run, state.metric, state.xAxis, 0)),
          ...Object.fromEntries(FINALS.map(([key]) => [key, run.latestMetric(key)])),
          ...(state.metric === PEAK_METRIC ? {} : { [PEAK_METRIC]: run.latestMetric(PEAK_METRIC) }),
          [ESTIMATE_HPARAM]: memoryEstimate(run),
        },
      })),
    };
    const key = JSON.stringify(lastView);
    if (key !== tableKey) {
      tableKey = key;
      table.render(lastView);
    }
  } else {
    for (const run of all) table.setIncluded(run.id, !state.excluded.includes(run.id));
  }
}

function chartData(included: RunModel[], colorIndex: (run: RunModel) => number, runLabel: (run: RunModel) => string): ChartData {
  const curves = new Map(included.map((r) => [r.id, lastPerX(curveOf(r, state.metric, state.xAxis, state.smoothing))]));
  const xs = commonGrid([...curves.values()]);
  const series: ChartSeries[] = [];
  const bands: ChartData['bands'] = [];
  if (state.mode === 'runs') {
    for (const run of included) {
      series.push({ label: runLabel(run), color: colorIndex(run), values: sampleAt(curves.get(run.id)!, xs), width: 1.5 });
    }
  } else {
    lastGroups.forEach((group, g) => {
      const members = group.runIds.filter((id) => curves.has(id));
      if (members.length === 0) return;
      const agg = aggregate(
        members.map((id) => curves.get(id)!),
        xs,
      );
      const seeds = members.length === 1 ? '1 run' : `${members.length} runs`;
      const base = series.length;
      const star = lastBest?.group === g ? ' ★ best' : '';
      // A band of one run is no spread: it stops where fewer than two runs remain (the mean
      // goes on, its read-out saying how many runs it averages there).
      const spread = (values: (number | null)[]) => values.map((v, i) => (agg.count[i] >= 2 ? v : null));
      series.push({ label: `${group.label} (mean of ${seeds})${star}`, color: g, values: agg.mean, width: 2, counts: agg.count, of: members.length });
      series.push({ label: 'max', color: g, values: spread(agg.max), width: 0.5, alpha: 0.4, edge: true });
      series.push({ label: 'min', color: g, values: spread(agg.min), width: 0.5, alpha: 0.4, edge: true });
      bands.push({ upper: base + 1, lower: base + 2, color: g });
    });
  }
  return { xs, series, bands };
}

/**
 * The configuration whose runs end best on `metric`: the mean of its runs' last values, highest
 * (lowest for losses) first; none with a single configuration or no values yet.
 */
function bestGroup(groups: RunGroup[], all: RunModel[], metric: string, xAxis: XMode): { group: number; value: number } | undefined {
  if (groups.length < 2) return undefined;
  const byId = new Map(all.map((r) => [r.id, r]));
  let best: { group: number; value: number } | undefined;
  groups.forEach((group, g) => {
    const finals = group.runIds.map((id) => settledValue(byId.get(id)!, metric, xAxis)).filter((v): v is number => v !== undefined);
    if (finals.length === 0) return;
    const value = finals.reduce((a, b) => a + b, 0) / finals.length;
    if (!best || (lowerIsBetter(metric) ? value < best.value : value > best.value)) best = { group: g, value };
  });
  return best;
}

/** Losses are better low; returns, successes, rates better high. */
function lowerIsBetter(metric: string): boolean {
  return metricInfo(metric).lowerIsBetter === true;
}

/** How the best configuration is chosen, in words, for the summary and the star's tooltip. */
function bestRule(metric: string): string {
  return `${metricLabel(metric)}, ${settledBasis(metric)} per run, averaged over the configuration's runs (${lowerIsBetter(metric) ? 'lowest' : 'highest'})`;
}

/** The sweeps the runs belong to (plan.json's `sweep.name`), in first-seen order. */
function sweepNames(all: RunModel[]): string[] {
  const names = all.map((r) => (r.snapshot.plan as { sweep?: { name?: unknown } | null } | undefined)?.sweep?.name).filter((n): n is string => typeof n === 'string');
  return [...new Set(names)];
}

/** A metric's name on this page: its title in the one table of metrics (shared/metrics.ts). */
function metricLabel(metric: string): string {
  return metricTitle(metric, runs.list().some((r) => isTextPlan(r.snapshot.plan)));
}

exposeTestHook(() => ({
  page: 'compare',
  runs: runs.order,
  included: ordered()
    .filter((r) => !state.excluded.includes(r.id))
    .map((r) => r.id),
  metric: state.metric,
  mode: state.mode,
  smoothing: state.smoothing,
  xAxis: state.xAxis,
  groups: lastGroups,
  best: lastBest ? lastGroups[lastBest.group]?.label : undefined,
  summary: summary.textContent,
  legend: chart.legendText(),
  colors: ordered().map((r) => table.element.querySelector<HTMLElement>(`tr[data-run="${CSS.escape(r.id)}"] .swatch`)?.style.background ?? ''),
  chart: lastChart && { xs: lastChart.xs, series: lastChart.series.map((s) => ({ label: s.label, values: s.values, counts: s.counts })) },
  table: lastView && {
    columns: lastView.columns.map((c) => ({ key: c.key, label: c.label, differs: c.differs ?? false })),
    rows: [...table.element.querySelectorAll('tbody tr')].map((tr) => (tr as HTMLElement).dataset.run),
    sort: lastView.sort,
  },
}));

bridge.ready();
