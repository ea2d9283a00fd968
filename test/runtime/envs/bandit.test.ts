import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Bandit } from '../../../runtime/envs/bandit.js';
import { makeVecEnv } from '../../../runtime/envs/registry.js';

describe('Bandit', () => {
  it('draws its arm means from the seed', () => {
    const means = (seed: number) => {
      const env = new Bandit({ arms: 5 });
      env.reset(seed);
      return env.getState();
    };
    assert.deepEqual(means(1), means(1));
    assert.notDeepEqual(means(1), means(2));
    assert.equal(means(1).length, 5);
  });

  it('keeps the means across unseeded resets: the problem belongs to the seed, not the episode', () => {
    const env = new Bandit();
    env.reset(3);
    const before = env.getState();
    for (let i = 0; i < 10; i++) {
      env.step(0);
      env.reset();
    }
    assert.deepEqual(env.getState(), before);
  });

  it('ends every episode after one pull, terminated and not truncated', () => {
    const env = new Bandit({ arms: 3 });
    const { obs } = env.reset(0);
    assert.deepEqual(Array.from(obs), [1]);
    assert.deepEqual(env.obsFields, [], 'its constant observation has no field names');
    const result = env.step(2);
    assert.equal(result.terminated, true);
    assert.equal(result.truncated, false);
  });

  it('runs max_steps pulls per episode, terminating at the last', () => {
    const env = new Bandit({ arms: 3, max_steps: 3 });
    env.reset(0);
    assert.deepEqual([env.step(0), env.step(1), env.step(2)].map((r) => [r.terminated, r.truncated]), [[false, false], [false, false], [true, false]]);
  });

  it('scales the noise by reward_std', () => {
    const env = new Bandit({ arms: 2, reward_std: 0 });
    env.setState([0.25, -1]);
    assert.equal(env.step(0).reward, 0.25);
  });

  it('pays each arm its mean plus unit Gaussian noise', () => {
    const env = new Bandit({ arms: 4 });
    env.reset(8);
    const means = env.getState();
    for (let arm = 0; arm < 4; arm++) {
      const rewards: number[] = [];
      for (let pull = 0; pull < 4000; pull++) {
        env.reset();
        rewards.push(env.step(arm).reward);
      }
      const average = rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length;
      const spread = Math.sqrt(rewards.reduce((sum, reward) => sum + (reward - average) ** 2, 0) / rewards.length);
      assert.ok(Math.abs(average - means[arm]) < 0.08, `arm ${arm}: average ${average}, mean ${means[arm]}`);
      assert.ok(Math.abs(spread - 1) < 0.05, `arm ${arm}: spread ${spread}`);
    }
  });

  it('reports the optimal arm and the regret of each pull', () => {
    const env = new Bandit({ arms: 3 });
    env.setState([0.5, 2, -1]);
    assert.equal(env.optimalArm, 1);
    const worst = env.step(2).info;
    assert.deepEqual(worst, { arm: 2, mean: -1, optimal_arm: 1, regret: 3 });
    env.setState([0.5, 2, -1]);
    assert.equal(env.step(1).info.regret, 0);
  });

  it('pays from means installed with setState, even if never seeded', () => {
    const env = new Bandit({ arms: 2 });
    env.setState([0, 100]);
    assert.ok(env.step(1).reward > 90);
    assert.deepEqual(env.getState(), [0, 100]);
  });

  it('gives every copy of a vectorised run the same arms, and the same as a single env with that seed', () => {
    const vec = makeVecEnv('Bandit', { arms: 6 }, 4);
    vec.reset(11);
    const single = new Bandit({ arms: 6 });
    single.reset(11);
    for (const copy of vec.envs) assert.deepEqual(copy.getState(), single.getState());
  });

  it('rejects a bad number of arms', () => {
    assert.throws(() => new Bandit({ arms: 1 }), /Bandit: param "arms" must be a whole number >= 2 and <= 1000, got 1/);
    const env = new Bandit({ arms: 3 });
    env.reset(0);
    assert.throws(() => env.step(3), /Bandit: action must be an integer in \[0, 2\], got 3/);
  });
});
