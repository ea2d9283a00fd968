// Pendulum: the rod from the pivot at angle theta (0 upright, from the observation's cosine and
// sine), and this step's torque as an arc whose length shows its size (positive turns the
// pendulum counterclockwise, as theta grows).
import { Pendulum } from '../../../dsl/schema/envs.js';
import { actionAt, field, label, numberParam, type Scene } from './scene.js';

export function drawPendulum(scene: Scene): void {
  const { ctx, width, height, theme } = scene;
  const theta = Math.atan2(field(scene, 'sin_theta'), field(scene, 'cos_theta'));
  const maxTorque = numberParam(scene, 'max_torque', Pendulum.params.find((p) => p.name === 'max_torque')!.default as number);
  const r = Math.min(width, height) * 0.36;
  const ox = width / 2;
  const oy = height / 2;
  ctx.strokeStyle = theme.grid;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.arc(ox, oy, r, 0, 2 * Math.PI);
  ctx.stroke();
  label(ctx, 'upright', ox, oy - r - 18, theme, 'center');
  if (!Number.isFinite(theta)) return;
  const tip = { x: ox - r * Math.sin(theta), y: oy - r * Math.cos(theta) };
  ctx.lineCap = 'round';
  ctx.lineWidth = Math.max(8, r * 0.1);
  ctx.strokeStyle = theme.palette[4];
  ctx.beginPath();
  ctx.moveTo(ox, oy);
  ctx.lineTo(tip.x, tip.y);
  ctx.stroke();
  ctx.lineCap = 'butt';
  ctx.fillStyle = theme.foreground;
  ctx.beginPath();
  ctx.arc(ox, oy, 5, 0, 2 * Math.PI);
  ctx.fill();

  const torque = Math.max(-maxTorque, Math.min(maxTorque, actionAt(scene)));
  if (!Number.isFinite(torque) || torque === 0) return;
  // Canvas angles grow clockwise: counterclockwise on screen is anticlockwise = true.
  const sweep = (Math.abs(torque) / maxTorque) * Math.PI * 0.9;
  const start = -Math.PI / 2 - theta;
  ctx.strokeStyle = theme.palette[1];
  ctx.lineWidth = 3;
  ctx.beginPath();
  ctx.arc(ox, oy, r * 0.35, start, start + (torque > 0 ? -sweep : sweep), torque > 0);
  ctx.stroke();
  label(ctx, `torque ${torque.toFixed(2)}`, ox, oy + r + 6, theme, 'center');
}
