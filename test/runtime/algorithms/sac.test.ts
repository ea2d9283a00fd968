// SAC's pieces against hand computations in float64: the squashed Gaussian's action and
// log-probability, the critics' soft target (continuous and discrete) with the gradient it
// gives and the weights it leaves alone, the actor's loss; the exported actor acting as the
// trainer does; a short Pendulum run that improves clearly; a short discrete run on CartPole
// that resumes exactly from its state.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { buildActorLoss, buildCriticLoss, sacGradientStep } from '../../../runtime/algorithms/sac/loss.js';
import { Sac } from '../../../runtime/algorithms/sac/sac.js';
import { sacSettings } from '../../../runtime/algorithms/sac/settings.js';
import { Stepper } from '../../../runtime/algorithms/stepper.js';
import type { BoxSpace, DiscreteSpace } from '../../../runtime/envs/types.js';
import { makeVecEnv } from '../../../runtime/envs/registry.js';
import { SacActor, SacCritics } from '../../../runtime/algorithms/sac/networks.js';
import { flatPolicySpaces, PolicyFactory, type PolicySpaces } from '../../../runtime/policies/index.js';
import { OnnxPolicy } from '../../../runtime/policies/onnx-policy.js';
import { Rng } from '../../../shared/random.js';
import { Graph, Session, WeightStore } from '../../../runtime/tensor/index.js';
import { tempDir } from '../helpers.js';

const close = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance * Math.max(1, Math.abs(expected)), `${what}: got ${actual}, expected ${expected}`);

const MLP = { hidden: [5, 4], activation: 'relu', sharedTrunk: false } as const;
const BOX: BoxSpace = { kind: 'box', shape: [2], low: [-2, -1], high: [2, 3] };
const DISCRETE: DiscreteSpace = { kind: 'discrete', n: 3 };
const spacesOf = (actionSpace: BoxSpace | DiscreteSpace): PolicySpaces => flatPolicySpaces(3, actionSpace);

/** The relu MLP `${prefix}.0 .. .out` of `store` on one row, in float64. */
function mlp(store: WeightStore, prefix: string, x: readonly number[]): number[] {
  let h = [...x];
  const layers = store.names.filter((n) => n.startsWith(`${prefix}.`) && n.endsWith('.weight')).map((n) => n.slice(0, -'.weight'.length));
  layers.forEach((layer, l) => {
    const w = store.get(`${layer}.weight`);
    const b = store.get(`${layer}.bias`).data;
    const outDim = w.shape[1];
    const y = Array.from({ length: outDim }, (_, j) => b[j] + h.reduce((s, v, k) => s + v * w.data[k * outDim + j], 0));
    h = l === layers.length - 1 ? y : y.map((v) => Math.max(v, 0));
  });
  return h;
}

/** The actor's Gaussian before the squash, by hand. */
function gaussian(actor: SacActor, obs: readonly number[]): { mean: number[]; logStd: number[] } {
  const head = mlp(actor.weights, 'actor', obs);
  const a = actor.actionDim;
  return { mean: head.slice(0, a), logStd: head.slice(a).map((r) => -5 + 0.5 * 7 * (Math.tanh(r) + 1)) };
}

/** CleanRL's get_action by hand: the rescaled squashed sample for noise `eps`, and its log-probability. */
function squashedSample(actor: SacActor, obs: readonly number[], eps: readonly number[]): { action: number[]; logProb: number } {
  const { mean, logStd } = gaussian(actor, obs);
  let logProb = 0;
  const action = mean.map((m, k) => {
    const std = Math.exp(logStd[k]);
    const x = m + std * eps[k];
    const scale = (BOX.high[k] - BOX.low[k]) / 2;
    // The Normal density at x, then the tanh-and-scale correction.
    logProb += -((x - m) ** 2) / (2 * std * std) - Math.log(std) - 0.5 * Math.log(2 * Math.PI);
    logProb -= Math.log(scale * (1 - Math.tanh(x) ** 2) + 1e-6);
    return Math.tanh(x) * scale + (BOX.high[k] + BOX.low[k]) / 2;
  });
  return { action, logProb };
}

const rowsOf = (flat: Float32Array, width: number) => Array.from({ length: flat.length / width }, (_, i) => Array.from(flat.subarray(i * width, (i + 1) * width)));

