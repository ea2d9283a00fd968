// MountainCar: the hill y = sin(3x), the car on it at `position` (tilted with the slope), the
// flag at the goal, and this step's push (0 left, 1 none, 2 right).
import { MOUNTAIN_CAR_CONSTANTS } from '../../../shared/geometry/mountain-car.js';
import { actionAt, arrow, field, type Scene } from './scene.js';

const hill = (x: number) => Math.sin(3 * x) * 0.45 + 0.55;

export function drawMountainCar(scene: Scene): void {
  const { ctx, width, height, theme } = scene;
  const { min_position: lo, max_position: hi, goal_position: goal } = MOUNTAIN_CAR_CONSTANTS;
  const pad = 20;
  const sx = (width - 2 * pad) / (hi - lo);
  const sy = (height - 2 * pad) / 1.1;
  const px = (x: number) => pad + (x - lo) * sx;
  const py = (y: number) => height - pad - y * sy;

  ctx.strokeStyle = theme.muted;
  ctx.lineWidth = 2;
  ctx.beginPath();
  for (let i = 0; i <= 200; i++) {
    const x = lo + ((hi - lo) * i) / 200;
    if (i === 0) ctx.moveTo(px(x), py(hill(x)));
    else ctx.lineTo(px(x), py(hill(x)));
  }
  ctx.stroke();

  const flagX = px(goal);
  const flagY = py(hill(goal));
  ctx.strokeStyle = theme.foreground;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.moveTo(flagX, flagY);
  ctx.lineTo(flagX, flagY - 40);
  ctx.stroke();
  ctx.fillStyle = theme.success;
  ctx.beginPath();
  ctx.moveTo(flagX, flagY - 40);
  ctx.lineTo(flagX + 22, flagY - 33);
  ctx.lineTo(flagX, flagY - 26);
  ctx.fill();

  const position = field(scene, 'position');
  if (!Number.isFinite(position)) return;
  const x = px(position);
  const y = py(hill(position));
  const slope = Math.atan2(-(1.35 * Math.cos(3 * position)) * sy, sx);
  ctx.save();
  ctx.translate(x, y);
  ctx.rotate(slope);
  ctx.fillStyle = theme.palette[0];
  ctx.fillRect(-20, -22, 40, 16);
  ctx.fillStyle = theme.foreground;
  for (const wx of [-12, 12]) {
    ctx.beginPath();
    ctx.arc(wx, -5, 5, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.restore();
  const action = actionAt(scene);
  if (action === 0 || action === 2) arrow(ctx, x, y - 40, action === 2 ? 30 : -30, theme.palette[0]);
}
