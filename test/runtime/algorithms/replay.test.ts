// The replay buffer (runtime/algorithms/replay/): the ring keeps the newest transitions, dones
// are terminations only, the stored next observation at an episode's end is the real final one,
// sampling draws stored rows only, a state round trip continues identically, and hindsight
// relabeling draws goals achieved in the same episode as SB3's HerReplayBuffer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ReplayBuffer, type ReplayBatch } from '../../../runtime/algorithms/replay/buffer.js';
import { createStoreScratch, stepAndStore } from '../../../runtime/algorithms/replay/collect.js';
import { goalLayout, relabelOf } from '../../../runtime/algorithms/replay/her.js';
import { Stepper } from '../../../runtime/algorithms/stepper.js';
import { GridWorld } from '../../../runtime/envs/index.js';
import { makeVecEnv } from '../../../runtime/envs/registry.js';
import { Rng } from '../../../shared/random.js';

const flags = (...xs: number[]) => Uint8Array.from(xs);

/** Adds step `t` for two copies: obs [t, copy], next obs [t + 0.5, copy], action t, reward 10 t + copy. */
function addStep(buffer: ReplayBuffer, t: number, terminated = flags(0, 0), truncated = flags(0, 0)): void {
  buffer.add(Float32Array.of(t, 0, t, 1), [t, t], Float32Array.of(10 * t, 10 * t + 1), Float32Array.of(t + 0.5, 0, t + 0.5, 1), terminated, truncated);
}

function sampleMany(buffer: ReplayBuffer, rows: number, seed = 1): ReplayBatch {
  const batch = buffer.createBatch(rows);
  buffer.sample(rows, new Rng(seed), batch);
  return batch;
}

describe('ReplayBuffer', () => {
  it('keeps the newest positions when it wraps around, and samples only stored rows', () => {
    const buffer = new ReplayBuffer({ capacity: 6, numEnvs: 2, obsDim: 2, actionWidth: 1 });
    assert.throws(() => sampleMany(buffer, 1), /empty buffer/);
    addStep(buffer, 0);
    assert.equal(buffer.size, 2);
    const early = sampleMany(buffer, 50);
    assert.ok(early.obs.every((x, i) => (i % 2 === 0 ? x === 0 : x === 0 || x === 1)), 'only step 0 is stored');
    for (let t = 1; t < 5; t++) addStep(buffer, t);
    assert.equal(buffer.size, 6);
    const batch = sampleMany(buffer, 400);
    const steps = new Set<number>();
    for (let j = 0; j < 400; j++) {
      const t = batch.obs[2 * j];
      const copy = batch.obs[2 * j + 1];
      steps.add(t);
      // Each row's fields belong together.
      assert.equal(batch.actions[j], t);
      assert.equal(batch.rewards[j], 10 * t + copy);
      assert.deepEqual([batch.nextObs[2 * j], batch.nextObs[2 * j + 1]], [t + 0.5, copy]);
    }
    assert.deepEqual([...steps].sort(), [2, 3, 4], 'steps 0 and 1 were overwritten; every stored step is drawn');
  });

  it('sets dones for terminations only: a truncated transition bootstraps', () => {
    const buffer = new ReplayBuffer({ capacity: 2, numEnvs: 2, obsDim: 2, actionWidth: 1 });
    addStep(buffer, 0, flags(1, 0), flags(0, 1));
    const batch = sampleMany(buffer, 100);
    for (let j = 0; j < 100; j++) assert.equal(batch.dones[j], batch.obs[2 * j + 1] === 0 ? 1 : 0, 'copy 0 terminated, copy 1 was truncated');
  });

  it('stores the real final observation as the next observation at an episode end (autoreset)', () => {
    const vec = makeVecEnv('GridWorld', { size: 5, goal: 'random', max_steps: 3 }, 2);
    const stepper = new Stepper(vec, null);
    stepper.reset(3);
    const buffer = new ReplayBuffer({ capacity: 100, numEnvs: 2, obsDim: 4, actionWidth: 1 });
    const scratch = createStoreScratch(stepper);
    const actions = vec.createActionBuffer();
    const expectedNext: number[][] = [];
    const firstObs: number[][] = [];
    for (let t = 0; t < 6; t++) {
      actions[0] = t % 4;
      actions[1] = (t + 1) % 4;
      stepAndStore(stepper, buffer, actions, scratch);
      for (let i = 0; i < 2; i++) {
        const ended = vec.hasFinalObs[i] === 1;
        expectedNext.push([...(ended ? vec.finalObs : vec.obs).subarray(4 * i, 4 * i + 4)]);
        if (ended) firstObs.push([...vec.obs.subarray(4 * i, 4 * i + 4)]);
      }
    }
    assert.ok(firstObs.length >= 2, 'episodes ended (max_steps 3)');
    const state = buffer.state();
    for (let row = 0; row < 12; row++) assert.deepEqual([...state.nextObs.subarray(4 * row, 4 * row + 4)], expectedNext[row], `row ${row}`);
    // At each end the stored next obs is the final one, and the following row starts the new episode.
    for (const row of [4, 5]) {
      assert.equal(state.dones[row], 0, 'a time limit is not a termination');
      assert.deepEqual([...state.obs.subarray(4 * (row + 2), 4 * (row + 2) + 4)], firstObs[row - 4]);
    }
  });

  it('continues identically after a state round trip', () => {
    const a = new ReplayBuffer({ capacity: 8, numEnvs: 2, obsDim: 2, actionWidth: 1 });
    for (let t = 0; t < 6; t++) addStep(a, t, flags(t % 3 === 0 ? 1 : 0, 0));
    const b = new ReplayBuffer({ capacity: 8, numEnvs: 2, obsDim: 2, actionWidth: 1 });
    b.load(structuredClone(a.state()));
    for (const buffer of [a, b]) addStep(buffer, 6);
    assert.equal(b.size, a.size);
    assert.deepEqual(sampleMany(b, 64, 9), sampleMany(a, 64, 9));
    const other = new ReplayBuffer({ capacity: 10, numEnvs: 2, obsDim: 2, actionWidth: 1 });
    assert.throws(() => other.load(a.state()), /positions 4, this one 5/);
  });

  it('saves only the rows it holds, so a short run does not write its whole capacity', () => {
    const a = new ReplayBuffer({ capacity: 1000, numEnvs: 2, obsDim: 2, actionWidth: 1 });
    for (let t = 0; t < 3; t++) addStep(a, t, flags(0, t === 2 ? 1 : 0));
    const saved = a.state();
    assert.deepEqual([saved.obs.length, saved.nextObs.length, saved.actions.length, saved.rewards.length, saved.dones.length], [12, 12, 6, 6, 6]);
    const b = new ReplayBuffer({ capacity: 1000, numEnvs: 2, obsDim: 2, actionWidth: 1 });
    b.load(structuredClone(saved));
    assert.deepEqual(sampleMany(b, 32, 3), sampleMany(a, 32, 3));
  });
});