/** Networks with weights spread out (and targets unlike the online critics), so that mistakes show. */
function networks(actionSpace: BoxSpace | DiscreteSpace): { actor: SacActor; critics: SacCritics } {
  const actor = new SacActor(MLP, spacesOf(actionSpace), new Rng(3));
  const critics = new SacCritics(MLP, spacesOf(actionSpace), new Rng(4));
  const rng = new Rng(9);
  for (const w of [...actor.weights.values, ...critics.weights.values]) for (let i = 0; i < w.length; i++) w[i] = rng.uniformRange(-1, 1);
  for (const w of critics.target.values) for (let i = 0; i < w.length; i++) w[i] += rng.uniformRange(-0.3, 0.3);
  actor.sync();
  return { actor, critics };
}

const B = 4;
const obs = Float32Array.from({ length: B * 3 }, (_, i) => Math.sin(i + 1));
const nextObs = Float32Array.from({ length: B * 3 }, (_, i) => Math.cos(2 * i));
const eps = Float32Array.from({ length: B * 2 }, (_, i) => 0.7 * Math.sin(3 * i + 0.5));
const reward = Float32Array.from([0.5, -1, 2, 0.25]);
const done = Float32Array.from([0, 1, 0, 0]);
const [alpha, gamma] = [0.3, 0.9];
const scalar = (x: number) => Float32Array.of(x);

describe('the squashed Gaussian actor', () => {
  it('samples tanh(mean + std eps) rescaled to the bounds, with log N(x) - sum log(scale (1 - tanh(x)^2) + 1e-6), as by hand', async () => {
    const { actor } = networks(BOX);
    const g = new Graph();
    const out = actor.build(g, g.input('obs', 'float32', ['B', 3]));
    assert.equal(out.kind, 'continuous');
    const sample = actor.squashedSample(g, out as Extract<typeof out, { kind: 'continuous' }>, g.input('eps', 'float32', ['B', 2]));
    const session = await Session.create(g, { action: sample.action, log_prob: sample.logProb }, { weights: actor.weights, providers: ['cpu'] });
    try {
      const got = await session.run({ obs: { data: obs, dims: [B, 3] }, eps: { data: eps, dims: [B, 2] } });
      rowsOf(obs, 3).forEach((row, i) => {
        const want = squashedSample(actor, row, [eps[2 * i], eps[2 * i + 1]]);
        close(got.log_prob[i], want.logProb, 1e-4, `log pi, row ${i}`);
        want.action.forEach((a, k) => close(got.action[i * 2 + k], a, 1e-5, `action ${k}, row ${i}`));
      });
    } finally {
      await session.release();
    }
  });

  it('acts with tanh(mean) rescaled when deterministic, within the bounds when sampling, and its ONNX export acts the same under rlx eval', async () => {
    const { actor } = networks(BOX);
    const actions = new Float32Array(B * 2);
    actor.act(obs, B, actions, true, new Rng(1));
    rowsOf(obs, 3).forEach((row, i) => {
      const { mean } = gaussian(actor, row);
      mean.forEach((m, k) => close(actions[i * 2 + k], Math.tanh(m) * ((BOX.high[k] - BOX.low[k]) / 2) + (BOX.high[k] + BOX.low[k]) / 2, 1e-5, `action ${k}, row ${i}`));
    });
    const sampled = new Float32Array(200 * 2);
    actor.act(new Float32Array(200 * 3).fill(0.3), 200, sampled, false, new Rng(2));
    sampled.forEach((a, j) => assert.ok(a >= BOX.low[j % 2] && a <= BOX.high[j % 2], `sampled action ${a} within the bounds`));

    const file = path.join(tempDir(), 'policy.onnx');
    fs.writeFileSync(file, actor.exportOnnx({ format: 'rlx-policy' }));
    const loaded = await OnnxPolicy.load(file, spacesOf(BOX));
    try {
      const fromOnnx = new Float32Array(B * 2);
      await loaded.act(obs, B, fromOnnx, true, new Rng(1));
      fromOnnx.forEach((a, j) => close(a, actions[j], 1e-5, `exported action ${j}`));
    } finally {
      await loaded.release();
    }
  });
});

/** The critics' step on the fixed batch: its metrics by name and its gradients by weight name. */
async function criticStep(actor: SacActor, critics: SacCritics, action: Float32Array) {
  const store = WeightStore.union(actor.weights, critics.weights, critics.target);
  const step = await sacGradientStep(buildCriticLoss(actor, critics), store, critics.weights, { compute: { providers: ['cpu'], threads: false }, maxRows: B });
  try {
    const feeds: Record<string, { data: Float32Array; dims: number[] } | Float32Array> = {
      obs: { data: obs, dims: [B, 3] },
      action: { data: action, dims: [B, action.length / B] },
      reward: { data: reward, dims: [B] },
      next_obs: { data: nextObs, dims: [B, 3] },
      done: { data: done, dims: [B] },
      alpha: scalar(alpha),
      gamma: scalar(gamma),
      inv_n: scalar(1 / B),
    };
    if (!critics.discrete) feeds.eps = { data: eps, dims: [B, 2] };
    const out = await step.run(feeds);
    const metrics = Object.fromEntries(step.metricNames.map((n, k) => [n, out.metrics[k]]));
    const grads = Object.fromEntries(store.names.map((n, k) => [n, out.grads[k].slice()]));
    return { metrics, grads };
  } finally {
    await step.release();
  }
}

