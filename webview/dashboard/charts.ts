// The dashboard's charts: which series a run gets, in which section and order. Every metric
// the run logs gets a chart (a future trainer's new metric shows up by itself), titled and
// placed by the one table of metrics (shared/metrics.ts); the ones the run's learners log are
// there from the start, saying what they wait for, and no other learner's are.
import { h } from '../shared/dom.js';
import { BYTE_INCREMENTS, byteTicks, formatBytes, formatClock, formatSteps, formatStepTick } from '../shared/format.js';
import { LiveChart, type LiveChartOptions, type Markers, type Range, type SeriesSource, type VerticalLines } from '../shared/live-chart.js';
import { estimateLines } from '../shared/memory.js';
import { isTextPlan, metricInfo, metricRank, metricTitle, NOT_CHARTED, SECTIONS, waitingMetrics, type Section, type SeriesTable } from '../shared/metrics.js';
import { curriculumLines, stageLines, type RunModel, type Table } from '../shared/run-model.js';
import type { Theme } from '../shared/theme.js';
import type { XMode } from '../shared/x-axis.js';

export type { XMode };

/** Milliseconds of chart drawing per frame before the rest waits for the next one. */
const FRAME_BUDGET_MS = 8;

interface ChartSpec {
  /** The metric's key (`losses/kl`), `episode/return` for the per-episode series. */
  id: string;
  title: string;
  table: SeriesTable;
  /** The column of the table. */
  column: string;
  section: Section;
  smoothable: boolean;
  /** The y axis's title (a unit), where the title does not say it. */
  unit?: string;
  /** Values are sizes: read and ticked in binary units. */
  bytes: boolean;
  /** What a step counts on the x axis: env steps, or a text run's samples. */
  text: boolean;
  /** Evaluation values marked on this chart. */
  evalKey?: string;
}

/** The evaluation's value marked on the per-episode charts. */
const EVAL_MARKS: Record<string, string> = { 'episode/return': 'eval/mean_return', 'episode/length': 'eval/mean_length' };

const EMPTY_TEXT: Record<SeriesTable, string> = {
  episodes: 'Waiting for the first episode',
  metrics: 'Waiting for the first update',
  evals: 'Waiting for the first evaluation',
};

function specOf(key: string, text: boolean): ChartSpec {
  const info = metricInfo(key);
  const episode = /^episode\/(.+)$/.exec(key)?.[1];
  return {
    id: key,
    title: metricTitle(key, text),
    table: info.table,
    column: episode ?? key,
    section: info.section,
    ...(info.unit ? { unit: info.unit } : {}),
    bytes: info.format === 'bytes',
    text,
    // Evaluations are few and each one already a mean: drawn as they are.
    smoothable: !info.exact && info.table !== 'evals',
    ...(EVAL_MARKS[key] ? { evalKey: EVAL_MARKS[key] } : {}),
  };
}

function rank(spec: ChartSpec): [number, number, string] {
  return [SECTIONS.indexOf(spec.section), metricRank(spec.id), spec.id];
}

function compareSpecs(a: ChartSpec, b: ChartSpec): number {
  const [sa, pa, ia] = rank(a);
  const [sb, pb, ib] = rank(b);
  return sa - sb || pa - pb || ia.localeCompare(ib);
}

/** The reward terms a run's plan declares: their charts wait for data like the others. */
function plannedTerms(run: RunModel): string[] {
  // Read defensively: the plan is a file on disk, any shape can turn up.
  const terms: unknown = (run.snapshot.plan as { reward?: { terms?: unknown } | null } | undefined)?.reward?.terms;
  return (Array.isArray(terms) ? terms : []).map((t) => (t as { name?: unknown } | null)?.name).filter((n): n is string => typeof n === 'string');
}

/** The keys a run gets charts for now: what its learners log (waiting), and every series it has. */
function chartedKeys(run: RunModel): string[] {
  const plan = run.snapshot.plan;
  const keys = waitingMetrics(plan);
  if (run.episodes.length > 0) keys.push('episode/return', 'episode/length');
  if (plannedTerms(run).length > 0) keys.push('rewards/total', ...plannedTerms(run).map((t) => `rewards/${t}`));
  keys.push(...run.metrics.keys(), ...run.evalTable.keys());
  return keys.filter((key) => !NOT_CHARTED.has(key));
}

export interface ChartBoardOptions {
  theme: () => Theme;
  xMode: XMode;
  smoothing: number;
  zoom: Record<string, Range>;
  onZoom: (id: string, range: Range | null) => void;
  onExport?: LiveChartOptions['onExport'];
}

