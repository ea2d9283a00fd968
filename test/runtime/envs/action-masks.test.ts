// Action masks from envs: FreeSlots' own, a plain env's info.action_mask read by VecEnv, and the
// errors for bad ones (wrong length, values that are not 0/1, none legal), which name the env,
// the copy and the step.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FreeSlots } from '../../../runtime/envs/free-slots.js';
import { VecEnv } from '../../../runtime/envs/vector.js';
import type { Env, StepResult } from '../../../runtime/envs/types.js';

/** A plain env of 3 actions whose step t (1-based) reports masks[t] (reset: masks[0]); episodes end at step `ends` (terminated). */
function scripted(masks: unknown[], ends = 100): Env {
  let t = 0;
  return {
    kind: 'Scripted',
    observationSpace: { kind: 'box', shape: [1], low: [0], high: [100] },
    actionSpace: { kind: 'discrete', n: 3 },
    obsFields: ['t'],
    stateLayout: [],
    maxSteps: 1000,
    masksActions: true,
    get elapsedSteps() {
      return t;
    },
    reset: () => {
      t = 0;
      return { obs: [0], info: { action_mask: masks[0] } };
    },
    step: (): StepResult => {
      t++;
      return { obs: [t], reward: 0, terminated: t >= ends, truncated: false, info: { action_mask: masks[Math.min(t, masks.length - 1)] } };
    },
    getState: () => [],
    setState: () => {},
  };
}

describe('action masks from envs', () => {
  it('FreeSlots masks exactly its taken slots, and a taken slot ends the episode with the penalty', () => {
    const env = new FreeSlots({ slots: 6, penalty: 2 });
    const { obs, info } = env.reset(5);
    assert.deepEqual(info.action_mask, Array.from(obs, (x) => 1 - x));
    const taken = Array.from(obs).indexOf(1);
    const free = Array.from(obs).indexOf(0);
    const filled = env.step(free);
    assert.equal(filled.reward, 1);
    assert.equal((filled.info.action_mask as number[])[free], 0);
    if (taken >= 0) {
      const illegal = env.step(taken);
      assert.deepEqual([illegal.reward, illegal.terminated, illegal.info.illegal], [-2, true, true]);
    }
  });

  it('VecEnv keeps each copy\'s mask of its current observation, and of the final one at an episode\'s end', () => {
    const vec = new VecEnv([scripted([[1, 0, 1], [0, 1, 1], [0, 0, 0]], 2)]);
    vec.reset(1);
    assert.deepEqual([...vec.actionMasks!], [1, 0, 1]);
    vec.step(Int32Array.of(0));
    assert.deepEqual([...vec.actionMasks!], [0, 1, 1]);
    // The episode ends at step 2 with a mask that allows nothing: allowed there (nobody acts on it).
    vec.step(Int32Array.of(1));
    assert.deepEqual([...vec.finalActionMasks!], [0, 0, 0]);
    assert.deepEqual([...vec.actionMasks!], [1, 0, 1]); // the next episode's reset mask
  });

  it('takes true/false as 1/0', () => {
    const vec = new VecEnv([scripted([[true, false, true]])]);
    vec.reset(1);
    assert.deepEqual([...vec.actionMasks!], [1, 0, 1]);
  });

  const bad: [string, unknown[], RegExp][] = [
    ['a mask of the wrong length', [[1, 1, 1], [1, 1]], /env Scripted copy 0: the action mask from step\(\) \(step 1 of its episode\) has 2 values, but the action space has 3 actions/],
    ['a value that is not 0/1', [[1, 0.5, 1]], /env Scripted copy 0: the action mask from reset\(\) has 0.5 at action 1; each value must be 1 \(legal\) or 0 \(illegal\)/],
    ['no legal action while the episode goes on', [[1, 1, 1], [1, 1, 1], [0, 0, 0]], /step 2 of its episode\) allows no action, but the episode goes on; end the episode \(terminated\) where no action is legal/],
    ['no mask at all', [undefined], /the action mask from reset\(\) is missing; give info.action_mask as 3 numbers/],
  ];
  for (const [what, masks, message] of bad) {
    it(`refuses ${what}, naming the env, the copy and the step`, () => {
      const vec = new VecEnv([scripted(masks)]);
      assert.throws(() => {
        vec.reset(1);
        vec.step(Int32Array.of(0));
        vec.step(Int32Array.of(0));
      }, message);
    });
  }
});
