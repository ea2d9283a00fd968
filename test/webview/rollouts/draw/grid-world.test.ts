// What the rollout inspector draws of a GridWorld step: the grid the episode ran on (its
// header's env_params, which a curriculum changes, over the plan's), the goal, the achieved
// cell, and whether they meet.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildWalls } from '../../../../shared/geometry/grid-world.js';
import type { RolloutHeader, RolloutStep } from '../../../../webview/protocol.js';
import { gridWorldLayout, gridWorldView } from '../../../../webview/rollouts/draw/grid-world.js';

const header: RolloutHeader = { type: 'header', env: 'GridWorld', obs_fields: ['x', 'y', 'goal_x', 'goal_y'], action: { kind: 'discrete', n: 4 }, terms: [], step: 0 };
const step = (t: number, obs: number[]): RolloutStep => ({ type: 'step', t, obs, action: 1, reward: 0, env_reward: 0, terminated: false, truncated: false });

test('the goal and the achieved cell of each step, on the layout and size the episode ran on', () => {
  const steps = [step(0, [1, 1, 3, 1]), step(1, [2, 1, 3, 1]), step(2, [3, 1, 3, 1])];
  const params = { layout: 'four_rooms', size: 7 };
  const first = gridWorldView({ header, steps, t: 0, params });
  assert.deepEqual([first.layout, first.size, first.goal, first.achieved, first.reached], ['four_rooms', 7, { x: 3, y: 1 }, { x: 1, y: 1 }, false]);
  assert.deepEqual(first.walls, buildWalls('four_rooms', 7));
  assert.deepEqual(gridWorldView({ header, steps, t: 2, params }).reached, true);
});

test('a run of an earlier version (no env_params) grows the plan\'s grid to what the agent saw', () => {
  const view = gridWorldView({ header, steps: [step(0, [8, 1, 3, 1])], t: 0, params: { size: 5 } });
  assert.equal(view.size, 9);
});

test('the caption has a strip of its own under the grid: it never covers a cell', () => {
  // The inspector's canvas at its usual sizes, wide and tall, at the default font size.
  for (const [width, height] of [[400, 300], [300, 400], [600, 220], [200, 150]]) {
    for (const size of [5, 7, 11, 19]) {
      const { cell, ox, oy, captionY } = gridWorldLayout(width, height, size, 13);
      const gridBottom = oy + cell * size;
      assert.ok(captionY >= gridBottom, `${width}x${height}, ${size}x${size}: caption at ${captionY}, grid to ${gridBottom}`);
      assert.ok(captionY + Math.round(13 * 0.9) <= height, `${width}x${height}, ${size}x${size}: the caption fits`);
      assert.ok(ox >= 0 && oy >= 0 && ox + cell * size <= width, 'the grid fits');
    }
  }
});
