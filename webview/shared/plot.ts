// uPlot, set up the way every chart of these pages wants it: colours from the VS Code theme
// (read at draw time, so a theme switch is one redraw), a live legend as the hover read-out,
// and zoom and pan by mouse and keyboard. uPlot is built for large streaming series: it draws
// straight to a canvas and collapses points that share a pixel column.
import uPlot from 'uplot';
import { withAlpha, type Theme } from './theme.js';

export type { uPlot };

export interface PlotSeries {
  label: string;
  /** Palette index, or a function of the theme (e.g. the muted colour). */
  color: number | ((theme: Theme) => string);
  width?: number;
  /** Markers only (evaluation points), no line. */
  pointsOnly?: boolean;
  /** pointsOnly: the marker's diameter in CSS pixels (default 8) and whether it is filled with its colour. */
  pointSize?: number;
  filled?: boolean;
  /** Dashed line. */
  dash?: number[];
  /** Alpha for the line colour, e.g. raw values behind smoothed ones. */
  alpha?: number;
  /** Never mark points (a band's edges), even where the plot marks them (autoPoints). */
  noPoints?: boolean;
  /** The legend's read-out at data index `index` (default: yValue of the value), e.g. with how many runs a mean averages. */
  legendValue?: (value: number, index: number) => string;
}

export interface PlotOptions {
  container: HTMLElement;
  width: number;
  height: number;
  series: PlotSeries[];
  theme: () => Theme;
  xValue: (x: number) => string;
  xTick: (x: number) => string;
  yValue: (y: number) => string;
  /** The y axis's tick labels, all at once (one unit for the axis); default: yValue of each. */
  yTicks?: (splits: number[]) => string[];
  /** The y tick spacings to pick from (sizes in binary units); default: uPlot's decimal ones. */
  yIncrs?: readonly number[];
  /** Values the y range takes in besides the data's (a reference line's), read at each draw. */
  yInclude?: () => readonly number[];
  /** Charts with the same key show the cursor at the same x. */
  syncKey?: string;
  /** uPlot bands: pairs of series indices (1-based, as uPlot counts) filled between. */
  bands?: { upper: number; lower: number; color: number | ((theme: Theme) => string) }[];
  /** The user zoomed (a range) or reset the zoom (null): by dragging, wheel or keyboard. */
  onUserZoom?: (range: { min: number; max: number } | null) => void;
  /** A click on the plot at x (the rollout chart seeks the timeline). */
  onClick?: (x: number) => void;
  /** Extra drawing on top of the series (a current-step marker). */
  onDraw?: (u: uPlot) => void;
  /** The focusable element whose keys pan and zoom (the chart's card); default: container. */
  keyTarget?: HTMLElement;
  /** The legend's label for the x value. */
  xLabel?: string;
  /** Axis titles, drawn beside the axes (and in the SVG export). */
  xTitle?: string;
  yTitle?: string;
  /** x counts whole things (steps of an episode): ticks only at integers. */
  integerX?: boolean;
  /** Marks data points when they are few enough to see (small charts); off for big series. */
  autoPoints?: boolean;
  /** The x extent of all the data, when the plot holds only the zoomed part of it. */
  fullRange?: () => { min: number; max: number } | null;
  /** The range the owner shows (its drawing may lag a frame behind); default: the plot's scale. */
  currentRange?: () => { min: number; max: number } | null;
}

export interface Plot {
  u: uPlot;
  /** Sets the data, and the x range shown (null: all of it). */
  setData(data: uPlot.AlignedData, range: { min: number; max: number } | null): void;
  /** The full x extent of the current data, for reset and panning limits. */
  dataRange(): { min: number; max: number } | null;
  /** Markers of a pointsOnly series drawn at the last draw (tests read it: a marker must never vanish). */
  pointsDrawn(label: string): number;
  /** The plot as drawn, a PNG (base64, without the data: prefix). */
  toPng(): string;
  /** The plot as an SVG document built from its data: title, axes with their ticks, series, bands, legend. */
  toSvg(title: string): string;
  /** The y axis as uPlot laid it out: its tick labels, its width and font (tests measure whether they fit). */
  yAxis(): { labels: string[]; size: number; font: string };
  destroy(): void;
}

