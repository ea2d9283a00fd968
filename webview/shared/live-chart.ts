// A chart of one growing series: raw values (faint), their moving average (bold), and optional
// markers (evaluations), vertical lines (stages, a curriculum) and horizontal ones (an
// estimate). New rows are smoothed and decimated incrementally, so a frame costs O(new rows +
// pixels) however long the run is; uPlot then gets a few thousand points via setData instead
// of a redraw from the raw history.
import { lowerBound } from './columns.js';
import { h, setAttr, setText } from './dom.js';
import { Decimator, decimateRange } from './decimate.js';
import { exportButtons, fileStem, type ExportFile } from './export.js';
import { formatValue } from './format.js';
import { createPlot, type Plot, type uPlot } from './plot.js';
import { emaInto, emptyEma, type EmaState } from './smoothing.js';
import type { Theme } from './theme.js';

export interface SeriesSource {
  /** Rows available; `xs()` and `ys()` are valid up to here. */
  length(): number;
  /** x per row (steps, or times to which `xOffset` is added); non-decreasing. */
  xs(): Float64Array;
  xOffset(): number;
  ys(): Float64Array;
  /** Changes when rows were removed or the x column switched: everything is recomputed. */
  revision(): string;
}

export interface Markers {
  label: string;
  xs: number[];
  ys: number[];
  /** The index of the marker that met the run's stop condition: drawn apart, filled. */
  stop?: number;
}

/** The legend's name of the evaluation that stopped the run. */
const STOP_LABEL = 'met stop';

/** Vertical lines across the plot at these x (a curriculum's advances), each with a short label. */
export interface VerticalLines {
  xs: number[];
  labels: string[];
}

/** Horizontal lines across the plot at these y (a reference: the memory estimate), each labelled; the y range takes them in. */
export interface HorizontalLines {
  ys: number[];
  labels: string[];
}

/** What a chart draws besides its series, each read at every draw. */
export interface ChartOverlays {
  markers?: () => Markers | undefined;
  lines?: () => VerticalLines | undefined;
  references?: () => HorizontalLines | undefined;
}

export type Range = { min: number; max: number };

export interface LiveChartOptions {
  id: string;
  title: string;
  /** The title's tooltip: what the series is, by the name a user finds in events.jsonl. */
  titleHint?: string;
  /** The axes' titles: x (env steps or wall time, which changes) and y (a unit, where the title does not say it). */
  xTitle: () => string;
  yTitle?: string;
  /** A value as read out (header, legend); default formatValue. Sizes: formatBytes. */
  yValue?: (y: number) => string;
  /** The y axis's tick labels and spacings, where the values have units of their own (bytes). */
  yTicks?: (splits: number[]) => string[];
  yIncrs?: readonly number[];
  /** Shown over the plot while there are no rows. */
  emptyText: string;
  theme: () => Theme;
  color: number;
  xValue: (x: number) => string;
  xTick: (x: number) => string;
  syncKey: string;
  /** False for exact series (schedules): drawn as they are, never averaged. */
  smoothable: boolean;
  /** Marks every point (a series of a few points, such as evaluations). */
  points?: boolean;
  onZoom: (id: string, range: Range | null) => void;
  /** Hands an export of the chart (PNG, SVG) to the host; without it the chart offers none. */
  onExport?: (file: ExportFile) => void;
}

const HEIGHT = 205;

export class LiveChart {
  readonly element: HTMLElement;
  private readonly plotHost: HTMLElement;
  private readonly empty: HTMLElement;
  private readonly latest: HTMLElement;
  private readonly latestValue: HTMLElement;
  private plot: Plot | undefined;
  private source: SeriesSource | undefined;
  private overlays: ChartOverlays = {};
  /** The reference lines at the last draw, and whether each fell inside the plot. */
  private referencesDrawn: { y: number; label: string; drawn: boolean }[] = [];

  private smoothing = 0;
  private zoom: Range | null = null;
  private width = 0;
  private visible = false;
  private dirty = true;

  // What has been consumed of the source so far.
  private consumed = 0;
  private seenRevision = '';
  private seenSmoothing = -1;
  private decimator: Decimator | undefined;
  private smoothed = new Float64Array(0);
  private ema: EmaState = emptyEma();
  private indexBuffer = new Int32Array(0);
  /** Points handed to uPlot at the last render (decimated, plus markers). */
  private shown = 0;
  /** The markers handed to uPlot at the last render. */
  private marks: { total: number; stop: boolean } | undefined;
  /** Whether the plot was made with the evaluations' series, and with that of the one that met the stop condition. */
  private plotWithMarks = false;
  private plotWithStop = false;
  /** Whether the plot draws its evaluations as small faint dots (too many to ring each one). */
  private plotDense = false;

