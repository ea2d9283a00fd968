// PPO's pieces against values computed by hand (GAE, truncation bootstrap) and against
// CleanRL's loss written literally (max of the two surrogates, clamp), in float64 JS and as a
// second graph whose gradients must equal those of the masked loss graph the trainer runs.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { buildPpoLoss, computeGae, LOSS_METRICS, Ppo, ppoGradientStep, ppoLossAsWritten, ppoSettings, type PpoSettings } from '../../../runtime/algorithms/index.js';
import { Stepper } from '../../../runtime/algorithms/stepper.js';
import { makeVecEnv } from '../../../runtime/envs/registry.js';
import { flatPolicySpaces, makeActorCritic, PolicyFactory, type ActorCriticPolicy as Policy } from '../../../runtime/policies/index.js';
import { OnnxPolicy } from '../../../runtime/policies/onnx-policy.js';
import { Rng } from '../../../shared/random.js';
import { GradientSession, Graph, type GradientStep } from '../../../runtime/tensor/index.js';
import { tempDir } from '../helpers.js';

const close = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)), `${what}: got ${actual}, expected ${expected}`);

describe('computeGae', () => {
  it('matches a hand computation on a tiny trajectory, restarting at an episode end', () => {
    // Two env copies, three steps, laid out [step][env]. Copy 0's episode is truncated at t=1:
    // its reward already holds the bootstrap, 1 + gamma * V(final_obs) = 1 + 0.9 * 2 = 2.8.
    const gamma = 0.9;
    const lambda = 0.8;
    const rewards = [1, 0, 2.8, 0, 1, 1];
    const values = [0.5, 0.1, 0.6, 0.2, 0.7, 0.3];
    const ended = [0, 0, 1, 1, 0, 0];
    const nextValues = [0.8, 0.4];
    const advantages = new Float32Array(6);
    const returns = new Float32Array(6);
    computeGae(rewards, values, ended, nextValues, 3, 2, gamma, lambda, advantages, returns);
    // Copy 0: delta2 = 1 + 0.9*0.8 - 0.7 = 1.02; delta1 = 2.8 - 0.6 = 2.2 (no bootstrap past the end);
    // delta0 = 1 + 0.9*0.6 - 0.5 = 1.04, A0 = 1.04 + 0.9*0.8*2.2 = 2.624.
    // Copy 1: ends (terminated) at t=1: delta2 = 1 + 0.9*0.4 - 0.3 = 1.06; delta1 = 0 - 0.2 = -0.2;
    // delta0 = 0 + 0.9*0.2 - 0.1 = 0.08, A0 = 0.08 + 0.72*(-0.2) = -0.064.
    const expected = [2.624, -0.064, 2.2, -0.2, 1.02, 1.06];
    expected.forEach((a, b) => close(advantages[b], a, 1e-6, `advantage ${b}`));
    expected.forEach((a, b) => close(returns[b], a + values[b], 1e-6, `return ${b}`));
  });

  it('is plain discounted returns minus values with lambda = 1 and no ends', () => {
    const advantages = new Float32Array(3);
    const returns = new Float32Array(3);
    computeGae([1, 2, 3], [0, 0, 0], [0, 0, 0], [10], 3, 1, 0.5, 1, advantages, returns);
    assert.deepEqual(Array.from(returns), [1 + 0.5 * 2 + 0.25 * 3 + 0.125 * 10, 2 + 0.5 * 3 + 0.25 * 10, 3 + 0.5 * 10]);
  });
});

/** The trainer's gradient step for PPO's loss (the masked form), on one thread unless asked. */
function gradientStep(policy: Policy, settings: PpoSettings, maxRows: number, threads = false): Promise<GradientStep> {
  return ppoGradientStep(buildPpoLoss(policy, settings), policy, { compute: { providers: ['cpu'], threads }, maxRows });
}

/** A gradient step's metric by name. */
const metricOf = (step: GradientStep, metrics: Float64Array, name: string) => metrics[step.metricNames.indexOf(name)];

