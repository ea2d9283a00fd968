// REINFORCE's pieces against hand computations: Monte-Carlo returns, the three baselines
// (leave-one-out exactly the mean of the others), the loss and its gradient on a tiny batch
// of episodes, how episodes are grouped into updates, and exact resumption.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { advantagesOf, discountedReturn } from '../../../runtime/algorithms/reinforce/advantages.js';
import { buildReinforceLoss, reinforceGradientStep } from '../../../runtime/algorithms/reinforce/loss.js';
import { Reinforce } from '../../../runtime/algorithms/reinforce/reinforce.js';
import { reinforceSettings, type Baseline } from '../../../runtime/algorithms/reinforce/settings.js';
import { Stepper } from '../../../runtime/algorithms/stepper.js';
import { makeVecEnv } from '../../../runtime/envs/registry.js';
import { flatPolicySpaces, makeActorCritic, PolicyFactory, type ActorCriticPolicy } from '../../../runtime/policies/index.js';
import { Rng } from '../../../shared/random.js';

const close = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)), `${what}: got ${actual}, expected ${expected}`);

describe('returns and baselines', () => {
  it('discounts an episode\'s rewards from its first step, with no bootstrap', () => {
    assert.equal(discountedReturn([1, 2, 4], 3, 0.5), 1 + 0.5 * 2 + 0.25 * 4);
    assert.equal(discountedReturn([1, 2, 4, 100], 3, 1), 7, 'only the first `length` rewards count');
  });

  // Three episodes with returns 3, -1 and 5 (mean 7/3).
  const returns = [3, -1, 5];
  const expected: Record<Baseline, number[]> = {
    none: [3, -1, 5],
    mean: [3 - 7 / 3, -1 - 7 / 3, 5 - 7 / 3],
    // Each minus the mean of the other two: (-1 + 5) / 2, (3 + 5) / 2, (3 - 1) / 2.
    leave_one_out: [3 - 2, -1 - 4, 5 - 1],
  };
  for (const baseline of ['none', 'mean', 'leave_one_out'] as const) {
    it(`${baseline}: advantages by hand`, () => {
      const out = advantagesOf(returns, 3, baseline, new Float64Array(3));
      expected[baseline].forEach((a, i) => close(out[i], a, 1e-15, `advantage ${i}`));
    });
  }

  it('leave_one_out: each baseline is the mean of the other returns, whatever the sample\'s own', () => {
    const rng = new Rng(5);
    const n = 9;
    const g = Float64Array.from({ length: n }, () => rng.uniformRange(-50, 500));
    const out = advantagesOf(g, n, 'leave_one_out', new Float64Array(n));
    for (let i = 0; i < n; i++) {
      let others = 0;
      for (let j = 0; j < n; j++) if (j !== i) others += g[j];
      close(g[i] - out[i], others / (n - 1), 1e-12, `baseline ${i}`);
      // Changing sample i's own return leaves its baseline as it is.
      const changed = Float64Array.from(g, (x, j) => (j === i ? x + 1000 : x));
      close(changed[i] - advantagesOf(changed, n, 'leave_one_out', new Float64Array(n))[i], others / (n - 1), 1e-12, `baseline ${i} after a change of its own return`);
    }
  });

  it('refuses a leave-one-out group of one sample', () => {
    assert.throws(() => advantagesOf([1], 1, 'leave_one_out', new Float64Array(1)), /leave-one-out baseline needs at least 2 samples/);
  });
});

function tinyPolicy(continuous: boolean, sharedTrunk = false): ActorCriticPolicy {
  const actionSpace = continuous ? ({ kind: 'box', shape: [2], low: [-2, -2], high: [2, 2] } as const) : ({ kind: 'discrete', n: 3 } as const);
  const policy = makeActorCritic({ kind: 'mlp', name: 'p', params: { hidden: [5, 4], shared_trunk: sharedTrunk } }, flatPolicySpaces(3, actionSpace), new Rng(3));
  // The initial head (gain 0.01) makes every action almost equally likely; spread it so that
  // the loss depends on which action each row took.
  const rng = new Rng(9);
  const head = policy.weights.get('actor.out.weight').data;
  for (let k = 0; k < head.length; k++) head[k] = rng.uniformRange(-1.5, 1.5);
  if (continuous) policy.weights.get('actor.log_std').data.set([-0.3, 0.4]);
  policy.sync();
  return policy;
}