describe('hindsight relabeling', () => {
  const grid = new GridWorld({ size: 5 });
  const goals = goalLayout(['x', 'y', 'goal_x', 'goal_y'], grid);

  /** One copy walking x = 0, 1, 2, ... towards goal (4, 4): an episode of `length` steps ending at `t0 + length`. */
  function walk(buffer: ReplayBuffer, t0: number, length: number, end: 'terminated' | 'truncated' | 'running'): void {
    for (let t = t0; t < t0 + length; t++) {
      const last = t === t0 + length - 1;
      buffer.add(Float32Array.of(t, 0, 4, 4), [0], Float32Array.of(0), Float32Array.of(t + 1, 0, 4, 4), flags(last && end === 'terminated' ? 1 : 0), flags(last && end === 'truncated' ? 1 : 0));
    }
  }

  it('reads the plan\'s relabel values', () => {
    assert.equal(relabelOf('none'), null);
    assert.deepEqual(relabelOf({ kind: 'future', k: 2 }), { strategy: 'future', k: 2 });
    assert.deepEqual(relabelOf('final'), { strategy: 'final', k: 4 });
    assert.throws(() => relabelOf('later'), /relabel must be/);
  });

  for (const strategy of ['future', 'final', 'episode'] as const) {
    it(`${strategy}: k/(k+1) of the rows get a goal achieved in their own episode, with its reward`, () => {
      const buffer = new ReplayBuffer({ capacity: 100, numEnvs: 1, obsDim: 4, actionWidth: 1, relabel: { strategy, k: 3 }, goals });
      walk(buffer, 0, 5, 'truncated'); // achieved x = 1..5
      walk(buffer, 10, 4, 'terminated'); // achieved x = 11..14
      walk(buffer, 20, 3, 'running'); // never sampled: its future is unknown
      const rows = 400;
      const batch = sampleMany(buffer, rows, 5);
      const virtual = Math.floor((3 / 4) * rows);
      for (let j = 0; j < rows; j++) {
        const [x, , gx, gy] = batch.obs.subarray(4 * j, 4 * j + 4);
        assert.ok(x < 20, 'rows of the running episode are not sampled');
        if (j < rows - virtual) {
          assert.deepEqual([gx, gy, batch.rewards[j]], [4, 4, 0], 'real rows keep their goal and reward');
          continue;
        }
        const [start, length] = x < 10 ? [0, 5] : [10, 4];
        const achievedX = gx;
        const earliest = strategy === 'future' ? x + 1 : strategy === 'final' ? start + length : start + 1;
        assert.ok(gy === 0 && achievedX >= earliest && achievedX <= start + length, `row ${j}: goal ${gx} from x ${x} (${strategy})`);
        assert.equal(batch.nextObs[4 * j + 2], gx, 'the next observation carries the same goal');
        assert.equal(batch.rewards[j], achievedX === x + 1 ? 1 : 0, 'computeReward of the next achieved goal');
      }
    });
  }

  it('on real GridWorld episodes: reward 1 and a terminal done exactly where the next cell is the goal', () => {
    // Random walks in an open 5x5 grid, where reaching the goal ends the episode: a relabeled row
    // that reaches its goal must be terminal as the env would have made it (else its target
    // bootstraps past the goal while real rows of the same observation do not).
    const vec = makeVecEnv('GridWorld', { size: 5, goal: 'random', max_steps: 12 }, 2);
    const stepper = new Stepper(vec, null);
    stepper.reset(3);
    const buffer = new ReplayBuffer({ capacity: 2000, numEnvs: 2, obsDim: 4, actionWidth: 1, relabel: { strategy: 'future', k: 4 }, goals: goalLayout(vec.obsFields, vec.envs[0] as GridWorld) });
    const scratch = createStoreScratch(stepper);
    const actions = vec.createActionBuffer();
    const rng = new Rng(9);
    for (let t = 0; t < 500; t++) {
      for (let i = 0; i < 2; i++) actions[i] = rng.int(4);
      stepAndStore(stepper, buffer, actions, scratch);
    }
    const batch = sampleMany(buffer, 1000, 2);
    let reached = 0;
    for (let j = 0; j < 1000; j++) {
      const [, , gx, gy] = batch.obs.subarray(4 * j, 4 * j + 4);
      const [nx, ny, ngx, ngy] = batch.nextObs.subarray(4 * j, 4 * j + 4);
      assert.deepEqual([ngx, ngy], [gx, gy], `row ${j}: the next observation has the same goal`);
      const atGoal = nx === gx && ny === gy;
      reached += atGoal ? 1 : 0;
      assert.equal(batch.rewards[j], atGoal ? 1 : 0, `row ${j}: reward`);
      assert.equal(batch.dones[j], atGoal ? 1 : 0, `row ${j}: done`);
    }
    assert.ok(reached > 100, `relabeled goals are reached often (${reached} of 1000)`);
  });

  it('refuses to sample before an episode finished, and forgets episodes cut by the ring', () => {
    const buffer = new ReplayBuffer({ capacity: 6, numEnvs: 1, obsDim: 4, actionWidth: 1, relabel: { strategy: 'future', k: 1 }, goals });
    walk(buffer, 0, 4, 'running');
    assert.throws(() => sampleMany(buffer, 4), /none has finished yet/);
    walk(buffer, 4, 1, 'truncated'); // episode 0..4 (5 steps) finished
    walk(buffer, 10, 2, 'running'); // overwrites steps 0 and 1; what is left of episode 0..4 (2, 3, 4) is cut
    assert.throws(() => sampleMany(buffer, 4), /none has finished yet/);
    walk(buffer, 12, 1, 'terminated'); // episode 10..12 finished, overwriting step 2
    const batch = sampleMany(buffer, 100);
    for (let j = 0; j < 100; j++) assert.ok(batch.obs[4 * j] >= 10, 'only the finished, whole episode is sampled');
  });

  it('keeps its episode index through a state round trip', () => {
    const make = () => new ReplayBuffer({ capacity: 20, numEnvs: 1, obsDim: 4, actionWidth: 1, relabel: { strategy: 'future', k: 4 }, goals });
    const a = make();
    walk(a, 0, 5, 'truncated');
    walk(a, 10, 2, 'running');
    const b = make();
    b.load(structuredClone(a.state()));
    for (const buffer of [a, b]) walk(buffer, 12, 1, 'terminated');
    assert.deepEqual(sampleMany(b, 64, 4), sampleMany(a, 64, 4));
  });
});
