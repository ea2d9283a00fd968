// The dashboard's charts: which series a run gets, in which section and order. Every metric
// the run logs gets a chart (a future trainer's new metric shows up by itself); the ones a
// PPO user looks at first are there from the start, saying what they wait for.
import { h } from '../shared/dom.js';
import { formatClock, formatSteps, formatStepTick } from '../shared/format.js';
import { LiveChart, type LiveChartOptions, type Markers, type Range, type SeriesSource, type VerticalLines } from '../shared/live-chart.js';
import { curriculumLines, type RunModel, type Table } from '../shared/run-model.js';
import type { Theme } from '../shared/theme.js';
import type { XMode } from '../shared/x-axis.js';

export type { XMode };

/** Milliseconds of chart drawing per frame before the rest waits for the next one. */
const FRAME_BUDGET_MS = 8;

interface ChartSpec {
  id: string;
  title: string;
  table: 'metrics' | 'episodes';
  key: string;
  section: Section;
  /** Evaluation values marked on this chart. */
  evalKey?: string;
}

type Section = 'Episodes' | 'Reward terms' | 'Losses' | 'Schedules and speed' | 'More';
const SECTIONS: Section[] = ['Episodes', 'Reward terms', 'Losses', 'Schedules and speed', 'More'];

const EPISODE_CHARTS: ChartSpec[] = [
  { id: 'episode/return', title: 'Episode return', table: 'episodes', key: 'return', section: 'Episodes', evalKey: 'eval/mean_return' },
  { id: 'episode/length', title: 'Episode length', table: 'episodes', key: 'length', section: 'Episodes', evalKey: 'eval/mean_length' },
];

/** Metrics charted from the start, in this order; others follow in key order. */
const PREFERRED = [
  'episode/return',
  'episode/length',
  'rewards/total',
  'losses/policy_loss',
  'losses/value_loss',
  'losses/entropy',
  'losses/approx_kl',
  'losses/old_approx_kl',
  'losses/clipfrac',
  'losses/explained_variance',
  'losses/grad_norm',
  'charts/learning_rate',
  'charts/clip',
  'charts/entropy_coef',
  'charts/sps',
];
const SHOWN_BEFORE_DATA = new Set(['losses/policy_loss', 'losses/value_loss', 'losses/entropy', 'losses/approx_kl', 'losses/clipfrac', 'charts/learning_rate']);

/** Exact values (schedules, counters): averaging them would only show something untrue. */
const NOT_SMOOTHED = new Set(['charts/learning_rate', 'charts/clip', 'charts/entropy_coef', 'losses/gradient_steps']);

/** Per-update means of what the episode charts show one point per episode of. */
const NOT_CHARTED = new Set(['charts/episodic_return', 'charts/episodic_length']);

const TITLES: Record<string, string> = {
  'rewards/total': 'Training return (all terms)',
  'losses/policy_loss': 'Policy loss',
  'losses/value_loss': 'Value loss',
  'losses/entropy': 'Entropy',
  'losses/approx_kl': 'Approx. KL',
  'losses/old_approx_kl': 'Approx. KL (old estimator)',
  'losses/clipfrac': 'Clip fraction',
  'losses/explained_variance': 'Explained variance',
  'losses/grad_norm': 'Gradient norm',
  'losses/gradient_steps': 'Gradient steps per update',
  'charts/learning_rate': 'Learning rate',
  'charts/clip': 'Clip coefficient',
  'charts/entropy_coef': 'Entropy coefficient',
  'charts/sps': 'Steps per second',
  'charts/episodes': 'Episodes per update',
  'train/mean_return': 'Mean return (last 20 episodes)',
  'train/mean_length': 'Mean length (last 20 episodes)',
  'train/success': 'Success rate (last 20 episodes)',
};

function sectionOf(key: string): Section {
  if (key.startsWith('rewards/')) return 'Reward terms';
  if (key.startsWith('losses/') && key !== 'losses/gradient_steps') return 'Losses';
  if (key === 'charts/learning_rate' || key === 'charts/clip' || key === 'charts/entropy_coef' || key === 'charts/sps') return 'Schedules and speed';
  return 'More';
}

function metricSpec(key: string): ChartSpec {
  const term = /^rewards\/(.+)$/.exec(key)?.[1];
  const title = TITLES[key] ?? (term ? `Reward term: ${term}` : key);
  return { id: key, title, table: 'metrics', key, section: sectionOf(key) };
}

function rank(spec: ChartSpec): [number, number, string] {
  const preferred = PREFERRED.indexOf(spec.id);
  return [SECTIONS.indexOf(spec.section), preferred === -1 ? PREFERRED.length : preferred, spec.id];
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
    const wanted = [...EPISODE_CHARTS, ...[...SHOWN_BEFORE_DATA].map(metricSpec)];
    if (plannedTerms(run).length > 0) wanted.push(metricSpec('rewards/total'), ...plannedTerms(run).map((t) => metricSpec(`rewards/${t}`)));
    for (const key of run.metrics.keys()) if (!NOT_CHARTED.has(key)) wanted.push(metricSpec(key));
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
    if (run.curriculum.length !== this.curriculumSeen) {
      this.curriculumSeen = run.curriculum.length;
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
      emptyText: spec.table === 'episodes' ? 'Waiting for the first episode' : 'Waiting for the first update',
      theme: this.options.theme,
      color: colorOf(spec),
      xValue: (x) => (this.options.xMode === 'step' ? `step ${formatSteps(x)}` : formatClock(x)),
      xTick: (x) => (this.options.xMode === 'step' ? formatStepTick(x) : formatClock(x)),
      syncKey: 'dashboard',
      smoothable: !NOT_SMOOTHED.has(spec.id),
      onZoom: this.options.onZoom,
      onExport: this.options.onExport,
    });
    chart.setSmoothing(this.options.smoothing);
    const zoom = this.options.zoom[spec.id];
    if (zoom) chart.setZoom(zoom);
    chart.setSource(this.sourceOf(run, spec), spec.evalKey ? () => this.markersOf(run, spec.evalKey!) : undefined, () => this.curriculumLines(run));
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
    const table: Table = spec.table === 'episodes' ? run.episodes : run.metrics;
    const generation = this.generation;
    return {
      length: () => table.length,
      xs: () => (this.options.xMode === 'step' ? table.steps.values : table.times.values),
      xOffset: () => (this.options.xMode === 'step' ? 0 : -(run.startTime ?? 0)),
      ys: () => table.column(spec.key).values,
      revision: () => `${generation}:${table.revision}:${this.options.xMode}`,
    };
  }

  /** A line at each advance of the run's curriculum, labelled with the new value (`size 7`). */
  private curriculumLines(run: RunModel): VerticalLines | undefined {
    if (run.curriculum.length === 0) return undefined;
    return curriculumLines(run, this.options.xMode);
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
    case 'Episodes':
      return 0;
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