  constructor(private readonly options: LiveChartOptions) {
    // The number in the header says what it is: the latest value, not a mean or a best.
    this.latestValue = h('span', { class: 'chart-latest-value' });
    this.latest = h('span', { class: 'chart-latest', hidden: true, attrs: { 'aria-live': 'off' } }, h('span', { class: 'chart-latest-label', text: 'latest ' }), this.latestValue);
    this.plotHost = h('div', { class: 'chart-plot' });
    this.empty = h('p', { class: 'chart-empty', text: options.emptyText });
    this.element = h(
      'section',
      {
        class: 'chart',
        tabIndex: 0,
        attrs: {
          'data-metric': options.id,
          'aria-label': `${options.title}: drag to zoom, arrows pan, plus and minus zoom, 0 resets`,
        },
      },
      h(
        'header',
        { class: 'chart-head' },
        h('h3', { text: options.title, ...(options.titleHint ? { title: options.titleHint } : {}) }),
        this.latest,
        options.onExport ? exportButtons(`the ${options.title} chart`, [
          { label: 'PNG', run: () => this.export('png') },
          { label: 'SVG', run: () => this.export('svg') },
        ]) : null,
      ),
      this.plotHost,
      this.empty,
    );
  }

  setSource(source: SeriesSource, overlays: ChartOverlays = {}): void {
    this.source = source;
    this.overlays = overlays;
    this.dirty = true;
  }

  setSmoothing(weight: number): void {
    if (!this.options.smoothable) weight = 0;
    if (weight === this.smoothing) return;
    this.smoothing = weight;
    this.dirty = true;
  }

  setZoom(range: Range | null): void {
    this.zoom = range;
    this.dirty = true;
  }

  /** Off-screen charts keep their data current but skip drawing until scrolled into view. */
  setVisible(visible: boolean): void {
    this.visible = visible;
  }

  setWidth(width: number): void {
    const w = Math.floor(width);
    if (w <= 0 || w === this.width) return;
    this.width = w;
    this.plot?.u.setSize({ width: w, height: HEIGHT });
    // Buckets follow pixels, but re-decimating a long history on every step of a window
    // resize would stall it: only a real change of width rebuilds them.
    if (this.decimator && Math.abs(this.decimator.buckets - w) > 0.25 * this.decimator.buckets) this.decimator = undefined;
    this.dirty = true;
  }

  markDirty(): void {
    this.dirty = true;
  }

  redraw(): void {
    this.plot?.u.redraw(false);
  }

  /**
   * Brings the chart up to date with its source; cheap when nothing changed. Charts out of
   * view only note that rows arrived: they smooth and decimate when scrolled into view, so a
   * long dashboard costs what its visible charts cost.
   */
  render(): void {
    if (!this.source || this.width === 0) return;
    const rows = this.source.length();
    this.empty.hidden = rows > 0;
    setAttr(this.element, 'data-points', rows);
    if (!this.visible) return;
    this.consume();
    if (!this.dirty) return;
    this.dirty = false;
    this.draw();
  }

  /** Smooths and decimates the rows that arrived since the last call. */
  private consume(): void {
    const source = this.source!;
    const n = source.length();
    const revision = source.revision();
    if (revision !== this.seenRevision || !this.decimator) {
      this.seenRevision = revision;
      this.consumed = 0;
      this.seenSmoothing = -1;
      this.decimator = new Decimator(this.width);
    }
    if (n < this.consumed) this.consumed = 0;
    if (this.smoothed.length < n) {
      const next = new Float64Array(Math.max(n, this.smoothed.length * 2, 256));
      next.set(this.smoothed.subarray(0, this.consumed));
      this.smoothed = next;
    }
    const ys = source.ys();
    if (this.seenSmoothing !== this.smoothing) {
      this.seenSmoothing = this.smoothing;
      this.ema = emptyEma();
      emaInto(ys, this.smoothed, 0, this.consumed, this.smoothing, this.ema);
      this.dirty = true;
    }
    if (n === this.consumed) return;
    emaInto(ys, this.smoothed, this.consumed, n, this.smoothing, this.ema);
    const xs = source.xs();
    const offset = source.xOffset();
    this.decimator!.pushRange(xs, ys, this.consumed, n, offset);
    this.consumed = n;
    this.dirty = true;
  }

