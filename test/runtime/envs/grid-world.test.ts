import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { buildWalls, type GridLayout } from '../../../shared/geometry/grid-world.js';
import { GridWorld } from '../../../runtime/envs/grid-world.js';
import { EnvParamError } from '../../../runtime/envs/params.js';

const UP = 0;
const RIGHT = 1;
const DOWN = 2;
const LEFT = 3;
const MOVES: readonly [number, number][] = [
  [0, -1],
  [1, 0],
  [0, 1],
  [-1, 0],
];

/** Breadth-first search over free cells; returns each reachable cell's first action on a shortest path from start. */
function shortestPaths(env: GridWorld, startX: number, startY: number): Map<number, number> {
  const size = env.size;
  const distance = new Map<number, number>([[startY * size + startX, 0]]);
  const queue = [[startX, startY]];
  for (let head = 0; head < queue.length; head++) {
    const [x, y] = queue[head];
    for (const [dx, dy] of MOVES) {
      const nx = x + dx;
      const ny = y + dy;
      const cell = ny * size + nx;
      if (env.isWall(nx, ny) || distance.has(cell)) continue;
      distance.set(cell, (distance.get(y * size + x) as number) + 1);
      queue.push([nx, ny]);
    }
  }
  return distance;
}

function freeCellCount(env: GridWorld): number {
  let count = 0;
  for (let y = 0; y < env.size; y++) for (let x = 0; x < env.size; x++) if (!env.isWall(x, y)) count++;
  return count;
}

/** Walks greedily down the BFS distance from the goal; returns the steps taken. */
function walkToGoal(env: GridWorld): { steps: number; success: boolean; rewards: number[] } {
  const [, , goalX, goalY] = env.getState();
  const toGoal = shortestPaths(env, goalX, goalY);
  const rewards: number[] = [];
  for (let steps = 1; steps <= env.maxSteps; steps++) {
    const [x, y] = env.getState();
    let best = -1;
    let bestDistance = Infinity;
    MOVES.forEach(([dx, dy], action) => {
      const d = toGoal.get((y + dy) * env.size + (x + dx));
      if (!env.isWall(x + dx, y + dy) && d !== undefined && d < bestDistance) {
        best = action;
        bestDistance = d;
      }
    });
    const result = env.step(best);
    rewards.push(result.reward);
    if (result.terminated) return { steps, success: result.info.success === true, rewards };
  }
  return { steps: env.maxSteps, success: false, rewards };
}