describe('the REINFORCE loss', () => {
  for (const continuous of [false, true]) {
    for (const baseline of ['none', 'mean', 'leave_one_out'] as const) {
      it(`equals -(1/N) sum_i A_i sum_t log pi(a_it|s_it) - c H, by hand in float64, and its gradient (${continuous ? 'Gaussian' : 'categorical'}, ${baseline})`, async () => {
        const policy = tinyPolicy(continuous);
        const dist = policy.distribution;
        const width = dist.encodedWidth;
        const lengths = [2, 1, 3];
        const rows = 6;
        const rng = new Rng(11);
        const obs = Float32Array.from({ length: rows * 3 }, () => rng.uniformRange(-2, 2));
        const action = new Float32Array(rows * width);
        for (let r = 0; r < rows; r++) {
          if (continuous) for (let k = 0; k < width; k++) action[r * width + k] = rng.uniformRange(-1.5, 1.5);
          else action[r * width + ((r * 2) % 3)] = 1;
        }
        const advantages = advantagesOf([3, -1, 5], 3, baseline, new Float64Array(3));
        const rowAdvantage = Float32Array.from(lengths.flatMap((len, i) => Array<number>(len).fill(advantages[i])));
        const entCoef = 0.05;

        // By hand: log pi and entropy per row from the actor's head, in float64.
        const head = new Float32Array(rows * dist.headWidth);
        policy.actorForward(obs, rows, head);
        const logStd = continuous ? Array.from(policy.weights.get('actor.log_std').data) : [];
        let pg = 0;
        let entropy = 0;
        // d policy_loss / d (actor.out.bias or actor.log_std), closed form.
        const grad = new Float64Array(continuous ? width : 3);
        for (let r = 0; r < rows; r++) {
          const a = rowAdvantage[r];
          if (continuous) {
            for (let k = 0; k < width; k++) {
              const z = (action[r * width + k] - head[r * width + k]) / Math.exp(logStd[k]);
              pg -= (a * (-0.5 * z * z - logStd[k] - 0.5 * Math.log(2 * Math.PI))) / 3;
              grad[k] -= (a * (z * z - 1)) / 3;
            }
            entropy += logStd.reduce((s, l) => s + l + 0.5 * (1 + Math.log(2 * Math.PI)), 0) / rows;
          } else {
            const logits = Array.from(head.subarray(r * 3, r * 3 + 3));
            const max = Math.max(...logits);
            const lse = max + Math.log(logits.reduce((s, l) => s + Math.exp(l - max), 0));
            const taken = Array.from(action.subarray(r * 3, r * 3 + 3)).indexOf(1);
            pg -= (a * (logits[taken] - lse)) / 3;
            for (let k = 0; k < 3; k++) grad[k] -= (a * ((k === taken ? 1 : 0) - Math.exp(logits[k] - lse))) / 3;
            entropy -= logits.reduce((s, l) => s + Math.exp(l - lse) * (l - lse), 0) / rows;
          }
        }

        const run = async (entropyCoef: number) => {
          const step = await reinforceGradientStep(buildReinforceLoss(policy, { entropy_coef: entropyCoef }), policy, { compute: { providers: ['cpu'] } });
          try {
            const out = await step.run({
              obs: { data: obs, dims: [rows, 3] },
              action: { data: action, dims: [rows, width] },
              advantages: rowAdvantage,
              inv_samples: new Float32Array([1 / 3]),
              inv_rows: new Float32Array([1 / rows]),
              ent_coef: new Float32Array([entropyCoef]),
            });
            const metric = (name: string) => out.metrics[step.metricNames.indexOf(name)];
            const grads = Object.fromEntries(policy.weights.names.map((name, k) => [name, Array.from(out.grads[k])]));
            return { loss: out.loss, policyLoss: metric('policy_loss'), entropy: metric('entropy'), grads };
          } finally {
            await step.release();
          }
        };
        const plain = await run(0);
        close(plain.policyLoss, pg, 1e-5, 'policy loss');
        close(plain.loss, pg, 1e-5, 'loss without an entropy bonus');
        close(plain.entropy, entropy, 1e-5, 'entropy');
        const checked = continuous ? 'actor.log_std' : 'actor.out.bias';
        grad.forEach((gk, k) => close(plain.grads[checked][k], gk, 1e-4, `d loss / d ${checked}[${k}]`));
        // The critic is not REINFORCE's: exactly zero gradients, so Adam leaves it as it is.
        for (const [name, g] of Object.entries(plain.grads)) if (name.startsWith('critic.')) assert.ok(g.every((x) => x === 0), `${name} has zero gradients`);
        const withBonus = await run(entCoef);
        close(withBonus.loss, pg - entCoef * entropy, 1e-5, 'loss with an entropy bonus');
      });
    }
  }

  it('trains the shared trunk of an actor-critic, and leaves its critic head at zero gradient', async () => {
    const policy = tinyPolicy(false, true);
    const step = await reinforceGradientStep(buildReinforceLoss(policy, { entropy_coef: 0 }), policy, { compute: { providers: ['cpu'] } });
    const out = await step.run({
      obs: { data: Float32Array.from([0.5, -1, 2, 1, 0, -0.5]), dims: [2, 3] },
      action: { data: Float32Array.from([1, 0, 0, 0, 0, 1]), dims: [2, 3] },
      advantages: Float32Array.from([1, -2]),
      inv_samples: new Float32Array([0.5]),
      inv_rows: new Float32Array([0.5]),
      ent_coef: new Float32Array([0]),
    });
    const grads = Object.fromEntries(policy.weights.names.map((name, k) => [name, Array.from(out.grads[k])]));
    assert.ok(grads['trunk.0.weight'].some((x) => x !== 0), 'the trunk learns');
    assert.ok(grads['critic.out.weight'].every((x) => x === 0) && grads['critic.out.bias'].every((x) => x === 0), 'the critic head does not');
    await step.release();
  });
});