export class ChartBoard {
  readonly element = h('div', { class: 'board' });
  private readonly sections = new Map<Section, HTMLElement>();
  private readonly charts = new Map<string, { spec: ChartSpec; chart: LiveChart }>();
  private run: RunModel | undefined;
  /** Bumped per run shown, so a chart never mistakes a new run's rows for the old one's. */
  private generation = 0;
  private evalsSeen = 0;
  private curriculumSeen = 0;
  /** The hparams the charts were drawn with (they hold the memory estimate's line). */
  private hparamsSeen: unknown;
  /** Where the next render starts, and its frame when one is pending. */
  private nextToRender = 0;
  private continuation = 0;
  private readonly visibility: IntersectionObserver;
  private readonly sizes: ResizeObserver;

  constructor(private readonly options: ChartBoardOptions) {
    for (const name of SECTIONS) {
      const grid = h('div', { class: 'chart-grid' });
      const section = h('section', { class: 'chart-section', hidden: true, attrs: { 'aria-label': name } }, h('h2', { text: name }), grid);
      this.sections.set(name, section);
      this.element.append(section);
    }
    // Off-screen charts keep up with the data but do not draw: a long dashboard stays cheap.
    this.visibility = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          const chart = this.chartOf(entry.target);
          chart?.setVisible(entry.isIntersecting);
          if (entry.isIntersecting) chart?.render();
        }
      },
      { rootMargin: '200px' },
    );
    this.sizes = new ResizeObserver((entries) => {
      for (const entry of entries) {
        const chart = this.chartOf(entry.target);
        chart?.setWidth(entry.contentRect.width);
        chart?.render();
      }
    });
  }

  private chartOf(element: Element): LiveChart | undefined {
    const id = (element as HTMLElement).dataset.metric;
    return id === undefined ? undefined : this.charts.get(id)?.chart;
  }

  setRun(run: RunModel | undefined): void {
    if (run === this.run) return;
    for (const { chart } of this.charts.values()) {
      this.visibility.unobserve(chart.element);
      this.sizes.unobserve(chart.element);
      chart.destroy();
    }
    this.charts.clear();
    this.run = run;
    this.generation++;
    this.evalsSeen = 0;
    this.curriculumSeen = 0;
    this.hparamsSeen = run?.hparams;
    if (run) this.update();
  }

  setXMode(mode: XMode): void {
    this.options.xMode = mode;
    for (const { chart } of this.charts.values()) {
      chart.setZoom(null); // a range of steps means nothing in seconds
      chart.markDirty();
    }
    this.render();
  }

  setSmoothing(weight: number): void {
    this.options.smoothing = weight;
    for (const { chart } of this.charts.values()) chart.setSmoothing(weight);
    this.render();
  }

  redraw(): void {
    for (const { chart } of this.charts.values()) chart.redraw();
  }

  /** Adds charts for series that appeared, then brings every chart up to date. */
  update(): void {
    const run = this.run;
    if (!run) return;
    const text = isTextPlan(run.snapshot.plan);
    const wanted = chartedKeys(run).map((key) => specOf(key, text));
    const added = new Set<Section>();
    for (const spec of wanted) {
      if (this.charts.has(spec.id)) continue;
      this.add(spec);
      added.add(spec.section);
    }
    for (const section of added) this.order(section);
    if (run.evals.length !== this.evalsSeen) {
      this.evalsSeen = run.evals.length;
      for (const { spec, chart } of this.charts.values()) if (spec.evalKey) chart.markDirty();
    }
    if (run.curriculum.length + run.stages.length !== this.curriculumSeen) {
      this.curriculumSeen = run.curriculum.length + run.stages.length;
      for (const { chart } of this.charts.values()) chart.markDirty();
    }
    if (run.hparams !== this.hparamsSeen) {
      this.hparamsSeen = run.hparams;
      for (const { chart } of this.charts.values()) chart.markDirty();
    }
    this.render();
  }

  /**
   * Brings the charts up to date within a frame budget: when a burst leaves many charts to
   * redraw, the rest wait for the next frame (starting where this one stopped), so streaming
   * updates never make one long frame of all of them.
   */
  render(): void {
    const charts = [...this.charts.values()];
    const deadline = performance.now() + FRAME_BUDGET_MS;
    const start = this.nextToRender;
    for (let n = 0; n < charts.length; n++) {
      if (n > 0 && performance.now() > deadline) {
        if (!this.continuation) this.continuation = requestAnimationFrame(() => {
          this.continuation = 0;
          this.render();
        });
        return;
      }
      const i = (start + n) % charts.length;
      charts[i].chart.render();
      this.nextToRender = (i + 1) % charts.length;
    }
  }

  private add(spec: ChartSpec): void {
    const run = this.run!;
    const chart = new LiveChart({
      id: spec.id,
      title: spec.title,
      titleHint: spec.table === 'episodes' ? `one point per training episode (its ${spec.column})` : `${spec.id} in events.jsonl`,
      emptyText: EMPTY_TEXT[spec.table],
      xTitle: () => (this.options.xMode === 'time' ? 'wall time' : spec.text ? 'steps (samples)' : 'env steps'),
      ...(spec.unit ? { yTitle: spec.unit } : {}),
      ...(spec.bytes ? { yValue: formatBytes, yTicks: byteTicks, yIncrs: BYTE_INCREMENTS } : {}),
      theme: this.options.theme,
      color: colorOf(spec),
      xValue: (x) => (this.options.xMode === 'step' ? `step ${formatSteps(x)}` : formatClock(x)),
      xTick: (x) => (this.options.xMode === 'step' ? formatStepTick(x) : formatClock(x)),
      syncKey: 'dashboard',
      smoothable: spec.smoothable,
      // Evaluations are few: each one marked.
      points: spec.table === 'evals',
      onZoom: this.options.onZoom,
      onExport: this.options.onExport,
    });
    chart.setSmoothing(this.options.smoothing);
    const zoom = this.options.zoom[spec.id];
    if (zoom) chart.setZoom(zoom);
    chart.setSource(this.sourceOf(run, spec), {
      ...(spec.evalKey ? { markers: () => this.markersOf(run, spec.evalKey!) } : {}),
      lines: () => this.verticalLines(run),
      // The memory estimate across the peak's chart, where the run has one.
      references: () => estimateLines(run, spec.id),
    });
    this.charts.set(spec.id, { spec, chart });
    this.sections.get(spec.section)!.hidden = false;
    this.visibility.observe(chart.element);
    this.sizes.observe(chart.element);
  }

  private order(section: Section): void {
    const grid = this.sections.get(section)!.querySelector('.chart-grid')!;
    const specs = [...this.charts.values()].filter((c) => c.spec.section === section).sort((a, b) => compareSpecs(a.spec, b.spec));
    for (const { chart } of specs) grid.append(chart.element);
  }

  private sourceOf(run: RunModel, spec: ChartSpec): SeriesSource {
    const table: Table = spec.table === 'episodes' ? run.episodes : spec.table === 'evals' ? run.evalTable : run.metrics;
    const generation = this.generation;
    return {
      length: () => table.length,
      xs: () => (this.options.xMode === 'step' ? table.steps.values : table.times.values),
      xOffset: () => (this.options.xMode === 'step' ? 0 : -(run.startTime ?? 0)),
      ys: () => table.column(spec.column).values,
      revision: () => `${generation}:${table.revision}:${this.options.xMode}`,
    };
  }

  /**
   * A line at the start of each stage after the first (`GRPO main`), and at each advance of the
   * run's curriculum, labelled with the new value (`size 7`).
   */
  private verticalLines(run: RunModel): VerticalLines | undefined {
    if (run.curriculum.length === 0 && run.stages.length < 2) return undefined;
    const stages = stageLines(run, this.options.xMode);
    const curriculum = curriculumLines(run, this.options.xMode);
    return { xs: [...stages.xs, ...curriculum.xs], labels: [...stages.labels, ...curriculum.labels] };
  }

  private markersOf(run: RunModel, key: string): Markers | undefined {
    const points = run.evals.filter((e) => Number.isFinite(e.values[key]));
    if (points.length === 0) return undefined;
    const step = this.options.xMode === 'step';
    const stop = run.stopStep === undefined ? -1 : points.findIndex((e) => e.step === run.stopStep);
    return {
      label: 'eval',
      xs: points.map((e) => (step ? e.step : e.time - (run.startTime ?? 0))),
      ys: points.map((e) => e.values[key]),
      ...(stop >= 0 ? { stop } : {}),
    };
  }

  /** Whether charts are still waiting for a frame to draw (a burst spread over frames). */
  get busy(): boolean {
    return this.continuation !== 0;
  }

  describe(): ReturnType<LiveChart['describe']>[] {
    return [...this.charts.values()].sort((a, b) => compareSpecs(a.spec, b.spec)).map(({ chart }) => chart.describe());
  }
}

function colorOf(spec: ChartSpec): number {
  switch (spec.section) {
    case 'Evaluation':
    case 'Episodes':
      return 0;
    case 'Training samples':
      return 2;
    case 'Reward terms':
      return spec.id === 'rewards/total' ? 0 : 2 + (hash(spec.id) % 4);
    case 'Losses':
      return 5;
    case 'Schedules and speed':
      return 3;
    default:
      return 4;
  }
}

function hash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) >>> 0;
  return h;
}
