// Acrobot: two links hanging from a pivot, from the observation's cosines and sines of the
// joint angles (theta1 from straight down; theta2 relative to the first link), the line the
// tip must rise above (height 1), and this step's torque on the joint (-1, 0, +1).
import { ACROBOT_CONSTANTS } from '../../../shared/geometry/acrobot.js';
import { actionAt, field, label, type Scene } from './scene.js';

export function drawAcrobot(scene: Scene): void {
  const { ctx, width, height, theme } = scene;
  const theta1 = Math.atan2(field(scene, 'sin_theta1'), field(scene, 'cos_theta1'));
  const theta2 = Math.atan2(field(scene, 'sin_theta2'), field(scene, 'cos_theta2'));
  const l1 = ACROBOT_CONSTANTS.link_length_1;
  const l2 = ACROBOT_CONSTANTS.link_length_2;
  const reach = l1 + l2 + 0.2;
  const scale = Math.min(width, height) / (2 * reach);
  const ox = width / 2;
  const oy = height / 2;
  const px = (x: number) => ox + x * scale;
  const py = (y: number) => oy - y * scale;

  // The goal: the tip above height 1 over the pivot.
  ctx.setLineDash([5, 5]);
  ctx.strokeStyle = theme.success;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.moveTo(px(-reach), py(1));
  ctx.lineTo(px(reach), py(1));
  ctx.stroke();
  ctx.setLineDash([]);
  label(ctx, 'goal height', px(-reach) + 4, py(1) + 4, scene.theme);
  if (!Number.isFinite(theta1) || !Number.isFinite(theta2)) return;

  const p1 = { x: l1 * Math.sin(theta1), y: -l1 * Math.cos(theta1) };
  const p2 = { x: p1.x + l2 * Math.sin(theta1 + theta2), y: p1.y - l2 * Math.cos(theta1 + theta2) };
  ctx.lineCap = 'round';
  ctx.lineWidth = Math.max(6, scale * 0.12);
  ctx.strokeStyle = theme.palette[0];
  ctx.beginPath();
  ctx.moveTo(px(0), py(0));
  ctx.lineTo(px(p1.x), py(p1.y));
  ctx.stroke();
  ctx.strokeStyle = theme.palette[4];
  ctx.beginPath();
  ctx.moveTo(px(p1.x), py(p1.y));
  ctx.lineTo(px(p2.x), py(p2.y));
  ctx.stroke();
  ctx.lineCap = 'butt';
  ctx.fillStyle = theme.foreground;
  for (const p of [{ x: 0, y: 0 }, p1]) {
    ctx.beginPath();
    ctx.arc(px(p.x), py(p.y), 5, 0, 2 * Math.PI);
    ctx.fill();
  }
  const torque = actionAt(scene) - 1;
  if (torque === 1 || torque === -1) {
    // Positive torque turns the second link counterclockwise on the screen.
    ctx.strokeStyle = theme.palette[1];
    ctx.lineWidth = 2.5;
    ctx.beginPath();
    ctx.arc(px(p1.x), py(p1.y), 16, torque > 0 ? 0.2 : Math.PI - 0.2, torque > 0 ? Math.PI - 0.2 : 0.2, torque > 0);
    ctx.stroke();
  }
}