/** The action distribution of a policy's head: discrete actions, a box, or 3 bits (MultiBinary). */
type Head = 'categorical' | 'Gaussian' | 'Bernoulli';
const HEADS: readonly Head[] = ['categorical', 'Gaussian', 'Bernoulli'];

function tinyPolicy(seed: number, head: Head = 'categorical'): Policy {
  const actionSpace =
    head === 'Gaussian' ? ({ kind: 'box', shape: [1], low: [-2], high: [2] } as const) : head === 'Bernoulli' ? ({ kind: 'multibinary', n: 3 } as const) : ({ kind: 'discrete', n: 3 } as const);
  return makeActorCritic({ kind: 'mlp', name: 'p', params: { hidden: [5, 4] } }, flatPolicySpaces(3, actionSpace), new Rng(seed));
}

/** A minibatch whose old log-probs are offset so that many ratios fall outside [1 - c, 1 + c]. */
function minibatch(policy: Policy, rows: number, rng: Rng) {
  const width = policy.distribution.encodedWidth;
  const obs = Float32Array.from({ length: rows * 3 }, () => rng.uniformRange(-2, 2));
  const action = new Float32Array(rows * width);
  for (let r = 0; r < rows; r++) {
    if (policy.distribution.kind === 'discrete') action[r * width + rng.int(width)] = 1;
    else if (policy.distribution.kind === 'multibinary') for (let k = 0; k < width; k++) action[r * width + k] = rng.int(2);
    else action[r] = rng.uniformRange(-1.5, 1.5);
  }
  return {
    obs,
    action,
    offsets: Float32Array.from({ length: rows }, () => rng.uniformRange(-0.5, 0.5)),
    advantages: Float32Array.from({ length: rows }, () => rng.uniformRange(-2, 2)),
    returns: Float32Array.from({ length: rows }, () => rng.uniformRange(-1, 1)),
    valueOffsets: Float32Array.from({ length: rows }, () => rng.uniformRange(-0.6, 0.6)),
  };
}