  private draw(): void {
    const source = this.source!;
    const n = this.consumed;
    const xs = source.xs();
    const offset = source.xOffset();
    const ys = source.ys();
    let rows: Int32Array;
    if (this.zoom) {
      const { min, max } = this.zoom;
      rows = decimateRange(xs, ys, n, min - offset, max - offset, this.width, (x) => lowerBound(xs, n, x));
    } else {
      if (this.indexBuffer.length < this.decimator!.capacity) this.indexBuffer = new Int32Array(this.decimator!.capacity);
      rows = this.indexBuffer.subarray(0, this.decimator!.indices(this.indexBuffer));
    }
    // The evaluations' series (and its legend entry) once there is one; the stopping
    // evaluation's once a run has met its stop condition.
    const found = this.overlays.markers?.();
    const marks = found && found.xs.length > 0 ? found : undefined;
    const merged = mergeWithMarkers(rows, xs, offset, ys, this.options.smoothable ? this.smoothed : undefined, marks);
    const withStop = marks?.stop !== undefined;
    const data = marks && !withStop ? merged.slice(0, -1) : merged;
    this.ensurePlot(marks !== undefined, withStop, marks !== undefined && denseMarkers(marks.xs.length, this.width));
    setXTitle(this.plot!.u, this.options.xTitle());
    this.plot!.setData(data as never, this.zoom);
    this.shown = data[0].length;
    this.marks = marks ? { total: marks.xs.length, stop: marks.stop !== undefined } : undefined;
    setAttr(this.element, 'data-shown', this.shown);
    // The latest value the series has (a metric of an earlier stage stops with that stage).
    let last = n - 1;
    while (last >= 0 && !Number.isFinite(ys[last])) last--;
    this.latest.hidden = last < 0;
    const yValue = this.options.yValue ?? formatValue;
    setText(this.latestValue, last >= 0 ? yValue(ys[last]) : '');
    this.latest.title = last >= 0 ? `latest value, at ${this.options.xValue(xs[last] + offset)}${this.options.smoothable && this.smoothing > 0 ? `; smoothed: ${yValue(this.smoothed[last])}` : ''}` : '';
  }

  private ensurePlot(withMarkers: boolean, withStop: boolean, dense = false): void {
    if (this.plot && this.plotWithMarks === withMarkers && this.plotWithStop === withStop && this.plotDense === dense) return;
    this.plotDense = dense;
    // The first evaluation, or a run that just met its stop condition: the plot is made again with their series.
    this.plot?.destroy();
    this.plotWithMarks = withMarkers;
    this.plotWithStop = withStop;
    const { options } = this;
    this.plot = createPlot({
      container: this.plotHost,
      width: this.width,
      height: HEIGHT,
      theme: options.theme,
      xValue: options.xValue,
      xTick: options.xTick,
      yValue: options.yValue ?? formatValue,
      ...(options.yTicks ? { yTicks: options.yTicks } : {}),
      ...(options.yIncrs ? { yIncrs: options.yIncrs } : {}),
      ...(this.overlays.references ? { yInclude: () => this.overlays.references?.()?.ys ?? [] } : {}),
      xTitle: options.xTitle(),
      ...(options.yTitle ? { yTitle: options.yTitle } : {}),
      ...(options.points ? { autoPoints: true } : {}),
      syncKey: options.syncKey,
      keyTarget: this.element,
      fullRange: () => this.fullRange(),
      currentRange: () => this.zoom ?? this.fullRange(),
      series: [
        ...(options.smoothable
          ? [
              { label: 'raw', color: options.color, alpha: 0.3, width: 1 },
              { label: 'smoothed', color: options.color, width: 2 },
            ]
          : [{ label: 'value', color: options.color, width: 2 }]),
        ...(withMarkers
          ? [
              // Rings filled with the background hide what is under them: hundreds of them (an
              // evaluation every 10k steps of 2M) merged into a band over the curve.
              dense
                ? { label: 'eval', color: (t: Theme) => t.foreground, alpha: 0.55, pointsOnly: true, filled: true, pointSize: DENSE_MARK_SIZE }
                : { label: 'eval', color: (t: Theme) => t.foreground, pointsOnly: true },
              ...(withStop ? [{ label: STOP_LABEL, color: (t: Theme) => t.foreground, pointsOnly: true, filled: true, pointSize: 11 }] : []),
            ]
          : []),
      ],
      onUserZoom: (range) => {
        this.zoom = range;
        this.dirty = true;
        options.onZoom(options.id, range);
      },
      onDraw: (u) => {
        this.drawLines(u);
        this.drawReferences(u);
      },
    });
  }

