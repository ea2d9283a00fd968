// The comparison chart: runs overlaid, or per group of seeds its mean with the min-max band.
// All series share one x grid (aggregate.ts), as uPlot wants; the plot is rebuilt only when
// the set of series changes, otherwise it gets new data.
import { h } from '../shared/dom.js';
import { BYTE_INCREMENTS, byteTicks, formatBytes, formatValue } from '../shared/format.js';
import { exportButtons, fileStem, type ExportFile } from '../shared/export.js';
import { createPlot, type Plot, type PlotSeries } from '../shared/plot.js';
import type { Theme } from '../shared/theme.js';

/** Comparison colours: the theme's categorical palette (distinct hues for up to ten runs). */
export const seriesColor = (index: number) => (theme: Theme) => theme.categorical[index % theme.categorical.length];

export interface ChartSeries {
  label: string;
  color: number;
  values: (number | null)[];
  width?: number;
  alpha?: number;
  dash?: number[];
  /** A band's edge: a faint line, no point marks. */
  edge?: boolean;
  /** A mean: how many runs it averages at each x, of how many in its configuration (the hover says `n=2 of 3`). */
  counts?: number[];
  of?: number;
}

export interface ChartData {
  xs: number[];
  series: ChartSeries[];
  /** Fills between two series (indices into `series`). */
  bands: { upper: number; lower: number; color: number }[];
}

export type Range = { min: number; max: number };

export class CompareChart {
  readonly element: HTMLElement;
  private readonly host = h('div', { class: 'chart-plot' });
  private readonly empty = h('p', { class: 'chart-empty' });
  private readonly title = h('h3');
  private plot: Plot | undefined;
  private layout = '';
  private zoom: Range | null = null;
  private data: ChartData | undefined;

  constructor(
    private readonly options: {
      theme: () => Theme;
      xValue: (x: number) => string;
      xTick: (x: number) => string;
      onZoom: (range: Range | null) => void;
      onExport: (file: ExportFile) => void;
    },
  ) {
    this.element = h(
      'section',
      { class: 'chart compare-chart', tabIndex: 0, attrs: { 'aria-label': 'Comparison chart: drag to zoom, arrows pan, plus and minus zoom, 0 resets' } },
      h(
        'header',
        { class: 'chart-head' },
        this.title,
        exportButtons('the comparison chart', [
          { label: 'PNG', run: () => this.export('png') },
          { label: 'SVG', run: () => this.export('svg') },
        ]),
      ),
      this.host,
      this.empty,
    );
  }

  setZoom(range: Range | null): void {
    this.zoom = range;
    if (this.plot && this.data) this.plot.setData(this.aligned(this.data), range);
  }

  redraw(): void {
    this.plot?.u.redraw(false);
  }

  /** `format`: the metric's values are sizes (ticks and read-outs in binary units). */
  show(title: string, data: ChartData, emptyText: string, format?: 'bytes'): void {
    this.title.textContent = title;
    this.data = data;
    const hasData = data.series.some((s) => s.values.some((v) => v !== null));
    this.empty.textContent = emptyText;
    this.empty.hidden = hasData;
    this.element.dataset.points = String(hasData ? data.xs.length : 0);
    // The counts are read by the legend at hover time: a change of them needs a new plot too.
    const layout = JSON.stringify([data.series.map((s) => [s.label, s.color, s.width, s.alpha, s.dash, s.of, s.counts]), data.bands, format]);
    const yValue = format === 'bytes' ? formatBytes : formatValue;
    const width = Math.max(200, Math.floor(this.host.clientWidth || this.element.clientWidth - 20));
    if (layout !== this.layout || !this.plot) {
      this.plot?.destroy();
      this.layout = layout;
      this.plot = createPlot({
        container: this.host,
        width,
        height: 320,
        theme: this.options.theme,
        xValue: this.options.xValue,
        xTick: this.options.xTick,
        yValue,
        ...(format === 'bytes' ? { yTicks: byteTicks, yIncrs: BYTE_INCREMENTS } : {}),
        autoPoints: true,
        keyTarget: this.element,
        series: data.series.map(
          (s): PlotSeries => ({
            label: s.label,
            color: seriesColor(s.color),
            width: s.width,
            alpha: s.alpha,
            dash: s.dash,
            noPoints: s.edge,
            ...(s.counts && s.of !== undefined && s.of > 1 ? { legendValue: countedValue(s.counts, s.of, yValue) } : {}),
          }),
        ),
        bands: data.bands.map((b) => ({ upper: b.upper + 1, lower: b.lower + 1, color: seriesColor(b.color) })),
        onUserZoom: (range) => {
          this.setZoom(range);
          this.options.onZoom(range);
        },
      });
    }
    this.plot.setData(this.aligned(data), this.zoom);
  }

  private export(format: 'png' | 'svg'): void {
    if (!this.plot) return;
    const title = `compare ${this.title.textContent ?? ''}`;
    const name = `${fileStem(title)}.${format}`;
    this.options.onExport(
      format === 'png'
        ? { type: 'save', name, format, data: this.plot.toPng(), encoding: 'base64' }
        : { type: 'save', name, format, data: this.plot.toSvg(this.title.textContent ?? ''), encoding: 'utf8' },
    );
  }

  /** The legend's read-out of series `label` (tests: what the hover shows). */
  legendText(): string[] {
    return [...this.host.querySelectorAll('.u-legend .u-series')].map((tr) => (tr.textContent ?? '').replace(/\s+/g, ' ').trim());
  }

  resize(): void {
    const width = Math.floor(this.host.clientWidth);
    if (this.plot && width > 0 && width !== this.plot.u.width) this.plot.u.setSize({ width, height: 320 });
  }

  private aligned(data: ChartData): never {
    return [data.xs, ...data.series.map((s) => s.values)] as never;
  }
}

/** `212.5 (n=2 of 3)`: the mean's value and how many of the configuration's runs it averages there. */
function countedValue(counts: number[], of: number, format: (value: number) => string): (value: number, index: number) => string {
  return (value, index) => `${format(value)} (n=${counts[index] ?? 0} of ${of})`;
}
