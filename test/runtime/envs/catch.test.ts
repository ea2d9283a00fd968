// Catch: what a learner depends on: the pixels show the ball and the paddle where the state
// says, the reward and termination at the bottom row, seeded episodes that repeat exactly.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Catch } from '../../../runtime/envs/catch.js';
import { makeEnv } from '../../../runtime/envs/registry.js';

const lit = (obs: ArrayLike<number>, size: number): [number, number][] => {
  const cells: [number, number][] = [];
  for (let i = 0; i < obs.length; i++) if (obs[i] === 255) cells.push([i % size, Math.floor(i / size)]);
  return cells;
};

test('Catch observes an image [1, size, size] of 0 and 255 showing the ball and the paddle', () => {
  const env = new Catch({ size: 8 });
  assert.deepEqual(env.observationSpace.kind === 'box' && env.observationSpace.shape, [1, 8, 8]);
  env.reset(3);
  env.setState([5, 2, 1]);
  const { obs } = env.step(1);
  assert.ok([...obs].every((v) => v === 0 || v === 255));
  assert.deepEqual(lit(obs, 8), [[5, 3], [0, 7], [1, 7], [2, 7]]);
});

test('Catch pays +1 for a catch and -1 for a miss, at the bottom row only, and terminates', () => {
  const env = new Catch({ size: 6 });
  env.reset(1);
  env.setState([4, 0, 1]);
  const rewards: number[] = [];
  for (let i = 0; i < 5; i++) rewards.push(env.step(2).reward);
  assert.deepEqual(rewards, [0, 0, 0, 0, 1]);
  assert.equal(env.terminated, true);
  env.reset();
  env.setState([0, 3, 4]);
  assert.equal(env.step(1).reward, 0);
  const last = env.step(1);
  assert.deepEqual([last.reward, last.terminated], [-1, true]);
});

test('Catch keeps the paddle on the board', () => {
  const env = new Catch({ size: 6 });
  env.reset(2);
  env.setState([0, 0, 1]);
  env.step(0);
  assert.deepEqual(env.getState(), [0, 1, 1]);
  assert.throws(() => env.setState([0, 0, 0]), /off the 6x6 board/);
});

test('Catch episodes repeat exactly under a seed, and a random policy mostly misses', () => {
  const play = (seed: number) => {
    const env = makeEnv('Catch', { size: 10 });
    env.reset(seed);
    let total = 0;
    let episodes = 0;
    let actions = seed;
    const trace: number[] = [];
    while (episodes < 200) {
      actions = (actions * 1103515245 + 12345) % 2147483648;
      const { obs, reward, terminated } = env.step(actions % 3);
      trace.push(reward, obs.indexOf(255));
      total += reward;
      if (terminated) {
        episodes++;
        env.reset();
      }
    }
    return { trace, mean: total / episodes };
  };
  assert.deepEqual(play(7).trace, play(7).trace);
  assert.notDeepEqual(play(7).trace, play(8).trace);
  const { mean } = play(7);
  assert.ok(mean < -0.2, `a random policy's mean return ${mean}`);
});