export function createPlot(options: PlotOptions): Plot {
  const { theme } = options;
  const colorOf = (s: PlotSeries) => {
    const base = () => (typeof s.color === 'function' ? s.color(theme()) : theme().palette[s.color % theme().palette.length]);
    return s.alpha === undefined ? base : () => withAlphaCached(base(), s.alpha!);
  };
  const drawn = new Map<number, number>();
  const fontOf = () => `${Math.round(theme().fontSize * 0.9)}px ${theme().font}`;
  const axis = (values: (v: number) => string, size: uPlot.Axis.Size, integer = false, title?: string, ticks?: (splits: number[]) => string[], incrs?: readonly number[]): uPlot.Axis => ({
    ...(integer ? { incrs: INTEGER_INCREMENTS } : incrs ? { incrs: [...incrs] } : {}),
    ...(title !== undefined ? { label: title, labelSize: TITLE_SIZE, labelFont: fontOf(), labelGap: 0 } : {}),
    stroke: () => theme().muted,
    grid: { stroke: () => theme().grid, width: 1 },
    ticks: { stroke: () => theme().grid, width: 1, size: 4 },
    font: fontOf(),
    size,
    values: ticks ? (_u, splits) => ticks(splits) : (_u, splits) => splits.map((v) => (v === null || v === undefined ? '' : values(v))),
  });
  const include = options.yInclude;
  const opts: uPlot.Options = {
    width: options.width,
    height: options.height,
    scales: {
      x: { time: false },
      // A constant series (a reward of -1 every step) gets a range around its value, not 0..100.
      y: {
        range: (_u, dataMin, dataMax) => {
          let min = dataMin;
          let max = dataMax;
          // A reference line (an estimate) stays in view however far the data is from it.
          if (include && min !== null && max !== null) {
            for (const y of include()) {
              if (!Number.isFinite(y)) continue;
              min = Math.min(min, y);
              max = Math.max(max, y);
            }
          }
          return min === max ? [min - (Math.abs(min) * 0.1 || 1), max + (Math.abs(max) * 0.1 || 1)] : uPlot.rangeNum(min, max, 0.1, true);
        },
      },
    },
    // The y axis is as wide as its widest tick label (`-2.5e-4` needs more room than `100`):
    // a fixed width clipped long labels on the left.
    axes: [axis(options.xTick, 30, options.integerX, options.xTitle), axis(options.yValue, (u, labels) => yAxisSize(u, labels, fontOf()), false, options.yTitle, options.yTicks, options.yIncrs)],
    series: [
      { label: options.xLabel ?? 'at', value: (_u, v) => (v === null ? '–' : options.xValue(v)) },
      ...options.series.map((s): uPlot.Series => {
        const stroke = colorOf(s);
        return {
          label: s.label,
          stroke,
          width: (s.width ?? 1.5) * theme().lineScale,
          dash: s.dash,
          spanGaps: true,
          value: (_u, v, _si, index) => (v === null || v === undefined ? '–' : s.legendValue && index !== null ? s.legendValue(v, index) : options.yValue(v)),
          ...(s.pointsOnly
            ? {
                paths: () => null,
                points: {
                  show: true,
                  size: s.pointSize ?? 8,
                  width: 2,
                  stroke,
                  fill: s.filled ? stroke : () => theme().background,
                  filter: markersInView,
                  paths: countingPoints(drawn),
                },
              }
            : options.autoPoints && !s.noPoints
              ? {}
              : { points: { show: false } }),
        };
      }),
    ],
    bands: options.bands?.map((b) => ({
      series: [b.upper, b.lower] as [number, number],
      fill: () => withAlphaCached(typeof b.color === 'function' ? b.color(theme()) : theme().palette[b.color % theme().palette.length], 0.18),
    })),
    cursor: {
      sync: options.syncKey ? { key: options.syncKey } : undefined,
      // A drag selects a range; the setSelect hook below turns it into a zoom that goes
      // through the owner (which re-decimates for the new range), not uPlot's own rescale.
      drag: { x: true, y: false, setScale: false },
      // Double-click resets (listener below): uPlot's own reset would keep a stale range.
      bind: { dblclick: () => () => null },
      points: { size: 7 },
    },
    legend: { live: true },
    hooks: {
      setSelect: [
        (u) => {
          const { left, width } = u.select;
          if (width < 2) return;
          const min = u.posToVal(left, 'x');
          const max = u.posToVal(left + width, 'x');
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
          options.onUserZoom?.({ min, max });
        },
      ],
      draw: options.onDraw ? [options.onDraw] : [],
    },
  };
  const u = new uPlot(opts, [[], ...options.series.map(() => [])] as unknown as uPlot.AlignedData, options.container);

  const plot: Plot = {
    u,
    setData(data, range) {
      u.batch(() => {
        u.setData(data, range === null);
        if (range) u.setScale('x', range);
      });
    },
    toPng() {
      // The canvas is transparent where nothing is drawn: on the theme's background, the
      // image reads as on screen wherever it is pasted.
      const source = u.ctx.canvas;
      const canvas = document.createElement('canvas');
      canvas.width = source.width;
      canvas.height = source.height;
      const ctx = canvas.getContext('2d')!;
      ctx.fillStyle = theme().background;
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(source, 0, 0);
      return canvas.toDataURL('image/png').replace(/^data:image\/png;base64,/, '');
    },
    toSvg(title) {
      return plotSvg(u, title, options, theme());
    },
    yAxis() {
      const axis = u.axes[1] as uPlot.Axis & { _values?: string[]; _size?: number };
      return { labels: (axis._values ?? []).map(String), size: axis._size ?? 0, font: fontOf() };
    },
    pointsDrawn(label) {
      const index = options.series.findIndex((s) => s.label === label);
      return index < 0 ? 0 : (drawn.get(index + 1) ?? 0);
    },
    dataRange() {
      const xs = u.data[0];
      if (!xs || xs.length === 0) return null;
      return { min: xs[0], max: xs[xs.length - 1] };
    },
    destroy() {
      u.destroy();
    },
  };
  attachZoomPan(plot, options);
  return plot;
}

