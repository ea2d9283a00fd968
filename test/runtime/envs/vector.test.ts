// VecEnv against the behaviour it promises: the same results as stepping
// single envs by hand with gymnasium.vector.SyncVectorEnv 0.29's same-step
// autoreset, final observations kept for bootstrapping, finished-episode
// statistics, and buffers allocated once.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { CartPole } from '../../../runtime/envs/cartpole.js';
import { GridWorld } from '../../../runtime/envs/grid-world.js';
import { MountainCar } from '../../../runtime/envs/mountain-car.js';
import { makeEnv, makeVecEnv } from '../../../runtime/envs/registry.js';
import type { Env, ResetResult, StepResult } from '../../../runtime/envs/types.js';
import { VecEnv } from '../../../runtime/envs/vector.js';
import { Rng } from '../../../shared/random.js';

function row(buffer: Float32Array, index: number, width: number): number[] {
  return Array.from(buffer.subarray(index * width, (index + 1) * width));
}

describe('VecEnv', () => {
  it('seeds copy i with stream i of the seed; copy 0 matches a single env reset with that seed', () => {
    const vec = makeVecEnv('CartPole', {}, 3);
    const obs = vec.reset(42);
    assert.equal(obs, vec.obs);
    assert.deepEqual(row(obs, 0, 4), Array.from(Float32Array.from(new CartPole().reset(42).obs)));
    for (let i = 0; i < 3; i++) {
      const single = new CartPole();
      single.seed(42, i);
      const expected = new Float32Array(4);
      single.resetInto(expected, 0);
      assert.deepEqual(row(obs, i, 4), Array.from(expected));
    }
    assert.notDeepEqual(row(obs, 0, 4), row(obs, 1, 4));
  });

  it('matches single envs stepped by hand with same-step autoreset', () => {
    const copies = 4;
    const vec = makeVecEnv('CartPole', {}, copies);
    vec.reset(7);
    const singles = Array.from({ length: copies }, (_, i) => {
      const env = new CartPole();
      env.seed(7, i);
      return { env, obs: Float32Array.from(env.reset().obs) };
    });
    // reset() above continues stream i exactly as vec.reset(7) began it.
    for (let i = 0; i < copies; i++) assert.deepEqual(row(vec.obs, i, 4), Array.from(singles[i].obs));

    const rng = new Rng(99);
    const actions = new Int32Array(copies);
    let endedEpisodes = 0;
    for (let t = 0; t < 400; t++) {
      for (let i = 0; i < copies; i++) actions[i] = rng.int(2);
      vec.step(actions);
      for (let i = 0; i < copies; i++) {
        const single = singles[i];
        const result: StepResult = single.env.step(actions[i]);
        const ended = result.terminated || result.truncated;
        assert.equal(vec.rewards[i], result.reward);
        assert.equal(vec.terminated[i], result.terminated ? 1 : 0);
        assert.equal(vec.truncated[i], result.truncated ? 1 : 0);
        assert.equal(vec.hasFinalObs[i], ended ? 1 : 0);
        if (ended) {
          endedEpisodes++;
          assert.deepEqual(row(vec.finalObs, i, 4), Array.from(Float32Array.from(result.obs)), `t=${t} copy ${i}: final obs`);
          const next: ResetResult = single.env.reset();
          assert.deepEqual(row(vec.obs, i, 4), Array.from(Float32Array.from(next.obs)), `t=${t} copy ${i}: reset obs`);
        } else {
          assert.deepEqual(row(vec.obs, i, 4), Array.from(Float32Array.from(result.obs)), `t=${t} copy ${i}: obs`);
        }
      }
    }
    assert.ok(endedEpisodes > 20, 'random play ends many CartPole episodes');
  });

  it('keeps the final observation on truncation and reports finished episodes once', () => {
    const vec = VecEnv.create(() => new MountainCar({ max_steps: 5 }), 2);
    vec.reset(1);
    const actions = new Int32Array([2, 0]);
    for (let t = 1; t <= 4; t++) {
      vec.step(actions);
      assert.deepEqual(Array.from(vec.truncated), [0, 0]);
      assert.deepEqual(Array.from(vec.episodeLengths), [t, t]);
    }
    const beforeLast = [row(vec.obs, 0, 2), row(vec.obs, 1, 2)];
    vec.step(actions);
    assert.deepEqual(Array.from(vec.truncated), [1, 1]);
    assert.deepEqual(Array.from(vec.terminated), [0, 0]);
    assert.deepEqual(Array.from(vec.hasFinalObs), [1, 1]);
    for (let i = 0; i < 2; i++) {
      assert.notDeepEqual(row(vec.finalObs, i, 2), beforeLast[i], 'the final obs is the fifth step\'s, not the fourth');
      assert.equal(vec.obs[i * 2 + 1], 0, 'the returned obs is a fresh start at rest');
    }
    assert.deepEqual(vec.takeFinishedEpisodes(), [
      { env: 0, return: -5, length: 5 },
      { env: 1, return: -5, length: 5 },
    ]);
    assert.deepEqual(vec.takeFinishedEpisodes(), []);
    assert.deepEqual(Array.from(vec.episodeLengths), [0, 0]);
    vec.step(actions);
    assert.deepEqual(Array.from(vec.hasFinalObs), [0, 0], 'the flag lasts one step');
  });

  it('accumulates returns in float64 across many finished episodes', () => {
    const vec = makeVecEnv('Pendulum', { max_steps: 3 }, 2);
    vec.reset(0);
    const actions = new Float32Array([0.5, -2]);
    const expected = [0, 0];
    const singles = [0, 1].map((i) => {
      const env = makeEnv('Pendulum', { max_steps: 3 });
      env.seed(0, i);
      env.reset();
      return env;
    });
    for (let t = 0; t < 300; t++) {
      vec.step(actions);
      singles.forEach((env, i) => {
        expected[i] += env.step([actions[i]]).reward;
        if (env.truncated) env.reset();
      });
    }
    const episodes = vec.takeFinishedEpisodes();
    assert.equal(episodes.length, 200);
    for (let i = 0; i < 2; i++) {
      const total = episodes.filter((episode) => episode.env === i).reduce((sum, episode) => sum + episode.return, 0);
      assert.ok(Math.abs(total - expected[i]) < 1e-9, `copy ${i}: ${total} vs ${expected[i]}`);
    }
  });

  it('reports success for goal-conditioned envs', () => {
    const vec = VecEnv.create(() => new GridWorld({ size: 5, goal: { kind: 'fixed', x: 1, y: 0 } }), 1);
    vec.reset(0);
    vec.envs[0].setState([0, 0, 1, 0]);
    vec.step(new Int32Array([1]));
    assert.equal(vec.terminated[0], 1);
    assert.deepEqual(row(vec.finalObs, 0, 4), [1, 0, 1, 0]);
    assert.deepEqual(vec.takeFinishedEpisodes(), [{ env: 0, return: 1, length: 1, success: true }]);
  });

  it('writes into the same buffers every step', () => {
    const vec = makeVecEnv('Acrobot', {}, 3);
    const buffers = [vec.obs, vec.rewards, vec.terminated, vec.truncated, vec.finalObs, vec.hasFinalObs];
    vec.reset(0);
    for (let t = 0; t < 50; t++) vec.step(new Int32Array([0, 1, 2]));
    assert.deepEqual([vec.obs, vec.rewards, vec.terminated, vec.truncated, vec.finalObs, vec.hasFinalObs], buffers);
    assert.equal(vec.obs.length, 18);
  });

  it('hands out action buffers of the right type and size', () => {
    assert.ok(makeVecEnv('CartPole', {}, 3).createActionBuffer() instanceof Int32Array);
    const continuous = makeVecEnv('Pendulum', {}, 3).createActionBuffer();
    assert.ok(continuous instanceof Float32Array);
    assert.equal(continuous.length, 3);
  });

  it('rejects actions of the wrong count or outside the action space', () => {
    const vec = makeVecEnv('CartPole', {}, 2);
    vec.reset(0);
    assert.throws(() => vec.step(new Int32Array(3)), /VecEnv\(CartPole\): expected 2 actions \(2 copies x 1\), got 3/);
    assert.throws(() => vec.step(new Int32Array([0, 2])), /VecEnv\(CartPole\): action for copy 1 must be an integer in \[0, 1\], got 2/);
    assert.throws(() => vec.step(new Float32Array([0, 0.5])), /action for copy 1 must be an integer/);
  });

  it('refuses copies of different envs', () => {
    assert.throws(() => new VecEnv([new CartPole(), new MountainCar()]), /VecEnv: copy 1 is MountainCar .* all copies must match/);
    assert.throws(() => VecEnv.create(() => new CartPole(), 0), /positive integer/);
  });

  it('steps an env that has only the plain API (a user module)', () => {
    // Counts up by the action; ends on reaching 3.
    class Counter implements Env {
      readonly kind = 'Counter';
      readonly observationSpace = { kind: 'box', shape: [1], low: [0], high: [10] } as const;
      readonly actionSpace = { kind: 'discrete', n: 2 } as const;
      readonly obsFields = ['count'];
      readonly stateLayout = ['count'];
      readonly maxSteps = 100;
      elapsedSteps = 0;
      seeds: (number | undefined)[] = [];
      private count = 0;
      reset(seed?: number): ResetResult {
        this.seeds.push(seed);
        this.count = 0;
        this.elapsedSteps = 0;
        return { obs: [this.count], info: {} };
      }
      step(action: number | ArrayLike<number>): StepResult {
        this.count += action as number;
        this.elapsedSteps++;
        return { obs: [this.count], reward: 1, terminated: this.count >= 3, truncated: false, info: {} };
      }
      getState(): number[] {
        return [this.count];
      }
      setState(state: readonly number[]): void {
        this.count = state[0];
      }
    }
    const counters = [new Counter(), new Counter()];
    const vec = new VecEnv(counters);
    vec.reset(5);
    assert.ok(counters.every((counter) => typeof counter.seeds[0] === 'number'));
    assert.notEqual(counters[0].seeds[0], counters[1].seeds[0], 'each copy gets its own derived seed');
    for (let t = 0; t < 3; t++) vec.step(new Int32Array([1, 0]));
    assert.deepEqual(Array.from(vec.terminated), [1, 0]);
    assert.deepEqual(Array.from(vec.finalObs.subarray(0, 1)), [3]);
    assert.deepEqual(Array.from(vec.obs), [0, 0]);
    assert.equal(counters[0].seeds[1], undefined, 'autoreset continues the stream');
    assert.deepEqual(vec.takeFinishedEpisodes(), [{ env: 0, return: 3, length: 3 }]);
  });

  it('hands each copy over to its replacement at the end of its episode in flight (a curriculum), seeded from the given stream', () => {
    const vec = makeVecEnv('GridWorld', { size: 5, max_steps: 3 }, 2);
    vec.reset(1);
    const actions = new Int32Array(2);
    // Copy 0 is one step into its episode when the replacements arrive; copy 1 resets before its first step.
    vec.step(actions);
    const next = makeVecEnv('GridWorld', { size: 9, max_steps: 6 }, 2);
    const [old0, new0, new1] = [vec.envs[0], next.envs[0], next.envs[1]];
    vec.replaceCopies(next, 7);
    assert.equal(vec.envs[0], old0, 'the episode in flight goes on in its copy');
    vec.reset();
    assert.deepEqual([vec.envs[0], vec.envs[1]], [new0, new1], 'a reset restarts every episode: all copies take over');
    const single = new GridWorld({ size: 9, max_steps: 6 });
    single.seed(7, 1);
    const expected = new Float32Array(4);
    single.resetInto(expected, 0);
    assert.deepEqual(row(vec.obs, 1, 4), Array.from(expected), 'copy 1 starts from stream 1 of the given seed');
    // At the end of an episode: the copy of the same index takes over only then.
    const other = makeVecEnv('GridWorld', { size: 7, max_steps: 6 }, 2);
    vec.replaceCopies(other, 8);
    for (let t = 0; t < 6 && vec.envs[0] === new0; t++) vec.step(actions);
    assert.equal(vec.envs[0], other.envs[0]);
    assert.equal(vec.terminated[0] | vec.truncated[0], 1, 'the copy was handed over at the step that ended its episode');
    assert.ok(vec.takeFinishedEpisodes().every((e) => e.length <= 6));
  });

  it('refuses replacements that change what the learner sees', () => {
    const vec = makeVecEnv('GridWorld', {}, 2);
    assert.throws(() => vec.replaceCopies(makeVecEnv('CartPole', {}, 2), 1), /the new CartPole copies \(2 copies, obs 4, action 1\) do not match the running GridWorld copies/);
    assert.throws(() => vec.replaceCopies(makeVecEnv('GridWorld', {}, 3), 1), /a curriculum may not change the observation or action size/);
  });
});