/** The critics' loss by hand from the soft targets `y`, and Q(s, a) of each critic. */
function handLosses(y: readonly number[], q1: readonly number[], q2: readonly number[]) {
  const mse = (q: readonly number[]) => q.reduce((s, v, i) => s + (v - y[i]) ** 2, 0) / B;
  return { qf1_loss: mse(q1), qf2_loss: mse(q2), dq1Bias: q1.reduce((s, v, i) => s + (2 * (v - y[i])) / B, 0) };
}

describe('the critics\' soft target and loss', () => {
  it('continuous: y = r + gamma (1 - done) (min_i Q_targ_i(s\', a\') - alpha log pi(a\'|s\')), a\' the squashed sample, as by hand; only the critics get gradients', async () => {
    const { actor, critics } = networks(BOX);
    const action = Float32Array.from({ length: B * 2 }, (_, i) => 0.5 * Math.cos(i));
    const { metrics, grads } = await criticStep(actor, critics, action);
    const target = WeightStore.union(critics.target);
    const y = rowsOf(nextObs, 3).map((s, i) => {
      const next = squashedSample(actor, s, [eps[2 * i], eps[2 * i + 1]]);
      const x = [...s, ...next.action];
      const minQ = Math.min(mlp(target, 'target.q1', x)[0], mlp(target, 'target.q2', x)[0]);
      return reward[i] + gamma * (1 - done[i]) * (minQ - alpha * next.logProb);
    });
    const sa = rowsOf(obs, 3).map((s, i) => [...s, action[2 * i], action[2 * i + 1]]);
    const want = handLosses(y, sa.map((x) => mlp(critics.weights, 'q1', x)[0]), sa.map((x) => mlp(critics.weights, 'q2', x)[0]));
    close(metrics.qf1_loss, want.qf1_loss, 1e-4, 'qf1_loss');
    close(metrics.qf2_loss, want.qf2_loss, 1e-4, 'qf2_loss');
    close(grads['q1.out.bias'][0], want.dq1Bias, 1e-4, 'd qf1_loss / d q1.out.bias');
    for (const [name, g] of Object.entries(grads)) {
      const trained = name.startsWith('q1.') || name.startsWith('q2.');
      assert.equal(g.some((v) => v !== 0), trained, `${name}: ${trained ? 'a' : 'no'} gradient`);
    }
  });

  it('discrete: y = r + gamma (1 - done) sum_a\' pi(a\'|s\') (min_i Q_targ_i(s\', a\') - alpha log pi(a\'|s\')), Q(s, a) picked by the one-hot action, as by hand', async () => {
    const { actor, critics } = networks(DISCRETE);
    const taken = [2, 0, 1, 2];
    const oneHot = Float32Array.from({ length: B * 3 }, (_, j) => (j % 3 === taken[Math.floor(j / 3)] ? 1 : 0));
    const { metrics } = await criticStep(actor, critics, oneHot);
    const target = WeightStore.union(critics.target);
    const y = rowsOf(nextObs, 3).map((s, i) => {
      const logits = mlp(actor.weights, 'actor', s);
      const max = Math.max(...logits);
      const logZ = max + Math.log(logits.reduce((t, l) => t + Math.exp(l - max), 0));
      const [t1, t2] = [mlp(target, 'target.q1', s), mlp(target, 'target.q2', s)];
      const v = logits.reduce((t, l, a) => t + Math.exp(l - logZ) * (Math.min(t1[a], t2[a]) - alpha * (l - logZ)), 0);
      return reward[i] + gamma * (1 - done[i]) * v;
    });
    const states = rowsOf(obs, 3);
    const want = handLosses(y, states.map((s, i) => mlp(critics.weights, 'q1', s)[taken[i]]), states.map((s, i) => mlp(critics.weights, 'q2', s)[taken[i]]));
    close(metrics.qf1_loss, want.qf1_loss, 1e-4, 'qf1_loss');
    close(metrics.qf2_loss, want.qf2_loss, 1e-4, 'qf2_loss');
  });
});