describe('the PPO loss', () => {
  for (const head of HEADS) {
    it(`equals CleanRL's formula computed by hand in float64 (${head})`, async () => {
      const policy = tinyPolicy(3, head);
      const settings = ppoSettings({ clip_value: true, value_coef: 0.5 });
      const session = await gradientStep(policy, settings, 64);
      const rows = 16;
      const mb = minibatch(policy, rows, new Rng(7));
      // The current log-probs and values, from the exported policy, in float64 from here on.
      const onnx = await OnnxPolicy.load(writeTemp(policy), flatPolicySpaces(3, policy.spaces.actionSpace));
      const out = await onnx.run(mb.obs, rows);
      const value = out.value.data as Float32Array;
      const logProb = new Float64Array(rows);
      const entropy = new Float64Array(rows);
      for (let r = 0; r < rows; r++) {
        if (head === 'Bernoulli') {
          // Independent bits: log p(a) = sum of a l - softplus(l); H = sum of softplus(l) - l sigmoid(l).
          const logits = Array.from((out.logits.data as Float32Array).subarray(r * 3, r * 3 + 3));
          const softplus = (l: number) => Math.log1p(Math.exp(l));
          logProb[r] = logits.reduce((sum, l, k) => sum + mb.action[r * 3 + k] * l - softplus(l), 0);
          entropy[r] = logits.reduce((sum, l) => sum + softplus(l) - l / (1 + Math.exp(-l)), 0);
        } else if (head === 'categorical') {
          const logits = Array.from((out.logits.data as Float32Array).subarray(r * 3, r * 3 + 3));
          const max = Math.max(...logits);
          const lse = max + Math.log(logits.reduce((s, l) => s + Math.exp(l - max), 0));
          const a = Array.from(mb.action.subarray(r * 3, r * 3 + 3)).indexOf(1);
          logProb[r] = logits[a] - lse;
          entropy[r] = -logits.reduce((s, l) => s + Math.exp(l - lse) * (l - lse), 0);
        } else {
          const mean = (out.mean.data as Float32Array)[r];
          const logStd = (out.log_std.data as Float32Array)[r];
          const z = (mb.action[r] - mean) / Math.exp(logStd);
          logProb[r] = -0.5 * z * z - logStd - 0.5 * Math.log(2 * Math.PI);
          entropy[r] = logStd + 0.5 * (1 + Math.log(2 * Math.PI));
        }
      }
      const oldLogProb = Float32Array.from(logProb, (lp, r) => lp + mb.offsets[r]);
      const oldValues = Float32Array.from(value, (v, r) => v + mb.valueOffsets[r]);
      const c = 0.2;
      let pg = 0;
      let v = 0;
      let ent = 0;
      let clipped = 0;
      for (let r = 0; r < rows; r++) {
        const ratio = Math.exp(logProb[r] - oldLogProb[r]);
        const a = mb.advantages[r];
        pg += Math.max(-a * ratio, -a * Math.min(Math.max(ratio, 1 - c), 1 + c)) / rows;
        const vClipped = oldValues[r] + Math.min(Math.max(value[r] - oldValues[r], -c), c);
        v += (0.5 * Math.max((value[r] - mb.returns[r]) ** 2, (vClipped - mb.returns[r]) ** 2)) / rows;
        ent += entropy[r] / rows;
        if (Math.abs(ratio - 1) > c) clipped++;
      }
      assert.ok(clipped > 2 && clipped < rows - 2, `the minibatch exercises both sides of the clip (${clipped} of ${rows} clipped)`);
      const result = await session.run({
        obs: { data: mb.obs, dims: [rows, 3] },
        action: { data: mb.action, dims: [rows, policy.distribution.encodedWidth] },
        old_logprob: oldLogProb,
        advantages: mb.advantages,
        returns: mb.returns,
        old_values: oldValues,
        clip_coef: new Float32Array([c]),
        ent_coef: new Float32Array([0.01]),
        inv_n: new Float32Array([1 / rows]),
      });
      const metric = (name: (typeof LOSS_METRICS)[number]) => metricOf(session, result.metrics, name);
      close(metric('policy_loss'), pg, 1e-5, 'policy loss');
      close(metric('value_loss'), v, 1e-5, 'value loss');
      close(metric('entropy'), ent, 1e-5, 'entropy');
      close(metric('clipfrac'), clipped / rows, 1e-6, 'clip fraction');
      close(result.loss, pg - 0.01 * ent + 0.5 * v, 1e-5, 'loss');
      await onnx.release();
      await session.release();
    });
  }

  for (const clipValue of [true, false]) {
    it(`has the loss, metrics and gradients of the loss as the paper writes it (clip_value ${clipValue})`, async () => {
      const policy = tinyPolicy(5);
      const settings = ppoSettings({ clip_value: clipValue });
      const masked = await gradientStep(policy, settings, 64);
      // The reference: min of the surrogates and clip of the ratio and of the value, as written.
      const written = ppoLossAsWritten(policy, settings);
      const literal = await GradientSession.create(written.graph, { loss: written.loss, weights: policy.weights });
      const rows = 32;
      const mb = minibatch(policy, rows, new Rng(11));
      const feeds = { ...lossFeeds(policy, mb, rows), old_logprob: mb.offsets.map((o) => Math.log(1 / 3) + o) };
      const a = await masked.run(feeds);
      const b = await literal.run(feeds);
      close(a.loss, b.loss, 1e-5, 'loss');
      assert.equal(a.grads.length, policy.weights.names.length, 'a gradient for every weight');
      let nonZero = 0;
      policy.weights.names.forEach((name, k) => {
        const expected = b.grads[k];
        assert.equal(a.grads[k].length, expected.length, name);
        for (let i = 0; i < expected.length; i++) close(a.grads[k][i], expected[i], 1e-4, `d loss / d ${name}[${i}]`);
        nonZero += expected.filter((v) => v !== 0).length;
      });
      assert.ok(nonZero > 100, 'the gradients compared are not all zero');
      await masked.release();
      await literal.release();
    });
  }
});

