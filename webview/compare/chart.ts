// The comparison chart: runs overlaid, or per group of seeds its mean with the min-max band.
// All series share one x grid (aggregate.ts), as uPlot wants; the plot is rebuilt only when
// the set of series changes, otherwise it gets new data.
import { h } from '../shared/dom.js';
import { formatValue } from '../shared/format.js';
import { createPlot, type Plot, type PlotSeries } from '../shared/plot.js';
import type { Theme } from '../shared/theme.js';

export interface ChartSeries {
  label: string;
  color: number;
  values: (number | null)[];
  width?: number;
  alpha?: number;
  dash?: number[];
  /** A band's edge: a faint line, no point marks. */
  edge?: boolean;
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
    },
  ) {
    this.element = h(
      'section',
      { class: 'chart compare-chart', tabIndex: 0, attrs: { 'aria-label': 'Comparison chart: drag to zoom, arrows pan, plus and minus zoom, 0 resets' } },
      h('header', { class: 'chart-head' }, this.title),
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

  show(title: string, data: ChartData, emptyText: string): void {
    this.title.textContent = title;
    this.data = data;
    const hasData = data.series.some((s) => s.values.some((v) => v !== null));
    this.empty.textContent = emptyText;
    this.empty.hidden = hasData;
    this.element.dataset.points = String(hasData ? data.xs.length : 0);
    const layout = JSON.stringify([data.series.map((s) => [s.label, s.color, s.width, s.alpha, s.dash]), data.bands]);
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
        yValue: formatValue,
        autoPoints: true,
        keyTarget: this.element,
        series: data.series.map((s): PlotSeries => ({ label: s.label, color: s.color, width: s.width, alpha: s.alpha, dash: s.dash, noPoints: s.edge })),
        bands: data.bands.map((b) => ({ upper: b.upper + 1, lower: b.lower + 1, color: b.color })),
        onUserZoom: (range) => {
          this.setZoom(range);
          this.options.onZoom(range);
        },
      });
    }
    this.plot.setData(this.aligned(data), this.zoom);
  }

  resize(): void {
    const width = Math.floor(this.host.clientWidth);
    if (this.plot && width > 0 && width !== this.plot.u.width) this.plot.u.setSize({ width, height: 320 });
  }

  private aligned(data: ChartData): never {
    return [data.xs, ...data.series.map((s) => s.values)] as never;
  }
}
