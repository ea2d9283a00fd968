// CartPole as Gymnasium draws it: the track, the cart at x, the pole at angle theta (0 upright,
// positive leaning right), the termination bounds, and the push of this step's action.
import { CARTPOLE_CONSTANTS } from '../../../shared/geometry/cartpole.js';
import { actionAt, arrow, field, label, numberParam, type Scene } from './scene.js';

export function drawCartPole(scene: Scene): void {
  const { ctx, width, height, theme } = scene;
  const bound = CARTPOLE_CONSTANTS.x_threshold;
  const x = field(scene, 'x');
  const theta = field(scene, 'theta');
  const halfLength = numberParam(scene, 'pole_half_length', 0.5);
  const scale = (width * 0.9) / (2 * bound);
  const toPx = (worldX: number) => width / 2 + worldX * scale;
  const trackY = height * 0.72;

  ctx.strokeStyle = theme.muted;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(0, trackY);
  ctx.lineTo(width, trackY);
  ctx.stroke();
  // Leaving ±x_threshold ends the episode.
  ctx.setLineDash([4, 4]);
  ctx.strokeStyle = theme.error;
  for (const edge of [-bound, bound]) {
    ctx.beginPath();
    ctx.moveTo(toPx(edge), trackY - height * 0.55);
    ctx.lineTo(toPx(edge), trackY + 10);
    ctx.stroke();
  }
  ctx.setLineDash([]);
  label(ctx, `-${bound}`, toPx(-bound) + 4, trackY + 4, theme);
  label(ctx, `${bound}`, toPx(bound) - 4, trackY + 4, theme, 'right');

  const cartW = Math.max(40, scale * 0.5);
  const cartH = cartW * 0.6;
  const cx = toPx(Number.isFinite(x) ? x : 0);
  const cy = trackY - cartH / 2;
  ctx.fillStyle = theme.foreground;
  ctx.fillRect(cx - cartW / 2, cy - cartH / 2, cartW, cartH);

  const poleLength = 2 * halfLength * scale;
  const angle = Number.isFinite(theta) ? theta : 0;
  ctx.strokeStyle = theme.palette[4];
  ctx.lineWidth = Math.max(6, cartW * 0.18);
  ctx.lineCap = 'round';
  ctx.beginPath();
  ctx.moveTo(cx, cy - cartH / 4);
  ctx.lineTo(cx + poleLength * Math.sin(angle), cy - cartH / 4 - poleLength * Math.cos(angle));
  ctx.stroke();
  ctx.lineCap = 'butt';
  ctx.fillStyle = theme.palette[0];
  ctx.beginPath();
  ctx.arc(cx, cy - cartH / 4, 4, 0, 2 * Math.PI);
  ctx.fill();

  // Action 0 pushes left, 1 right.
  const action = actionAt(scene);
  if (action === 0 || action === 1) arrow(ctx, action === 1 ? cx + cartW / 2 + 4 : cx - cartW / 2 - 4, cy, action === 1 ? 36 : -36, theme.palette[0]);
}
