// What every env drawing receives: the canvas, the step to draw (and the episode so far, for
// trails), the run's plan for the env's parameters, and the theme's colours.
import type { RolloutStep, RolloutHeader } from '../../protocol.js';
import type { Theme } from '../../shared/theme.js';

export interface Scene {
  ctx: CanvasRenderingContext2D;
  /** CSS pixels (the context is scaled for the device's pixel ratio). */
  width: number;
  height: number;
  header: RolloutHeader | undefined;
  steps: RolloutStep[];
  t: number;
  /** The env's parameters from plan.json (defaults filled by the compiler). */
  params: Record<string, unknown>;
  theme: Theme;
}

/** The observation field `name` at step `t` (NaN when the header does not name it). */
export function field(scene: Scene, name: string, t = scene.t): number {
  const i = scene.header?.obs_fields.indexOf(name) ?? -1;
  const step = scene.steps[t];
  return i >= 0 && step ? step.obs[i] : Number.NaN;
}

export function numberParam(scene: Scene, name: string, fallback: number): number {
  const value = scene.params[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** The discrete action at step t, or the first component of a continuous one. */
export function actionAt(scene: Scene): number {
  const a = scene.steps[scene.t]?.action;
  return Array.isArray(a) ? a[0] : (a ?? Number.NaN);
}

/** An arrow from (x, y) of signed length `dx` (horizontal), e.g. the push on a cart. */
export function arrow(ctx: CanvasRenderingContext2D, x: number, y: number, dx: number, color: string): void {
  if (dx === 0) return;
  const head = Math.min(10, Math.abs(dx) * 0.5) * Math.sign(dx);
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.lineWidth = 2.5;
  ctx.beginPath();
  ctx.moveTo(x, y);
  ctx.lineTo(x + dx - head, y);
  ctx.stroke();
  ctx.beginPath();
  ctx.moveTo(x + dx, y);
  ctx.lineTo(x + dx - head, y - 6);
  ctx.lineTo(x + dx - head, y + 6);
  ctx.closePath();
  ctx.fill();
}

export function label(ctx: CanvasRenderingContext2D, text: string, x: number, y: number, theme: Theme, align: CanvasTextAlign = 'left'): void {
  ctx.fillStyle = theme.muted;
  ctx.font = `${Math.round(theme.fontSize * 0.9)}px ${theme.font}`;
  ctx.textAlign = align;
  ctx.textBaseline = 'top';
  ctx.fillText(text, x, y);
}
