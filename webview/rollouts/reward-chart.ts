// The per-step reward of the episode, each term beside it, linked to the timeline: a marker
// follows the current step, and a click on the chart moves the timeline there.
import type { RolloutStep, RolloutHeader } from '../protocol.js';
import { h } from '../shared/dom.js';
import { formatValue } from '../shared/format.js';
import { createPlot, type Plot, type uPlot } from '../shared/plot.js';
import type { Theme } from '../shared/theme.js';

/** Palette indices for terms: neither the reward's (0) nor the env reward's (3). */
const TERM_COLORS = [2, 4, 5, 1];

export class RewardChart {
  readonly element: HTMLElement;
  private readonly host = h('div', { class: 'chart-plot' });
  private plot: Plot | undefined;
  private current = 0;

  constructor(
    private readonly theme: () => Theme,
    private readonly onSeek: (t: number) => void,
  ) {
    this.element = h('section', { class: 'chart reward-chart', attrs: { 'aria-label': 'Reward per step; click to move the timeline there' } }, h('header', { class: 'chart-head' }, h('h3', { text: 'Reward per step' })), this.host);
  }

  load(header: RolloutHeader | undefined, steps: RolloutStep[]): void {
    this.plot?.destroy();
    const xs = steps.map((_, t) => t);
    const series: { label: string; values: number[]; color: number; width: number }[] = [{ label: 'reward', values: steps.map((s) => s.reward), color: 0, width: 2 }];
    // The env's own reward only when training used another (a reward declaration).
    if (steps.some((s) => s.env_reward !== s.reward)) series.push({ label: 'env reward', values: steps.map((s) => s.env_reward), color: 3, width: 1.5 });
    const terms = header?.terms.length ? header.terms : Object.keys(steps[0]?.terms ?? {});
    terms.forEach((name, i) => series.push({ label: name, values: steps.map((s) => s.terms?.[name] ?? Number.NaN), color: TERM_COLORS[i % TERM_COLORS.length], width: 1 }));
    const width = Math.max(200, Math.floor(this.host.clientWidth || 600));
    this.plot = createPlot({
      container: this.host,
      width,
      height: 180,
      theme: this.theme,
      xValue: (x) => `step ${Math.round(x) + 1}`,
      xTick: (x) => String(Math.round(x) + 1),
      yValue: formatValue,
      integerX: true,
      // Dots help read a short episode (a text task's few turns); on long ones they are noise.
      autoPoints: steps.length <= 40,
      series: series.map((s) => ({ label: s.label, color: s.color, width: s.width })),
      onClick: (x) => this.onSeek(Math.round(x)),
      onDraw: (u) => this.drawMarker(u),
      onUserZoom: (range) => this.plot?.setData(this.plot.u.data, range),
    });
    this.plot.setData([xs, ...series.map((s) => s.values)] as never, null);
    this.element.dataset.points = String(steps.length);
  }

  /** Moves the current-step marker (a redraw of the canvas, not new data). */
  setStep(t: number): void {
    this.current = t;
    this.plot?.u.redraw(false, false);
  }

  redraw(): void {
    this.plot?.u.redraw(false);
  }

  resize(): void {
    const width = Math.floor(this.host.clientWidth);
    if (this.plot && width > 0 && width !== this.plot.u.width) this.plot.u.setSize({ width, height: 180 });
  }

  private drawMarker(u: uPlot): void {
    const x = Math.round(u.valToPos(this.current, 'x', true));
    const { top, height } = u.bbox;
    const ctx = u.ctx;
    ctx.save();
    ctx.strokeStyle = this.theme().focus;
    ctx.lineWidth = 2 * devicePixelRatio;
    ctx.beginPath();
    ctx.moveTo(x, top);
    ctx.lineTo(x, top + height);
    ctx.stroke();
    ctx.restore();
  }
}
