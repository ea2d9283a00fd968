// Hindsight relabeling (runtime/algorithms/replay/her.ts) with an env that answers a whole
// batch's rewards at once (GoalConditioned.computeRewards, a Python goal env's one round trip):
// relabelBatch asks it once per sampled batch instead of computeReward per row, and the batch is
// bit for bit the one the per-row path gives; envs without it (the TS ones) keep the per-row path.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ReplayBuffer, type ReplayBatch } from '../../../../runtime/algorithms/replay/buffer.js';
import { createStoreScratch, stepAndStore } from '../../../../runtime/algorithms/replay/collect.js';
import { goalLayout } from '../../../../runtime/algorithms/replay/her.js';
import { Stepper } from '../../../../runtime/algorithms/stepper.js';
import type { GridWorld } from '../../../../runtime/envs/index.js';
import { makeVecEnv } from '../../../../runtime/envs/registry.js';
import type { GoalConditioned, GoalOutcomes } from '../../../../runtime/envs/types.js';
import { Rng } from '../../../../shared/random.js';

/** GridWorld random walks (reaching the goal ends an episode) stored in `buffers`, the same steps in each. */
function fill(buffers: ReplayBuffer[]): void {
  const vec = makeVecEnv('GridWorld', { size: 5, goal: 'random', max_steps: 12 }, 2);
  const stepper = new Stepper(vec, null);
  stepper.reset(3);
  const scratch = createStoreScratch(stepper);
  const actions = vec.createActionBuffer();
  const rng = new Rng(9);
  for (let t = 0; t < 500; t++) {
    for (let i = 0; i < 2; i++) actions[i] = rng.int(4);
    stepAndStore(stepper, buffers[0]!, actions, scratch);
    for (const other of buffers.slice(1)) other.add(scratch.obs, actions, stepper.rewards, scratch.nextObs, vec.terminated, vec.truncated);
  }
}

/** GridWorld's goal functions, counting their calls, and (`batched`) a computeRewards made of them. */
function countedGrid(batched: boolean) {
  const grid = makeVecEnv('GridWorld', { size: 5 }, 1).envs[0] as GridWorld;
  const calls = { reward: 0, terminated: 0, batches: [] as number[] };
  const env: GoalConditioned = {
    goalFields: grid.goalFields,
    achievedFields: grid.achievedFields,
    computeReward: (a, g) => (calls.reward++, grid.computeReward(a, g)),
    computeTerminated: (a, g) => (calls.terminated++, grid.computeTerminated(a, g)),
  };
  if (batched) {
    env.computeRewards = (achieved, goals, count, width): GoalOutcomes => {
      calls.batches.push(count);
      const rows = (i: number) => [achieved.subarray(i * width, (i + 1) * width), goals.subarray(i * width, (i + 1) * width)] as const;
      return {
        rewards: Array.from({ length: count }, (_, i) => grid.computeReward(...rows(i))),
        terminated: Array.from({ length: count }, (_, i) => grid.computeTerminated(...rows(i))),
      };
    };
  }
  return { env, calls };
}

function sample(buffer: ReplayBuffer, rows: number, rng: Rng): ReplayBatch {
  const batch = buffer.createBatch(rows);
  buffer.sample(rows, rng, batch);
  return batch;
}

describe('relabeling with a batched computeRewards', () => {
  const fields = ['x', 'y', 'goal_x', 'goal_y'];
  const relabel = { strategy: 'future', k: 4 } as const;
  const buffer = (env: GoalConditioned) => new ReplayBuffer({ capacity: 2000, numEnvs: 2, obsDim: 4, actionWidth: 1, relabel, goals: goalLayout(fields, env) });

  it('calls it once per batch with the relabeled rows, and never computeReward; the batches and random streams are the per-row path\'s', () => {
    const perRow = countedGrid(false);
    const batched = countedGrid(true);
    const [a, b] = [buffer(perRow.env), buffer(batched.env)];
    fill([a, b]);
    const [rngA, rngB] = [new Rng(2), new Rng(2)];
    for (const rows of [1000, 5, 1]) {
      const [viaRows, viaBatch] = [sample(a, rows, rngA), sample(b, rows, rngB)];
      assert.deepEqual(viaBatch, viaRows, `a batch of ${rows}`);
    }
    assert.deepEqual(batched.calls, { reward: 0, terminated: 0, batches: [800, 4] }, 'one call per batch that has relabeled rows (4/5 of 1000 and of 5; none of 1)');
    assert.deepEqual([perRow.calls.reward, perRow.calls.terminated], [804, 804], 'the per-row path: one call per relabeled row');
    assert.equal(rngA.uint32(), rngB.uint32(), 'the same draws');
  });

  it('GridWorld (no computeRewards) keeps the per-row path: its layout has none', () => {
    const grid = makeVecEnv('GridWorld', { size: 5 }, 1).envs[0] as GridWorld;
    assert.equal(goalLayout(fields, grid).computeRewards, null);
  });
});
