// GridWorld: the walls of the layout the episode ran on (built by the env's own code, so the
// drawing and the env never disagree), the goal, the achieved position (the agent's cell), and
// the path it took so far in the episode.
import { buildWalls, type GridLayout } from '../../../shared/geometry/grid-world.js';
import { field, label, type Scene } from './scene.js';

const LAYOUTS: GridLayout[] = ['open', 'four_rooms', 'maze'];

/** What the drawing shows at step t: the grid, the goal and the achieved cell, and whether they meet. */
export interface GridWorldView {
  layout: GridLayout;
  size: number;
  walls: Uint8Array;
  goal: { x: number; y: number };
  achieved: { x: number; y: number };
  reached: boolean;
}

export function gridWorldView(scene: Pick<Scene, 'header' | 'steps' | 't' | 'params'>): GridWorldView {
  const layout = LAYOUTS.find((l) => l === scene.params.layout) ?? 'open';
  // The episode's own size (its header's env_params, which a curriculum changes), else the plan's.
  let size = typeof scene.params.size === 'number' ? scene.params.size : 11;
  // Runs of earlier versions record no env_params: fit what the agent saw.
  for (const step of scene.steps) for (const v of step.obs) if (Number.isInteger(v) && v >= size) size = v + 1;
  const at = (name: string) => field(scene as Scene, name);
  const goal = { x: at('goal_x'), y: at('goal_y') };
  const achieved = { x: at('x'), y: at('y') };
  return { layout, size, walls: buildWalls(layout, size), goal, achieved, reached: goal.x === achieved.x && goal.y === achieved.y };
}

/**
 * Where the grid and its caption go in a canvas of `width` x `height`: the caption gets a strip
 * of its own under the grid (drawn over the bottom row, it hid the cells a goal sits in).
 */
export function gridWorldLayout(width: number, height: number, size: number, fontSize: number): { cell: number; ox: number; oy: number; captionY: number } {
  const caption = Math.round(fontSize * 0.9) + 8;
  const cell = Math.max(1, Math.floor(Math.min(width, height - caption) / size));
  const ox = Math.floor((width - cell * size) / 2);
  const oy = Math.floor((height - caption - cell * size) / 2);
  return { cell, ox, oy, captionY: oy + cell * size + 4 };
}

export function drawGridWorld(scene: Scene): void {
  const { ctx, width, height, theme } = scene;
  const view = gridWorldView(scene);
  const { size, walls } = view;
  const { cell, ox, oy, captionY } = gridWorldLayout(width, height, size, theme.fontSize);
  const centre = (x: number, y: number) => ({ x: ox + (x + 0.5) * cell, y: oy + (y + 0.5) * cell });

  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      ctx.fillStyle = walls[y * size + x] ? theme.muted : theme.background;
      ctx.fillRect(ox + x * cell, oy + y * cell, cell, cell);
    }
  }
  ctx.strokeStyle = theme.grid;
  ctx.lineWidth = 1;
  for (let i = 0; i <= size; i++) {
    ctx.beginPath();
    ctx.moveTo(ox + i * cell + 0.5, oy);
    ctx.lineTo(ox + i * cell + 0.5, oy + size * cell);
    ctx.moveTo(ox, oy + i * cell + 0.5);
    ctx.lineTo(ox + size * cell, oy + i * cell + 0.5);
    ctx.stroke();
  }

  const goal = centre(view.goal.x, view.goal.y);
  if (Number.isFinite(goal.x) && Number.isFinite(goal.y)) {
    ctx.fillStyle = theme.success;
    ctx.fillRect(goal.x - cell * 0.35, goal.y - cell * 0.35, cell * 0.7, cell * 0.7);
  }

  // The path so far, then the agent on top of it.
  ctx.strokeStyle = theme.palette[0];
  ctx.globalAlpha = 0.45;
  ctx.lineWidth = Math.max(2, cell * 0.12);
  ctx.beginPath();
  for (let t = 0; t <= scene.t; t++) {
    const p = centre(field(scene, 'x', t), field(scene, 'y', t));
    if (t === 0) ctx.moveTo(p.x, p.y);
    else ctx.lineTo(p.x, p.y);
  }
  ctx.stroke();
  ctx.globalAlpha = 1;
  const agent = centre(view.achieved.x, view.achieved.y);
  if (Number.isFinite(agent.x) && Number.isFinite(agent.y)) {
    ctx.fillStyle = theme.palette[0];
    ctx.beginPath();
    ctx.arc(agent.x, agent.y, cell * 0.32, 0, 2 * Math.PI);
    ctx.fill();
  }
  const reached = view.reached ? ' · reached' : '';
  label(ctx, `goal (${view.goal.x}, ${view.goal.y}) · achieved (${view.achieved.x}, ${view.achieved.y})${reached} · ${view.layout} ${size}x${size}`, width / 2, captionY, theme, 'center');
}