/**
 * Zoom and pan besides uPlot's drag-to-zoom: double-click resets; Ctrl/Alt + wheel zooms
 * around the pointer and Shift + wheel pans (a plain wheel scrolls the page, as users expect);
 * on the focused chart, arrows pan, + and - zoom, 0 or Escape reset.
 */
function attachZoomPan(plot: Plot, options: PlotOptions): void {
  const { u } = plot;
  const zoomTo = (range: { min: number; max: number } | null) => options.onUserZoom?.(range);
  const current = () => options.currentRange?.() ?? { min: u.scales.x.min ?? 0, max: u.scales.x.max ?? 1 };
  const clamp = (min: number, max: number) => {
    const all = options.fullRange ? options.fullRange() : plot.dataRange();
    if (!all) return null;
    const span = Math.min(max - min, all.max - all.min);
    if (span >= all.max - all.min) return null; // zoomed all the way out
    const lo = Math.max(all.min, Math.min(min, all.max - span));
    return { min: lo, max: lo + span };
  };
  const zoomAround = (center: number, factor: number) => {
    const { min, max } = current();
    zoomTo(clamp(center - (center - min) * factor, center + (max - center) * factor));
  };
  const pan = (fraction: number) => {
    const { min, max } = current();
    const shift = (max - min) * fraction;
    zoomTo(clamp(min + shift, max + shift));
  };
  u.over.addEventListener('dblclick', () => zoomTo(null));
  u.over.addEventListener(
    'wheel',
    (e) => {
      if (!(e.ctrlKey || e.altKey || e.shiftKey || e.metaKey)) return;
      e.preventDefault();
      if (e.shiftKey) pan(Math.sign(e.deltaY || e.deltaX) * 0.1);
      else zoomAround(u.posToVal(e.offsetX, 'x'), e.deltaY > 0 ? 1.25 : 0.8);
    },
    { passive: false },
  );
  if (options.onClick) {
    const onClick = options.onClick;
    u.over.addEventListener('click', (e) => onClick(u.posToVal(e.offsetX, 'x')));
  }
  const keyTarget = options.keyTarget ?? options.container;
  keyTarget.addEventListener('keydown', (e) => {
    if (e.target !== keyTarget) return;
    const { min, max } = current();
    const handled = (() => {
      switch (e.key) {
        case 'ArrowLeft':
          pan(-0.1);
          return true;
        case 'ArrowRight':
          pan(0.1);
          return true;
        case '+':
        case '=':
          zoomAround((min + max) / 2, 0.8);
          return true;
        case '-':
        case '_':
          zoomAround((min + max) / 2, 1.25);
          return true;
        case '0':
        case 'Escape':
          zoomTo(null);
          return true;
        default:
          return false;
      }
    })();
    if (handled) e.preventDefault();
  });
}

