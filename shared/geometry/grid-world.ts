// The grid's layout, shared by the env (runtime/envs/grid-world.ts), which steps on it, and the
// rollout inspector (webview/rollouts/draw/grid-world.ts), which draws it. It imports only the
// import-free seeded generator, so the browser bundle takes it without the trainer
// (test/architecture.test.ts checks it).
import { Rng } from '../random.js';

export type GridLayout = 'open' | 'four_rooms' | 'maze';

/** The fixed seed the maze layout is carved from (the maze depends only on size). */
const MAZE_SEED = 0x6d617a65;

/** Moves of actions 0-3 (up, right, down, left), in cells. */
export const ACTION_DX = [0, 1, 0, -1] as const;
export const ACTION_DY = [-1, 0, 1, 0] as const;

/** 1 marks a wall; cell (x, y) is at index y * size + x. */
export function buildWalls(layout: GridLayout, size: number): Uint8Array {
  const walls = new Uint8Array(size * size);
  if (layout === 'four_rooms') {
    // With an even size the walls sit just left of and above the centre.
    const mid = Math.floor((size - 1) / 2);
    for (let i = 0; i < size; i++) {
      walls[mid * size + i] = 1; // the horizontal wall (row mid)
      walls[i * size + mid] = 1; // the vertical wall (column mid)
    }
    // One doorway in the middle of each wall segment.
    const nearDoor = Math.floor((mid - 1) / 2);
    const farDoor = mid + 1 + Math.floor((size - mid - 2) / 2);
    for (const door of [nearDoor, farDoor]) {
      walls[mid * size + door] = 0;
      walls[door * size + mid] = 0;
    }
  } else if (layout === 'maze') {
    walls.fill(1);
    const rng = new Rng(MAZE_SEED).fork(size);
    const open = (x: number, y: number): void => {
      walls[y * size + x] = 0;
    };
    // Depth-first search over the cells at even coordinates, knocking down
    // the wall between each cell and the unvisited neighbour it moves to.
    // (An even size leaves its last row and column as wall.)
    const stack: number[] = [0];
    open(0, 0);
    const neighbours: number[] = [];
    while (stack.length > 0) {
      const cell = stack[stack.length - 1];
      const cx = cell % size;
      const cy = (cell - cx) / size;
      neighbours.length = 0;
      for (let direction = 0; direction < 4; direction++) {
        const nx = cx + 2 * ACTION_DX[direction];
        const ny = cy + 2 * ACTION_DY[direction];
        if (nx >= 0 && nx < size && ny >= 0 && ny < size && walls[ny * size + nx] === 1) neighbours.push(direction);
      }
      if (neighbours.length === 0) {
        stack.pop();
        continue;
      }
      const direction = neighbours[rng.int(neighbours.length)];
      open(cx + ACTION_DX[direction], cy + ACTION_DY[direction]);
      const nx = cx + 2 * ACTION_DX[direction];
      const ny = cy + 2 * ACTION_DY[direction];
      open(nx, ny);
      stack.push(ny * size + nx);
    }
  }
  return walls;
}

/**
 * Why a fixed goal at (x, y) cannot be used on this grid (off it, or on a wall of the layout),
 * or undefined when it can. The checker reports it where the values are constants, the env
 * when it is built.
 */
export function fixedGoalProblem(layout: GridLayout, size: number, x: number, y: number): string | undefined {
  if (x >= size || y >= size || x < 0 || y < 0) return `fixed(${x}, ${y}) is outside the ${size}x${size} grid (coordinates run from 0 to ${size - 1})`;
  if (buildWalls(layout, size)[y * size + x] === 1) return `fixed(${x}, ${y}) is a wall in the ${layout} layout of size ${size}`;
  return undefined;
}