describe('the actor\'s loss', () => {
  it('continuous: mean(alpha log pi(a|s) - min_i Q_i(s, a)) on reparameterised samples, as by hand; the critics get no gradient', async () => {
    const { actor, critics } = networks(BOX);
    const store = WeightStore.union(actor.weights, critics.weights);
    const step = await sacGradientStep(buildActorLoss(actor, critics), store, actor.weights, { compute: { providers: ['cpu'], threads: false }, maxRows: B });
    try {
      const out = await step.run({ obs: { data: obs, dims: [B, 3] }, eps: { data: eps, dims: [B, 2] }, alpha: scalar(alpha), inv_n: scalar(1 / B) });
      const want =
        rowsOf(obs, 3).reduce((sum, s, i) => {
          const { action, logProb } = squashedSample(actor, s, [eps[2 * i], eps[2 * i + 1]]);
          return sum + alpha * logProb - Math.min(mlp(critics.weights, 'q1', [...s, ...action])[0], mlp(critics.weights, 'q2', [...s, ...action])[0]);
        }, 0) / B;
      close(out.metrics[step.metricNames.indexOf('actor_loss')], want, 1e-4, 'actor_loss');
      store.names.forEach((name, k) => assert.equal(out.grads[k].some((v) => v !== 0), name.startsWith('actor.'), `${name}'s gradient`));
    } finally {
      await step.release();
    }
  });
});

function context(env: string, seed: number, budget: number, hidden: number[]) {
  const vec = makeVecEnv(env, {}, 1);
  const stepper = new Stepper(vec, null);
  stepper.reset(seed);
  const rng = new Rng(seed);
  const spaces = flatPolicySpaces(vec.obsDim, vec.actionSpace as BoxSpace | DiscreteSpace);
  const policy = new PolicyFactory({ kind: 'mlp', name: 'p', params: { hidden, activation: 'relu' } }, spaces, rng.fork('policy'));
  return { policy, stepper, budget, rng: rng.fork('SAC'), compute: { providers: ['cpu'] as const, threads: false } };
}

describe('SAC trains', () => {
  it('continuous (Pendulum): 5000 steps lift the last 5 episodes\' mean return far above the random start (about -1450)', async () => {
    // A smaller copy of examples/pendulum-sac.rlx (64-wide layers, batch 64); measured on seeds
    // 1-3: -393, -174, -171 after 5000 steps (the example reaches about -170 at 20k).
    const settings = sacSettings({ learning_rate: 1e-3, critic_learning_rate: 'same', learning_starts: 200, batch_size: 64, policy_frequency: 1 });
    const sac = await Sac.create(context('Pendulum', 1, 5000, [64, 64]), settings);
    const returns: number[] = [];
    try {
      while (!sac.done) {
        await sac.iterate();
        returns.push(...sac.stepper.takeEpisodes().map((e) => e.return));
      }
    } finally {
      await sac.release();
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const [first, last] = [mean(returns.slice(0, 5)), mean(returns.slice(-5))];
    assert.equal(returns.length, 25);
    assert.ok(last > -800 && last > first + 500, `mean return of the first 5 episodes ${first.toFixed(0)}, of the last 5 ${last.toFixed(0)}`);
  });

  it('discrete (CartPole): a short run resumes exactly from its state (weights, targets, optimisers, temperature, buffer, random streams)', async () => {
    const settings = sacSettings({ learning_starts: 300, batch_size: 32, policy_frequency: 2 });
    const a = await Sac.create(context('CartPole', 3, 5000, [16, 16]), settings);
    const b = await Sac.create(context('CartPole', 4, 5000, [16, 16]), settings);
    try {
      await a.iterate();
      // What the trainer does on --resume: a fresh algorithm loads the state, every episode restarts.
      b.loadState(a.state());
      a.loadState(a.state());
      a.stepper.reset(7);
      b.stepper.reset(7);
      // time/* are wall-clock figures (the bench's), the rest must match exactly.
      const learned = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).filter(([name]) => !name.startsWith('time/')));
      for (let k = 0; k < 2; k++) assert.deepEqual(learned(await b.iterate()), learned(await a.iterate()), `iteration ${k} after resuming`);
      assert.deepEqual(b.state(), a.state());
      assert.ok(a.criticSteps > 1000 && a.actorSteps === a.criticSteps, `${a.criticSteps} critic and ${a.actorSteps} actor steps`);
    } finally {
      await a.release();
      await b.release();
    }
  });
});