/** Text in SVG markup. */
function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * The plot in SVG, from the data uPlot holds and its scales (what is on screen, zoom included):
 * a title, the axes' ticks and grid as uPlot placed them, bands, lines, markers, and a legend
 * of the series' labels and colours under the plot.
 */
function plotSvg(u: uPlot, title: string, options: PlotOptions, theme: Theme): string {
  const ratio = uPlot.pxRatio || 1;
  const titleH = 24;
  const legendH = 22;
  const width = u.width;
  const height = u.height + titleH + legendH;
  const left = u.bbox.left / ratio;
  const top = u.bbox.top / ratio + titleH;
  const plotW = u.bbox.width / ratio;
  const plotH = u.bbox.height / ratio;
  const font = `font-family="${esc(theme.font)}" font-size="${Math.round(theme.fontSize * 0.9)}"`;
  const colorOf = (s: PlotSeries) => (typeof s.color === 'function' ? s.color(theme) : theme.palette[s.color % theme.palette.length]);
  const xs = u.data[0];
  const px = (k: number) => left + u.valToPos(xs[k], 'x');
  const py = (v: number) => top + u.valToPos(v, 'y');
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`);
  out.push(`<rect width="100%" height="100%" fill="${esc(theme.background)}"/>`);
  out.push(`<text x="8" y="16" ${font} font-weight="bold" fill="${esc(theme.foreground)}">${esc(title)}</text>`);
  out.push(`<defs><clipPath id="plot"><rect x="${left}" y="${top}" width="${plotW}" height="${plotH}"/></clipPath></defs>`);
  // Ticks and grid where uPlot put them (its splits and their labels).
  const axes = u.axes as (uPlot.Axis & { _splits?: number[]; _values?: string[] })[];
  (axes[0]._splits ?? []).forEach((v, i) => {
    const x = left + u.valToPos(v, 'x');
    if (x < left - 0.5 || x > left + plotW + 0.5) return;
    out.push(`<line x1="${x}" y1="${top}" x2="${x}" y2="${top + plotH}" stroke="${esc(theme.grid)}"/>`);
    out.push(`<text x="${x}" y="${top + plotH + 16}" text-anchor="middle" ${font} fill="${esc(theme.muted)}">${esc(String(axes[0]._values?.[i] ?? ''))}</text>`);
  });
  (axes[1]._splits ?? []).forEach((v, i) => {
    const y = py(v);
    if (y < top - 0.5 || y > top + plotH + 0.5) return;
    out.push(`<line x1="${left}" y1="${y}" x2="${left + plotW}" y2="${y}" stroke="${esc(theme.grid)}"/>`);
    out.push(`<text x="${left - 8}" y="${y + 4}" text-anchor="end" ${font} fill="${esc(theme.muted)}">${esc(String(axes[1]._values?.[i] ?? ''))}</text>`);
  });
  out.push(`<g clip-path="url(#plot)" fill="none">`);
  for (const band of options.bands ?? []) {
    const upper = u.data[band.upper];
    const lower = u.data[band.lower];
    const idx = [...xs.keys()].filter((k) => upper[k] != null && lower[k] != null);
    if (idx.length < 2) continue;
    const points = [...idx.map((k) => `${px(k)},${py(upper[k]!)}`), ...idx.reverse().map((k) => `${px(k)},${py(lower[k]!)}`)];
    const color = typeof band.color === 'function' ? band.color(theme) : theme.palette[band.color % theme.palette.length];
    out.push(`<polygon points="${points.join(' ')}" fill="${esc(color)}" fill-opacity="0.18" stroke="none"/>`);
  }
  options.series.forEach((s, i) => {
    const ys = u.data[i + 1];
    const color = esc(colorOf(s));
    if (s.pointsOnly) {
      for (let k = 0; k < xs.length; k++) {
        const v = ys[k];
        if (v === null || v === undefined) continue;
        const r = (s.pointSize ?? 8) / 2 - 1;
        out.push(`<circle cx="${px(k)}" cy="${py(v)}" r="${r}" stroke="${color}" stroke-width="2" fill="${s.filled ? color : esc(theme.background)}"/>`);
      }
      return;
    }
    // Gaps are spanned, as on screen (spanGaps).
    const points: string[] = [];
    for (let k = 0; k < xs.length; k++) {
      const v = ys[k];
      if (v !== null && v !== undefined) points.push(`${px(k).toFixed(2)},${py(v).toFixed(2)}`);
    }
    if (points.length === 0) return;
    const dash = s.dash ? ` stroke-dasharray="${s.dash.join(' ')}"` : '';
    const opacity = s.alpha !== undefined ? ` stroke-opacity="${s.alpha}"` : '';
    out.push(`<polyline points="${points.join(' ')}" stroke="${color}" stroke-width="${(s.width ?? 1.5) * theme.lineScale}"${dash}${opacity} stroke-linejoin="round"/>`);
  });
  out.push('</g>');
  out.push(`<rect x="${left}" y="${top}" width="${plotW}" height="${plotH}" fill="none" stroke="${esc(theme.grid)}"/>`);
  const xTitle = (axes[0] as uPlot.Axis).label;
  const yTitle = (axes[1] as uPlot.Axis).label;
  if (typeof xTitle === 'string') out.push(`<text x="${left + plotW / 2}" y="${top + plotH + 32}" text-anchor="middle" ${font} fill="${esc(theme.muted)}">${esc(xTitle)}</text>`);
  if (typeof yTitle === 'string') out.push(`<text transform="translate(12 ${top + plotH / 2}) rotate(-90)" text-anchor="middle" ${font} fill="${esc(theme.muted)}">${esc(yTitle)}</text>`);
  // The legend: each series' colour and label, in a row under the plot.
  let lx = 8;
  const ly = height - 8;
  for (const s of options.series) {
    const color = esc(colorOf(s));
    out.push(`<rect x="${lx}" y="${ly - 9}" width="10" height="10" fill="${s.pointsOnly && !s.filled ? esc(theme.background) : color}" stroke="${color}"/>`);
    out.push(`<text x="${lx + 14}" y="${ly}" ${font} fill="${esc(theme.foreground)}">${esc(s.label)}</text>`);
    lx += 14 + Math.ceil(s.label.length * theme.fontSize * 0.55) + 16;
  }
  out.push('</svg>');
  return out.join('\n') + '\n';
}

const TICK_AND_GAP = 4 + 10;
/** CSS pixels beside an axis for its title. */
const TITLE_SIZE = 16;
let measure: CanvasRenderingContext2D | null = null;

/** CSS pixels the y axis needs: its widest tick label, the tick and a gap (at least the old 56). */
function yAxisSize(_u: uPlot, labels: string[] | null, font: string): number {
  if (!labels || labels.length === 0) return 56;
  measure ??= document.createElement('canvas').getContext('2d');
  if (!measure) return 56;
  measure.font = font;
  let widest = 0;
  for (const label of labels) if (label) widest = Math.max(widest, measure.measureText(label).width);
  return Math.max(56, Math.ceil(widest + TICK_AND_GAP));
}

/**
 * Every marker inside the x range. uPlot's own choice (its first and last index in view)
 * stops at the first of several points that share the last x: an evaluation at the run's
 * last step, merged after that step's episodes, was never drawn.
 */
function markersInView(u: uPlot, seriesIdx: number): number[] {
  const xs = u.data[0];
  const ys = u.data[seriesIdx];
  const min = u.scales.x.min ?? -Infinity;
  const max = u.scales.x.max ?? Infinity;
  const out: number[] = [];
  for (let k = 0; k < xs.length; k++) if (ys[k] !== null && ys[k] !== undefined && xs[k] >= min && xs[k] <= max) out.push(k);
  return out;
}

/** uPlot's point drawing, counting the points it is given (Plot.pointsDrawn). */
function countingPoints(drawn: Map<number, number>): uPlot.Series.Points.PathBuilder {
  const draw = uPlot.paths.points!();
  return (u, seriesIdx, idx0, idx1, filtIdxs) => {
    let count = 0;
    if (filtIdxs) count = filtIdxs.length;
    else for (let k = idx0; k <= idx1; k++) if (u.data[seriesIdx][k] !== null && u.data[seriesIdx][k] !== undefined) count++;
    drawn.set(seriesIdx, count);
    return draw(u, seriesIdx, idx0, idx1, filtIdxs);
  };
}

const INTEGER_INCREMENTS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000, 20000, 50000, 100000];

const alphaCache = new Map<string, string>();

/** withAlpha for colours read at every draw: parsed once per (colour, alpha). */
function withAlphaCached(color: string, alpha: number): string {
  const key = `${color}|${alpha}`;
  let value = alphaCache.get(key);
  if (value === undefined) {
    value = withAlpha(color, alpha);
    alphaCache.set(key, value);
  }
  return value;
}
