// GridWorld: a goal-conditioned navigation task on a size x size grid.
//
// Coordinates: x is the column (0 at the left), y the row (0 at the top, as
// render() prints it). Actions: 0 up (y - 1), 1 right (x + 1), 2 down
// (y + 1), 3 left (x - 1); a move into a wall or off the grid leaves the
// agent where it is.
//
// Observation: [x, y, goal_x, goal_y] as plain integer coordinates (scaling
// is the learner's business, and small integers are exact in float32).
//
// Reward: sparse, 1 on the step that reaches the goal (which terminates the
// episode with success) and 0 otherwise. We chose 0/1 over -1 per step so
// that the reward is a pure function of (achieved, goal), which is what
// hindsight relabeling needs (`computeReward`), and so that a return is
// directly a success rate. Truncation at max_steps.
//
// Layouts: `open` (no inner walls), `four_rooms` (Sutton, Precup & Singh's
// four rooms: one wall row and one wall column through the middle, a doorway
// in each of the four wall segments), `maze` (a perfect maze: open cells at
// even coordinates, carved by a randomised depth-first search). The maze
// comes from a fixed seed per size, so the same `size` always gives the same
// maze and an agent can learn it across episodes and runs.

import { Rng } from '../../shared/random.js';
import { BaseEnv } from './base.js';
import { ACTION_DX, ACTION_DY, buildWalls, fixedGoalProblem, type GridLayout } from '../../shared/geometry/grid-world.js';
import { EnvParamError, envParams } from './params.js';
import type { PlanParams } from '../plan-params.js';
import type { GoalConditioned } from './types.js';

/** `random`: a new goal each episode; fixed: always the same cell. */
export type GoalSetting = 'random' | { readonly kind: 'fixed'; readonly x: number; readonly y: number };

/** GridWorld's configuration; its names, defaults, docs and ranges are the language's (dsl/schema/envs.ts). */
export interface GridWorldConfig {
  readonly layout: GridLayout;
  readonly size: number;
  readonly goal: GoalSetting;
  readonly max_steps: number;
}

/** Reads a GridWorld configuration: defaults for what `given` leaves out, each value checked. */
function gridWorldConfig(given: object): GridWorldConfig {
  const p = envParams('GridWorld', given);
  return { layout: p.option('layout', ['open', 'four_rooms', 'maze']), size: p.number('size'), goal: goalSetting(p), max_steps: p.count('max_steps') };
}

/**
 * Accepts `random`, `{ kind: 'fixed', x, y }` (the plan's form of the
 * language's `fixed(x, y)`), or the shorthand `[x, y]`.
 */
function goalSetting(p: PlanParams): GoalSetting {
  const value = p.value('goal');
  const expected = 'random, fixed(x, y) as { kind: "fixed", x, y }, or [x, y]';
  const coordinate = (c: unknown): number => (typeof c === 'number' && Number.isSafeInteger(c) && c >= 0 ? c : p.fail('goal', `${expected}, with non-negative integer coordinates`));
  if (value === 'random') return 'random';
  if (Array.isArray(value) && value.length === 2) return { kind: 'fixed', x: coordinate(value[0]), y: coordinate(value[1]) };
  if (typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'fixed') {
    const { x, y } = value as { x?: unknown; y?: unknown };
    return { kind: 'fixed', x: coordinate(x), y: coordinate(y) };
  }
  return p.fail('goal', expected);
}

export class GridWorld extends BaseEnv implements GoalConditioned {
  readonly config: Readonly<GridWorldConfig>;
  readonly size: number;
  readonly achievedFields = ['x', 'y'] as const;
  readonly goalFields = ['goal_x', 'goal_y'] as const;

  private readonly walls: Uint8Array;
  /** Indices of the cells that are not walls, for drawing starts and goals. */
  private readonly freeCells: Int32Array;
  private x = 0;
  private y = 0;
  private goalX = 0;
  private goalY = 0;