/** An algorithm context on `envs` copies of `env`, the policy drawn from `seed`. */
function context(env: string, envParams: Record<string, unknown>, envs: number, budget: number, seed: number) {
  const vec = makeVecEnv(env, envParams, envs);
  const stepper = new Stepper(vec, null);
  stepper.reset(seed);
  const spaces = flatPolicySpaces(vec.obsDim, vec.actionSpace as { kind: 'discrete'; n: number });
  const rng = new Rng(seed);
  return { policy: new PolicyFactory({ kind: 'mlp', name: 'p', params: {} }, spaces, rng.fork('policy')), stepper, budget, rng: rng.fork('REINFORCE'), compute: { providers: ['cpu'] as const } };
}

describe('Reinforce', () => {
  it('learns from groups of whole episodes in the order they end, holding over the rest', async () => {
    // CartPole cut at 3 steps (it cannot fall that fast), two copies: every 3 steps two episodes
    // of return 1 + 0.9 + 0.81 end together.
    const algorithm = await Reinforce.create(context('CartPole', { max_steps: 3 }, 2, 14, 1), reinforceSettings({ episodes_per_update: 3, gamma: 0.9 }));
    try {
      const first = await algorithm.iterate();
      assert.equal(algorithm.globalStep, 12, 'two rounds of episodes end before a group of 3 is complete');
      assert.equal(first['charts/group_episodes'], 3);
      assert.equal(first['charts/group_steps'], 9);
      close(first['charts/group_return'], 2.71, 1e-12, 'the group\'s mean return');
      assert.equal(first['losses/gradient_steps'], 1);
      assert.ok(Number.isFinite(first['losses/policy_loss']) && first['losses/grad_norm'] > 0);
      // The fourth episode waits for the next group, which the budget (14 steps) cuts at one step:
      // a group of one makes no update.
      const second = await algorithm.iterate();
      assert.equal(algorithm.globalStep, 14);
      assert.ok(algorithm.done);
      assert.equal(second['charts/group_episodes'], 1);
      assert.equal(second['losses/gradient_steps'], undefined);
    } finally {
      await algorithm.release();
    }
  });

  it('resumes exactly from its state, forgetting the episodes under way', async () => {
    const settings = reinforceSettings({ episodes_per_update: 4, baseline: 'leave_one_out', entropy_coef: 0.01 });
    const a = await Reinforce.create(context('CartPole', {}, 3, 100_000, 1), settings);
    const b = await Reinforce.create(context('CartPole', {}, 3, 100_000, 2), settings);
    try {
      for (let k = 0; k < 3; k++) await a.iterate();
      // What the trainer does on --resume: a fresh algorithm loads the state, every episode restarts.
      b.loadState(a.state());
      a.loadState(a.state());
      a.stepper.reset(7);
      b.stepper.reset(7);
      for (let k = 0; k < 3; k++) assert.deepEqual(await b.iterate(), await a.iterate(), `update ${k} after resuming`);
      assert.deepEqual(b.policy.weights.snapshot(), a.policy.weights.snapshot());
    } finally {
      await a.release();
      await b.release();
    }
  });

  it('rejects unknown or ill-typed params, naming them', () => {
    assert.throws(() => reinforceSettings({ baselin: 'mean' }), /REINFORCE: unknown param "baselin" \(did you mean "baseline"\?\)/);
    assert.throws(() => reinforceSettings({ baseline: 'loo' }), /REINFORCE: param "baseline" must be one of none, mean, leave_one_out, got/);
    assert.throws(() => reinforceSettings({ episodes_per_update: 1 }), /REINFORCE: param "episodes_per_update" must be a whole number >= 2/);
  });
});
