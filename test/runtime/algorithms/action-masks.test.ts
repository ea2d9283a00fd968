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
import { learnerMasks } from '../../../runtime/algorithms/action-masking.js';
import { maskValues } from '../../../runtime/envs/action-mask.js';
import { Categorical, maskLogits } from '../../../runtime/policies/distributions.js';
import { GradientSession, Graph, WeightStore } from '../../../runtime/tensor/index.js';

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

describe('the masked categorical', () => {
  // Two rows of 4 logits; row 0 allows actions 0, 2 and 3, row 1 only action 1.
  const logits = [0.5, 2, -1, 1, 3, -0.5, 0, 1];
  const mask = [1, 0, 1, 1, 0, 1, 0, 0];
  const taken = [2, 1];

  /** By hand: the softmax over the legal logits of each row; log pi of the taken actions, the mean entropy, and d(sum log pi + mean entropy)/d logits. */
  function byHand() {
    const logProbs: number[] = [];
    const entropies: number[] = [];
    const grads: number[] = new Array(8).fill(0);
    for (let r = 0; r < 2; r++) {
      const legal = [0, 1, 2, 3].filter((k) => mask[r * 4 + k] === 1);
      const z = legal.reduce((s, k) => s + Math.exp(logits[r * 4 + k]), 0);
      const p = (k: number) => (mask[r * 4 + k] === 1 ? Math.exp(logits[r * 4 + k]) / z : 0);
      logProbs.push(Math.log(p(taken[r])));
      const h = -legal.reduce((s, k) => s + p(k) * Math.log(p(k)), 0);
      entropies.push(h);
      for (const k of legal) {
        // d log pi(a) / d l_k = [k = a] - p_k;  d H / d l_k = -p_k (log p_k + H), halved by the mean over 2 rows.
        grads[r * 4 + k] = (k === taken[r] ? 1 : 0) - p(k) - (p(k) * (Math.log(p(k)) + h)) / 2;
      }
    }
    return { logProbs, entropy: (entropies[0] + entropies[1]) / 2, grads };
  }

  it('gives the log-probabilities, entropy and gradients of the softmax over legal actions only', async () => {
    const store = new WeightStore();
    store.add('logits', [2, 4], () => logits);
    const g = new Graph();
    const dist = new Categorical(4);
    const head = maskLogits(g, store.declare(g).logits!, g.input('mask', 'float32', [2, 4]));
    const oneHot = g.input('action', 'float32', [2, 4]);
    const invN = g.input('inv_n', 'float32', []);
    const logProb = dist.logProb(g, { head }, oneHot);
    const entropy = dist.meanEntropy(g, { head }, invN);
    const loss = g.add(g.reduceSum(logProb), entropy);
    const step = await GradientSession.create(g, { loss, weights: store, extras: { logProb, entropy } });
    try {
      const out = await step.run({
        mask: { data: Float32Array.from(mask), dims: [2, 4] },
        action: { data: Float32Array.from([0, 0, 1, 0, 0, 1, 0, 0]), dims: [2, 4] },
        inv_n: Float32Array.of(0.5),
      });
      const want = byHand();
      const lp = out.extras.logProb!;
      for (let r = 0; r < 2; r++) assert.ok(Math.abs(lp[r]! - want.logProbs[r]!) < 1e-5, `row ${r}: log pi ${lp[r]} vs ${want.logProbs[r]}`);
      assert.equal(want.logProbs[1], 0); // the only legal action is certain
      assert.ok(Math.abs(out.extras.entropy![0]! - want.entropy) < 1e-5, `entropy ${out.extras.entropy![0]} vs ${want.entropy}`);
      const grad = out.grads[0]!;
      for (let k = 0; k < 8; k++) assert.ok(Math.abs(grad[k]! - want.grads[k]!) < 1e-5, `d/d logit ${k}: ${grad[k]} vs ${want.grads[k]}`);
    } finally {
      await step.release();
    }
  });

  it('samples only legal actions, and returns their log-probability under the masked softmax', () => {
    const dist = new Categorical(4);
    const head = Float32Array.from(logits);
    maskValues(head, 2, 4, Uint8Array.from(mask));
    const rng = new Rng(3);
    const env = new Int32Array(1);
    const encoded = new Float32Array(4);
    const seen = new Set<number>();
    const want = byHand();
    for (let t = 0; t < 2000; t++) {
      const logProb = dist.sample(head, 0, rng, env, 0, encoded, 0);
      assert.equal(mask[env[0]!], 1, `illegal action ${env[0]}`);
      seen.add(env[0]!);
      if (env[0] === 2) assert.ok(Math.abs(logProb - want.logProbs[0]!) < 1e-5);
    }
    assert.deepEqual([...seen].sort(), [0, 2, 3]);
    dist.mode(head, 4, env, 0);
    assert.equal(env[0], 1); // row 1's largest logit (3, action 0) is illegal
  });
});

describe('the action_mask setting', () => {
  it('on: an env without masks is an error naming the setting; a continuous one too', async () => {
    for (const kind of ['CartPole', 'Pendulum']) {
      const vec = makeVecEnv(kind, {}, 1);
      assert.throws(() => learnerMasks('on', vec, 'PPO'), /PPO: action_mask is on, but the env .* cannot be masked: .*set action_mask: auto or off/);
      assert.equal(learnerMasks('auto', vec, 'PPO'), null);
    }
    assert.equal(learnerMasks('off', makeVecEnv('FreeSlots', {}, 1), 'PPO'), null);
  });
});