/** The loss graph's feeds for a minibatch (old log-probs and values are the minibatch's offsets). */
function lossFeeds(policy: Policy, mb: ReturnType<typeof minibatch>, rows: number) {
  return {
    obs: { data: mb.obs, dims: [rows, policy.spaces.obsDim] },
    action: { data: mb.action, dims: [rows, policy.distribution.encodedWidth] },
    old_logprob: mb.offsets,
    advantages: mb.advantages,
    returns: mb.returns,
    old_values: mb.valueOffsets,
    clip_coef: new Float32Array([0.2]),
    ent_coef: new Float32Array([0.01]),
    inv_n: new Float32Array([1 / rows]),
  };
}

describe('the PPO gradient step', () => {
  for (const head of HEADS) {
    it(`computes the actor and critic parts on two threads with the numbers of one thread (${head})`, async () => {
      const policy = tinyPolicy(9, head);
      const settings = ppoSettings({});
      const threaded = await gradientStep(policy, settings, 32, true);
      const serial = await gradientStep(policy, settings, 32);
      try {
        assert.equal(threaded.threaded, true);
        const rows = 32;
        const mb = minibatch(policy, rows, new Rng(13));
        const feeds = lossFeeds(policy, mb, rows);
        const a = await threaded.run(feeds);
        const aGrads = a.grads.map((g) => [...g]);
        const aMetrics = [...a.metrics];
        const b = await serial.run(feeds);
        assert.equal(a.loss, b.loss);
        assert.deepEqual(aMetrics, [...b.metrics]);
        policy.weights.names.forEach((name, k) => assert.deepEqual(aGrads[k], [...b.grads[k]], name));
      } finally {
        await threaded.release();
        await serial.release();
      }
    });
  }

  it('leaves the entropy gradient out when entropy_coef is 0 throughout, with the same numbers', async () => {
    // The bonus is built (and fed ent_coef = 0) under one setting, left out under the other.
    const policy = tinyPolicy(4);
    const built = await gradientStep(policy, ppoSettings({ entropy_coef: 0.01 }), 16);
    const left = await gradientStep(policy, ppoSettings({ entropy_coef: 0 }), 16);
    try {
      const rows = 16;
      const feeds = { ...lossFeeds(policy, minibatch(policy, rows, new Rng(3)), rows), ent_coef: new Float32Array([0]) };
      const a = await built.run(feeds);
      const aGrads = a.grads.map((g) => [...g]);
      const aMetrics = [...a.metrics];
      const b = await left.run(feeds);
      policy.weights.names.forEach((name, k) => assert.deepEqual([...b.grads[k]], aGrads[k], name));
      assert.deepEqual([...b.metrics], aMetrics, 'the entropy is still reported');
      assert.ok(metricOf(left, b.metrics, 'entropy') > 0);
    } finally {
      await built.release();
      await left.release();
    }
  });

  it('computes the whole loss as one part when the actor and critic share a trunk', async () => {
    const policy = makeActorCritic({ kind: 'mlp', name: 'p', params: { hidden: [5, 4], shared_trunk: true } }, flatPolicySpaces(3, { kind: 'discrete', n: 3 }), new Rng(2));
    assert.equal(policy.separateNetworks(), null);
    const gradients = await gradientStep(policy, ppoSettings({}), 8);
    try {
      assert.equal(gradients.threaded, false);
      const rows = 8;
      const mb = minibatch(policy, rows, new Rng(5));
      const out = await gradients.run(lossFeeds(policy, mb, rows));
      assert.equal(out.grads.length, policy.weights.names.length);
      // The trunk's gradient gets contributions from both terms: it is not zero.
      const trunk = out.grads[policy.weights.names.indexOf('trunk.0.weight')];
      assert.ok(trunk.some((v) => v !== 0));
      for (const name of LOSS_METRICS) assert.ok(Number.isFinite(metricOf(gradients, out.metrics, name)), name);
    } finally {
      await gradients.release();
    }
  });
});