  private export(format: 'png' | 'svg'): void {
    if (!this.plot) return;
    const name = `${fileStem(this.options.title)}.${format}`;
    const file: ExportFile =
      format === 'png'
        ? { type: 'save', name, format, data: this.plot.toPng(), encoding: 'base64' }
        : { type: 'save', name, format, data: this.plot.toSvg(this.options.title), encoding: 'utf8' };
    this.options.onExport?.(file);
  }

  /** A dashed line and its label at each x of `lines` inside the plot's x range. */
  private drawLines(u: uPlot): void {
    const lines = this.overlays.lines?.();
    if (!lines || lines.xs.length === 0) return;
    const theme = this.options.theme();
    const { ctx } = u;
    const { left, top, width, height } = u.bbox;
    const ratio = devicePixelRatio || 1;
    ctx.save();
    ctx.strokeStyle = theme.palette[3 % theme.palette.length];
    ctx.fillStyle = ctx.strokeStyle;
    ctx.lineWidth = ratio;
    ctx.setLineDash([4 * ratio, 3 * ratio]);
    ctx.font = `${Math.round(theme.fontSize * 0.85 * ratio)}px ${theme.font}`;
    ctx.textBaseline = 'top';
    lines.xs.forEach((x, i) => {
      const px = u.valToPos(x, 'x', true);
      if (!(px >= left && px <= left + width)) return;
      ctx.beginPath();
      ctx.moveTo(px, top);
      ctx.lineTo(px, top + height);
      ctx.stroke();
      // Right of the line, or left of it where the label would leave the plot (uPlot leaves its own alignment set).
      const label = lines.labels[i] ?? '';
      const fits = px + 3 * ratio + ctx.measureText(label).width <= left + width;
      ctx.textAlign = fits ? 'left' : 'right';
      ctx.fillText(label, fits ? px + 3 * ratio : px - 3 * ratio, top + 2 * ratio);
    });
    ctx.restore();
  }

  /** A dashed line across the plot at each y of the references, its label above it at the right. */
  private drawReferences(u: uPlot): void {
    const refs = this.overlays.references?.();
    this.referencesDrawn = [];
    if (!refs || refs.ys.length === 0) return;
    const theme = this.options.theme();
    const { ctx } = u;
    const { left, top, width, height } = u.bbox;
    const ratio = devicePixelRatio || 1;
    ctx.save();
    ctx.strokeStyle = theme.foreground;
    ctx.fillStyle = theme.foreground;
    ctx.lineWidth = ratio;
    ctx.setLineDash([6 * ratio, 4 * ratio]);
    ctx.font = `${Math.round(theme.fontSize * 0.85 * ratio)}px ${theme.font}`;
    ctx.textAlign = 'right';
    refs.ys.forEach((y, i) => {
      const label = refs.labels[i] ?? '';
      const py = u.valToPos(y, 'y', true);
      const drawn = py >= top && py <= top + height;
      this.referencesDrawn.push({ y, label, drawn });
      if (!drawn) return;
      ctx.beginPath();
      ctx.moveTo(left, py);
      ctx.lineTo(left + width, py);
      ctx.stroke();
      // Above the line, or below it where the plot's top edge would cut the label.
      const above = py - top > theme.fontSize * ratio * 1.2;
      ctx.textBaseline = above ? 'bottom' : 'top';
      ctx.fillText(label, left + width - 4 * ratio, above ? py - 2 * ratio : py + 2 * ratio);
    });
    ctx.restore();
  }