describe('GridWorld', () => {
  it('observes x, y, goal_x, goal_y and reports achieved and goal in info', () => {
    const env = new GridWorld({ size: 7 });
    assert.deepEqual(env.obsFields, ['x', 'y', 'goal_x', 'goal_y']);
    assert.deepEqual(env.achievedFields, ['x', 'y']);
    assert.deepEqual(env.goalFields, ['goal_x', 'goal_y']);
    assert.deepEqual(env.actionSpace, { kind: 'discrete', n: 4 });
    const { obs, info } = env.reset(1);
    assert.deepEqual(info, { achieved: [obs[0], obs[1]], goal: [obs[2], obs[3]], success: false });
  });

  it('moves one cell per action and stays put at the edge of the grid', () => {
    const env = new GridWorld({ size: 5 });
    env.setState([2, 2, 4, 4]);
    assert.deepEqual(Array.from(env.step(UP).obs), [2, 1, 4, 4]);
    assert.deepEqual(Array.from(env.step(RIGHT).obs), [3, 1, 4, 4]);
    assert.deepEqual(Array.from(env.step(DOWN).obs), [3, 2, 4, 4]);
    assert.deepEqual(Array.from(env.step(LEFT).obs), [2, 2, 4, 4]);
    env.setState([0, 0, 4, 4]);
    assert.deepEqual(Array.from(env.step(UP).obs), [0, 0, 4, 4]);
    assert.deepEqual(Array.from(env.step(LEFT).obs), [0, 0, 4, 4]);
  });

  it('blocks moves into walls', () => {
    const env = new GridWorld({ layout: 'four_rooms', size: 11 });
    // Column 5 is the vertical wall; its doorways are at y = 2 and y = 8.
    env.setState([4, 0, 10, 10]);
    const blocked = env.step(RIGHT);
    assert.deepEqual(Array.from(blocked.obs).slice(0, 2), [4, 0]);
    assert.equal(blocked.reward, 0);
    env.setState([4, 2, 10, 10]);
    assert.deepEqual(Array.from(env.step(RIGHT).obs).slice(0, 2), [5, 2], 'the doorway lets the agent through');
  });

  it('pays 1 and terminates with success on reaching the goal, 0 before', () => {
    const env = new GridWorld({ size: 5 });
    env.setState([1, 3, 3, 3]);
    const first = env.step(RIGHT);
    assert.deepEqual([first.reward, first.terminated, first.info.success], [0, false, false]);
    const second = env.step(RIGHT);
    assert.deepEqual([second.reward, second.terminated, second.truncated], [1, true, false]);
    assert.deepEqual(second.info, { achieved: [3, 3], goal: [3, 3], success: true });
    assert.equal(env.success, true);
  });

  it('computes the reward of any achieved/goal pair for hindsight relabeling', () => {
    const env = new GridWorld();
    assert.equal(env.computeReward([2, 3], [2, 3]), 1);
    assert.equal(env.computeReward([2, 3], [3, 2]), 0);
    // It agrees with the step reward: relabeling the goal to where the agent arrived pays 1.
    env.setState([4, 4, 9, 9]);
    const { obs, reward } = env.step(RIGHT);
    assert.equal(reward, env.computeReward([obs[0], obs[1]], [obs[2], obs[3]]));
    assert.equal(env.computeReward([obs[0], obs[1]], [obs[0], obs[1]]), 1);
  });

  it('truncates at max_steps', () => {
    const env = new GridWorld({ size: 5, max_steps: 3 });
    env.setState([0, 0, 4, 4]);
    assert.equal(env.step(UP).truncated, false);
    assert.equal(env.step(UP).truncated, false);
    const last = env.step(UP);
    assert.deepEqual([last.truncated, last.terminated, last.info.success], [true, false, false]);
  });

  it('draws a random goal and a different start on free cells each episode', () => {
    for (const layout of ['open', 'four_rooms', 'maze'] as const) {
      const env = new GridWorld({ layout, size: 9 });
      const goals = new Set<string>();
      env.reset(0);
      for (let episode = 0; episode < 200; episode++) {
        const [x, y, goalX, goalY] = Array.from(env.reset().obs);
        assert.ok(!env.isWall(x, y) && !env.isWall(goalX, goalY), `${layout}: on free cells`);
        assert.ok(x !== goalX || y !== goalY, `${layout}: the start is not the goal`);
        goals.add(`${goalX},${goalY}`);
      }
      assert.ok(goals.size > 20, `${layout}: goals vary (${goals.size} distinct)`);
    }
  });

  it('keeps a fixed goal, given as fixed(x, y) or [x, y]', () => {
    for (const goal of [{ kind: 'fixed', x: 1, y: 2 } as const, [1, 2]]) {
      const env = new GridWorld({ size: 5, goal: goal as never });
      env.reset(3);
      for (let episode = 0; episode < 50; episode++) {
        const [x, y, goalX, goalY] = Array.from(env.reset().obs);
        assert.deepEqual([goalX, goalY], [1, 2]);
        assert.ok(x !== 1 || y !== 2);
      }
    }
  });

  it('rejects a fixed goal in a wall or off the grid, naming the param', () => {
    assert.throws(
      () => new GridWorld({ layout: 'four_rooms', size: 11, goal: { kind: 'fixed', x: 5, y: 0 } }),
      (error: unknown) =>
        error instanceof EnvParamError && error.param === 'goal' && /fixed\(5, 0\) is a wall in the four_rooms layout/.test(error.message),
    );
    assert.throws(() => new GridWorld({ size: 5, goal: { kind: 'fixed', x: 5, y: 0 } }), /fixed\(5, 0\) is outside the 5x5 grid/);
    assert.throws(() => new GridWorld({ goal: 'nowhere' as never }), /GridWorld: param "goal" must be random, fixed\(x, y\)/);
  });

  it('takes sizes from 5 to 101, even ones included', () => {
    for (const layout of ['open', 'four_rooms', 'maze'] as const) {
      const env = new GridWorld({ layout, size: 10 });
      env.reset(1);
      assert.equal(env.render().split('\n').length, 10);
    }
    assert.throws(() => new GridWorld({ size: 102 }), /GridWorld: param "size" must be a whole number >= 5 and <= 101, got 102/);
    assert.throws(() => new GridWorld({ size: 3 }), /GridWorld: param "size" must be a whole number >= 5 and <= 101, got 3/);
  });

  it('builds four rooms joined by four doorways', () => {
    const env = new GridWorld({ layout: 'four_rooms', size: 11 });
    assert.equal(
      env.render().replace(/[AG]/g, '.'),
      [
        '.....#.....',
        '.....#.....',
        '...........',
        '.....#.....',
        '.....#.....',
        '##.#####.##',
        '.....#.....',
        '.....#.....',
        '...........',
        '.....#.....',
        '.....#.....',
      ].join('\n'),
    );
  });

  for (const layout of ['open', 'four_rooms', 'maze'] as GridLayout[]) {
    it(`${layout}: every free cell can reach every other (BFS), for sizes 5 to 31`, () => {
      for (let size = 5; size <= 31; size += 2) {
        const env = new GridWorld({ layout, size });
        const reachable = shortestPaths(env, 0, 0);
        assert.equal(reachable.size, freeCellCount(env), `${layout} ${size}x${size}`);
      }
    });
  }

  it('carves a perfect maze: a tree over the cells at even coordinates, the same for a size every time', () => {
    for (const size of [5, 11, 21]) {
      const env = new GridWorld({ layout: 'maze', size });
      const cells = ((size + 1) / 2) ** 2;
      // A tree over `cells` nodes has cells - 1 edges, each one opened wall cell.
      assert.equal(freeCellCount(env), 2 * cells - 1, `${size}x${size}`);
      assert.deepEqual(buildWalls('maze', size), buildWalls('maze', size));
      assert.notDeepEqual(buildWalls('maze', size), buildWalls('open', size));
    }
  });

  it('can be solved from any start by walking the shortest path', () => {
    for (const layout of ['open', 'four_rooms', 'maze'] as const) {
      const env = new GridWorld({ layout, size: 11, max_steps: 200 });
      env.reset(5);
      for (let episode = 0; episode < 20; episode++) {
        const [x, y, goalX, goalY] = Array.from(env.reset().obs);
        const distance = shortestPaths(env, x, y).get(goalY * env.size + goalX) as number;
        const walk = walkToGoal(env);
        assert.equal(walk.success, true, `${layout} episode ${episode}`);
        assert.equal(walk.steps, distance);
        assert.deepEqual(walk.rewards, [...new Array<number>(distance - 1).fill(0), 1]);
      }
    }
  });

  it('checks states given to setState', () => {
    const env = new GridWorld({ layout: 'four_rooms', size: 11 });
    assert.throws(() => env.setState([5, 0, 1, 1]), /GridWorld: setState puts the agent inside a wall at \(5, 0\)/);
    assert.throws(() => env.setState([1, 1, 5, 0]), /puts the goal inside a wall/);
    assert.throws(() => env.setState([11, 1, 1, 1]), /GridWorld: setState x must be an integer in \[0, 10\], got 11/);
    assert.throws(() => env.setState([1.5, 1, 1, 1]), /x must be an integer/);
  });

  it('renders the agent and the goal', () => {
    const env = new GridWorld({ size: 5 });
    env.setState([0, 0, 4, 4]);
    assert.equal(env.render(), ['A....', '.....', '.....', '.....', '....G'].join('\n'));
  });
});