describe('Ppo', () => {
  it('bootstraps truncated episodes from the value of their final observation', async () => {
    // CartPole cut at 3 steps: every copy is truncated at t = 2 and t = 5 (it cannot fall that fast).
    const vec = makeVecEnv('CartPole', { max_steps: 3 }, 2);
    const stepper = new Stepper(vec, null);
    stepper.reset(4);
    const policy = makeActorCritic({ kind: 'mlp', name: 'p', params: {} }, flatPolicySpaces(4, vec.actionSpace as { kind: 'discrete'; n: number }), new Rng(1));
    const before = await OnnxPolicy.load(writeTemp(policy), flatPolicySpaces(4, policy.spaces.actionSpace));
    const ppo = await Ppo.create(context(policy, stepper, 12, new Rng(2)), ppoSettings({ rollout_steps: 6, gamma: 0.9 }));
    await ppo.iterate();
    const inside = ppo as unknown as { rewards: Float32Array; ended: Uint8Array; bootIndex: Int32Array; valueObs: Float32Array; batchSize: number };
    assert.deepEqual(Array.from(inside.ended), [0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1]);
    const boot = Array.from(inside.bootIndex.subarray(0, 4));
    assert.deepEqual(boot, [4, 5, 10, 11]);
    const finals = inside.valueObs.slice((inside.batchSize + 2) * 4, (inside.batchSize + 2 + 4) * 4);
    const values = (await before.run(finals, 4)).value.data as Float32Array;
    boot.forEach((b, k) => close(inside.rewards[b], 1 + 0.9 * values[k], 1e-5, `reward at ${b}`));
    for (const b of [0, 1, 2, 3, 6, 7, 8, 9]) assert.equal(inside.rewards[b], 1);
    await before.release();
    await ppo.release();
  });

  it('stops the epochs of an update once approx KL exceeds target_kl', async () => {
    const steps = async (targetKl: number | 'none') => {
      const vec = makeVecEnv('CartPole', {}, 4);
      const stepper = new Stepper(vec, null);
      stepper.reset(1);
      const p = makeActorCritic({ kind: 'mlp', name: 'p', params: {} }, flatPolicySpaces(4, { kind: 'discrete', n: 2 }), new Rng(1));
      const ppo = await Ppo.create(context(p, stepper, 512, new Rng(1)), ppoSettings({ target_kl: targetKl }));
      const metrics = await ppo.iterate();
      await ppo.release();
      return metrics['losses/gradient_steps'];
    };
    assert.equal(await steps('none'), 16);
    assert.equal(await steps(1e-12), 4, 'the first epoch runs whole, then the check stops the rest');
  });

  it('rejects unknown or ill-typed params, naming them', () => {
    assert.throws(() => ppoSettings({ learning_rte: 1 }), /PPO: unknown param "learning_rte" \(did you mean "learning_rate"\?\); valid params: learning_rate/);
    assert.throws(() => ppoSettings({ epochs: 0 }), /PPO: param "epochs" must be a whole number >= 1 and <= 1000, got 0/);
    assert.throws(() => ppoSettings({ gae_lambda: 1.5 }), /PPO: param "gae_lambda" must be a number >= 0 and <= 1, got 1.5/);
    assert.throws(() => ppoSettings({ learning_rate: 0 }), /PPO: param "learning_rate" must be a number > 0 and <= 10, got 0/);
    assert.throws(() => ppoSettings({ clip: { schedule: 'linear', from: 1 } }), /PPO: param "clip": expected a number or a schedule/);
    assert.equal(ppoSettings({ target_kl: 'none' }).target_kl, null);
    assert.equal(ppoSettings({ target_kl: 0.02 }).target_kl, 0.02);
  });
});

/** An algorithm context whose policy factory hands out `policy` (already built, to inspect it). */
function context(policy: Policy, stepper: Stepper, budget: number, rng: Rng) {
  const factory = new PolicyFactory({ kind: 'mlp', name: 'p', params: {} }, policy.spaces, new Rng(0));
  factory.networks = <N>() => policy as unknown as N;
  return { policy: factory, stepper, budget, rng, compute: { providers: ['cpu'] as const } };
}

/** The policy's ONNX export in a temporary file. */
function writeTemp(policy: Policy): string {
  const file = path.join(tempDir(), 'policy.onnx');
  fs.writeFileSync(file, policy.exportOnnx({}));
  return file;
}