  /**
   * What tests and the bench read: rows of the series (`points`), rows smoothed and decimated
   * so far (`drawnRows`: all of them once the chart was in view), points handed to uPlot.
   */
  describe(): {
    id: string;
    points: number;
    drawnRows: number;
    shown: number;
    zoom: Range | null;
    smoothing: number;
    smoothedWith: number;
    visible: boolean;
    empty: boolean;
    lastSmoothed: number | null;
    /** Evaluation markers: how many there are, how many uPlot drew, and whether the one that stopped the run was drawn. */
    marks?: { total: number; drawn: number; stopDrawn: boolean; dense: boolean };
    /** The y axis as laid out (its labels, width and font): tests measure whether the labels fit. */
    yAxis?: { labels: string[]; size: number; font: string };
    title: string;
    /** The header's read-out as shown (`latest 0.25`), '' while hidden. */
    latest: string;
    /** The legend's series, in order (`at`, `raw`, `smoothed`, `eval`...). */
    legend: string[];
    /** The axes' titles as drawn. */
    axisTitles: { x: string | null; y: string | null };
    /** Reference lines at the last draw: value, label, and whether it fell inside the plot. */
    references: { y: number; label: string; drawn: boolean }[];
  } {
    const n = this.consumed;
    return {
      id: this.options.id,
      points: this.source?.length() ?? 0,
      drawnRows: n,
      /** The weight the smoothed values were computed with (they follow `smoothing` when drawn). */
      smoothedWith: this.seenSmoothing,
      /** In view (charts out of view catch up when scrolled to). */
      visible: this.visible,
      shown: this.shown,
      zoom: this.zoom,
      smoothing: this.smoothing,
      empty: !this.empty.hidden,
      lastSmoothed: n > 0 && Number.isFinite(this.smoothed[n - 1]) ? this.smoothed[n - 1] : null,
      title: this.options.title,
      latest: this.latest.hidden ? '' : (this.latest.textContent ?? ''),
      legend: this.plot ? this.plot.u.series.map((series) => String(series.label ?? '')) : [],
      references: this.referencesDrawn,
      axisTitles: { x: this.plot ? ((this.plot.u.axes[0] as uPlot.Axis).label as string | undefined) ?? null : null, y: this.plot ? ((this.plot.u.axes[1] as uPlot.Axis).label as string | undefined) ?? null : null },
      ...(this.plot ? { yAxis: this.plot.yAxis() } : {}),
      ...(this.marks && this.plot
        ? { marks: { total: this.marks.total, drawn: this.plot.pointsDrawn('eval') + this.plot.pointsDrawn(STOP_LABEL), stopDrawn: this.plot.pointsDrawn(STOP_LABEL) > 0, dense: this.plotDense } }
        : {}),
    };
  }

  /** The x extent of every row and marker (a zoomed plot holds only the visible ones). */
  private fullRange(): Range | null {
    const source = this.source;
    const n = this.consumed;
    if (!source || n === 0) return null;
    const xs = source.xs();
    const offset = source.xOffset();
    let min = xs[0] + offset;
    let max = xs[n - 1] + offset;
    const marks = this.overlays.markers?.();
    if (marks && marks.xs.length > 0) {
      min = Math.min(min, marks.xs[0]);
      max = Math.max(max, marks.xs[marks.xs.length - 1]);
    }
    return { min, max };
  }

  destroy(): void {
    this.plot?.destroy();
    this.element.remove();
  }
}

/** Diameter of an evaluation's dot where they are dense. */
const DENSE_MARK_SIZE = 4;

/** Whether `count` evaluation rings (8 px) would crowd a plot `width` pixels wide: more than one per 12 px. */
function denseMarkers(count: number, width: number): boolean {
  return count * 12 > Math.max(width, 1);
}

/** The x axis's title follows the x mode (uPlot draws the axis label it holds at each draw). */
function setXTitle(u: uPlot, title: string): void {
  const axis = u.axes[0] as uPlot.Axis;
  if (axis.label !== title) axis.label = title;
}

/**
 * uPlot wants one x array shared by all series: the decimated rows and the markers are merged
 * in x order, each series null where the other has its points.
 */
function mergeWithMarkers(
  rows: Int32Array,
  xs: Float64Array,
  offset: number,
  ys: Float64Array,
  smoothed: Float64Array | undefined,
  marks: Markers | undefined,
): (number | null)[][] {
  const mx = marks?.xs ?? [];
  const total = rows.length + mx.length;
  const x: number[] = new Array(total);
  const raw: (number | null)[] = new Array(total);
  const smooth: (number | null)[] = new Array(total);
  const mark: (number | null)[] = new Array(total);
  const stop: (number | null)[] = new Array(total);
  let r = 0;
  let m = 0;
  for (let k = 0; k < total; k++) {
    const rowX = r < rows.length ? xs[rows[r]] + offset : Infinity;
    if (m < mx.length && mx[m] < rowX) {
      x[k] = mx[m];
      raw[k] = null;
      smooth[k] = null;
      mark[k] = m === marks!.stop ? null : marks!.ys[m];
      stop[k] = m === marks!.stop ? marks!.ys[m] : null;
      m++;
    } else {
      const i = rows[r++];
      x[k] = rowX;
      raw[k] = ys[i];
      // Rows sharing an x (the episodes that ended in one update) would draw the average
      // as a vertical zigzag; its value after the last of them is the one that means something.
      if (smoothed) {
        const s = smoothed[i];
        const lastAtX = r >= rows.length || xs[rows[r]] + offset !== rowX;
        smooth[k] = lastAtX && Number.isFinite(s) ? s : null;
      }
      mark[k] = null;
      stop[k] = null;
    }
  }
  const lines = smoothed ? [x, raw, smooth] : [x, raw];
  return marks ? [...lines, mark, stop] : lines;
}