  constructor(config: Partial<GridWorldConfig> = {}) {
    const resolved = gridWorldConfig(config);
    const size = resolved.size;
    const high = [size - 1, size - 1, size - 1, size - 1];
    super({
      kind: 'GridWorld',
      observationSpace: { kind: 'box', shape: [4], low: [0, 0, 0, 0], high },
      actionSpace: { kind: 'discrete', n: 4 },
      obsFields: ['x', 'y', 'goal_x', 'goal_y'],
      stateLayout: ['x', 'y', 'goal_x', 'goal_y'],
      maxSteps: resolved.max_steps,
    });
    this.config = Object.freeze(resolved);
    this.size = size;
    this.walls = buildWalls(resolved.layout, size);
    const free: number[] = [];
    for (let cell = 0; cell < size * size; cell++) if (this.walls[cell] === 0) free.push(cell);
    this.freeCells = Int32Array.from(free);

    const goal = resolved.goal;
    const problem = goal === 'random' ? undefined : fixedGoalProblem(resolved.layout, size, goal.x, goal.y);
    if (problem) throw new EnvParamError('GridWorld', 'goal', `GridWorld: param "goal" ${problem}`);
  }

  isWall(x: number, y: number): boolean {
    return x < 0 || y < 0 || x >= this.size || y >= this.size || this.walls[y * this.size + x] === 1;
  }

  computeReward(achieved: ArrayLike<number>, goal: ArrayLike<number>): number {
    return achieved[0] === goal[0] && achieved[1] === goal[1] ? 1 : 0;
  }

  /** Reaching the goal ends the episode, so a relabeled transition that reaches its goal is terminal. */
  computeTerminated(achieved: ArrayLike<number>, goal: ArrayLike<number>): boolean {
    return achieved[0] === goal[0] && achieved[1] === goal[1];
  }

  protected drawInitialState(rng: Rng): void {
    const goal = this.config.goal;
    let goalCell: number;
    if (goal === 'random') {
      goalCell = this.freeCells[rng.int(this.freeCells.length)];
    } else {
      goalCell = goal.y * this.size + goal.x;
    }
    // The start is any other free cell: drawing from the free cells minus one keeps it a single draw.
    let startIndex = rng.int(this.freeCells.length - 1);
    if (this.freeCells[startIndex] >= goalCell) startIndex++;
    const startCell = this.freeCells[startIndex];
    this.goalX = goalCell % this.size;
    this.goalY = (goalCell - this.goalX) / this.size;
    this.x = startCell % this.size;
    this.y = (startCell - this.x) / this.size;
  }

  protected advance(actions: ArrayLike<number>, offset: number): number {
    const action = actions[offset];
    const nx = this.x + ACTION_DX[action];
    const ny = this.y + ACTION_DY[action];
    if (!this.isWall(nx, ny)) {
      this.x = nx;
      this.y = ny;
    }
    const reached = this.x === this.goalX && this.y === this.goalY;
    this.terminated = reached;
    this.success = reached;
    return reached ? 1 : 0;
  }

  writeObs(out: Float32Array, offset: number): void {
    out[offset] = this.x;
    out[offset + 1] = this.y;
    out[offset + 2] = this.goalX;
    out[offset + 3] = this.goalY;
  }

  protected override stepInfo(): Record<string, unknown> {
    return { achieved: [this.x, this.y], goal: [this.goalX, this.goalY], success: this.success };
  }

  getState(): number[] {
    return [this.x, this.y, this.goalX, this.goalY];
  }

  protected applyState(state: readonly number[]): void {
    const [x, y, goalX, goalY] = state;
    for (const [name, value] of [['x', x], ['y', y], ['goal_x', goalX], ['goal_y', goalY]] as const) {
      if (!Number.isInteger(value) || value < 0 || value >= this.size) {
        throw new RangeError(`GridWorld: setState ${name} must be an integer in [0, ${this.size - 1}], got ${value}`);
      }
    }
    if (this.isWall(x, y)) throw new RangeError(`GridWorld: setState puts the agent inside a wall at (${x}, ${y})`);
    if (this.isWall(goalX, goalY)) throw new RangeError(`GridWorld: setState puts the goal inside a wall at (${goalX}, ${goalY})`);
    this.x = x;
    this.y = y;
    this.goalX = goalX;
    this.goalY = goalY;
  }

  /** The grid as text: # wall, . free, A agent, G goal (row 0 first). */
  render(): string {
    const rows: string[] = [];
    for (let y = 0; y < this.size; y++) {
      let row = '';
      for (let x = 0; x < this.size; x++) {
        if (x === this.x && y === this.y) row += 'A';
        else if (x === this.goalX && y === this.goalY) row += 'G';
        else row += this.isWall(x, y) ? '#' : '.';
      }
      rows.push(row);
    }
    return rows.join('\n');
  }
}
