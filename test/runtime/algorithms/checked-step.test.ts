// Every learner's gradient step goes through one checked step (runtime/algorithms/checked-step.ts):
// a short run of each gives the losses it gave before the learners shared it, and a NaN in any
// learner fails the run naming the learner, the step and the last good checkpoint, whose
// weights are finite.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import type { Plan } from '../../../dsl/compile/plan.js';
import { CheckedStep, DivergedError } from '../../../runtime/algorithms/checked-step.js';
import { NonFiniteError } from '../../../runtime/algorithms/stepper.js';
import { latestCheckpoint, loadCheckpoint } from '../../../runtime/run/checkpoint.js';
import { readEvents } from '../../../runtime/run/events.js';
import { Adam, WeightStore, type StepResult } from '../../../runtime/tensor/index.js';
import { RunFailedError, train, type TrainOptions } from '../../../runtime/train.js';
import { brokenCorridor, tempDir } from '../helpers.js';
import { LEARNERS, learnerPlan, type Learner } from './learners.js';

/**
 * The losses of each learner's first update on seed 1, recorded before the learners shared the
 * checked step (bit-identical on this machine; the tolerance allows another CPU's kernels).
 */
const FIRST_LOSSES: Record<Learner, Record<string, number>> = {
  PPO: { 'losses/grad_norm': 6.9218200368915275, 'losses/gradient_steps': 4, 'losses/policy_loss': -0.00015436112880706787, 'losses/value_loss': 37.20689392089844, 'losses/entropy': 0.6931441724300385, 'losses/old_approx_kl': 0.00011364277452230453, 'losses/approx_kl': 7.557682693004608e-07, 'losses/clipfrac': 0, 'losses/explained_variance': 0.007668084862512026 },
  // DQN's re-recorded when its actions before learning_starts became uniformly random (SB3's warm-up).
  DQN: { 'losses/grad_norm': 2.3119444967367992, 'losses/td_loss': 1.0944173903692336, 'losses/q_values': 0.06092400418683177 },
  SAC: { 'losses/alpha': 0.9321860686830985, 'losses/qf1_loss': 40.65315440121819, 'losses/qf2_loss': 42.096369462854724, 'losses/qf1_values': -0.42017799309071374, 'losses/qf2_values': -0.288021287004299, 'losses/actor_loss': -0.014666883987100685, 'losses/entropy': 0.539019405403558, 'losses/alpha_loss': 1.4846487246995728, 'losses/qf_values': -0.3540996400475064, 'losses/gradient_steps': 68 },
  REINFORCE: { 'losses/grad_norm': 58.306917033714164, 'losses/gradient_steps': 1, 'losses/policy_loss': 106.94483947753906, 'losses/entropy': 0.6931418776512146 },
  SFT: { 'losses/sft_loss': 2.616712808609009, 'losses/grad_norm': 2.3889025991041266 },
  GRPO: { 'losses/grad_norm': 0.7701143196795517, 'losses/policy_loss': -0.0020873351022601128, 'losses/kl': 2.276897430419922e-05, 'losses/clip_fraction': 0, 'losses/entropy': 2.5602898597717285 },
  RLOO: { 'losses/grad_norm': 4.183973271517793, 'losses/policy_loss': -0.16666662693023682, 'losses/kl': 0, 'losses/clip_fraction': 0, 'losses/entropy': 2.560044288635254 },
};

/** A loss each learner logs with every update. */
const LOSS: Record<Learner, string> = {
  PPO: 'losses/policy_loss',
  DQN: 'losses/td_loss',
  SAC: 'losses/qf1_loss',
  REINFORCE: 'losses/policy_loss',
  SFT: 'losses/sft_loss',
  GRPO: 'losses/policy_loss',
  RLOO: 'losses/policy_loss',
};

describe('a short run of every learner', () => {
  for (const learner of LEARNERS) {
    it(`${learner}: the first update's losses are unchanged`, async () => {
      const result = await train(learnerPlan(learner), { out: tempDir() });
      const first = readEvents(`${result.runDir}/events.jsonl`).find((e) => e.type === 'metrics' && e.values[LOSS[learner]] !== undefined);
      assert.ok(first && first.type === 'metrics', 'an update was logged');
      const losses = Object.fromEntries(Object.entries(first.values).filter(([name]) => name.startsWith('losses/')));
      const expected = FIRST_LOSSES[learner];
      assert.deepEqual(Object.keys(losses).sort(), Object.keys(expected).sort(), JSON.stringify(losses));
      for (const [name, value] of Object.entries(expected)) {
        assert.ok(Math.abs(losses[name]! - value) <= 1e-5 * Math.max(1, Math.abs(value)), `${name}: ${losses[name]} (was ${value}); ${JSON.stringify(losses)}`);
      }
    });
  }
});

/** Two weights, an Adam over them, and a checked step fed by `results` in turn (no session: update()). */
function fixture(maxGradNorm: number | null = 1) {
  const weights = new WeightStore();
  weights.add('w', [3], [0.5, -1, 2]);
  weights.add('b', [1], [0.1]);
  const optimizer = new Adam(weights, { lr: 0.1 });
  let step = 0;
  const checked = new CheckedStep(
    { metricNames: ['policy_loss', 'entropy'], run: async () => results[step]! },
    { learner: 'Test', at: () => `update ${step + 1}`, advice: 'try something smaller', weights, optimizer, maxGradNorm },
  );
  const results: StepResult[] = [];
  const add = (loss: number, metrics: number[], grads: number[][]) => results.push({ loss, metrics: Float64Array.from(metrics), grads: grads.map((g) => Float32Array.from(g)) });
  const next = async () => {
    const out = await checked.step({}, 0.1);
    step++;
    return out;
  };
  return { weights, checked, add, next };
}

describe('CheckedStep', () => {
  it('takes the same step as Adam with clipping, and returns the norm before it', async () => {
    const { weights, add, next } = fixture(1);
    const reference = new WeightStore();
    reference.add('w', [3], [0.5, -1, 2]);
    reference.add('b', [1], [0.1]);
    const adam = new Adam(reference, { lr: 0.1 });
    const grads = [[3, 0, -4], [0]];
    add(1.5, [1, 2], grads);
    const out = await next();
    const norm = adam.step(grads.map((g) => Float32Array.from(g)), 0.1, { maxGradNorm: 1 });
    assert.equal(out.gradNorm, norm);
    assert.ok(Math.abs(norm - 5) < 1e-6);
    assert.deepEqual(weights.snapshot(), reference.snapshot());
  });

  it('a metric that is not finite stops before the optimiser steps, naming the learner, the metric and where', async () => {
    const { weights, add, next } = fixture();
    const before = weights.snapshot();
    add(NaN, [0.5, Infinity], [[1, 1, 1], [1]]);
    await assert.rejects(next(), (err: Error) => {
      assert.ok(err instanceof DivergedError && err instanceof NonFiniteError, 'a NonFiniteError: the trainer adds the last good checkpoint');
      assert.equal(err.message, "Test's update diverged: losses/entropy is Infinity (update 1); try something smaller");
      return true;
    });
    assert.deepEqual(weights.snapshot(), before, 'the weights are as they were');
  });

  it('a loss that is not finite stops, with every metric finite', async () => {
    const { add, next } = fixture();
    add(-Infinity, [0.5, 1], [[1, 1, 1], [1]]);
    await assert.rejects(next(), /^DivergedError: Test's update diverged: the loss is -Infinity \(update 1\); try something smaller$/);
  });

  it('a gradient that is not finite stops at the step it came in, with or without clipping', async () => {
    for (const clip of [1, null]) {
      const { add, next } = fixture(clip);
      add(1, [1, 1], [[1, 1, 1], [1]]);
      add(1, [1, 1], [[1, NaN, 1], [1]]);
      await next();
      await assert.rejects(next(), /^DivergedError: Test's update diverged: the gradient's norm is NaN \(update 2\); try something smaller$/);
    }
  });

  it('checkWeights names a weight that is not finite, and scans only after a step moved them', async () => {
    const { weights, checked, add, next } = fixture();
    weights.get('b').data[0] = NaN;
    assert.doesNotThrow(() => checked.checkWeights(), 'no step since the last scan: nothing to scan');
    add(1, [1, 1], [[1, 1, 1], [0]]);
    await next();
    assert.throws(() => checked.checkWeights(), /^DivergedError: Test's update diverged: weight b\[0\] is NaN \(update 2\); try something smaller$/);
    weights.get('b').data[0] = 0;
    add(1, [1, 1], [[1, 1, 1], [0]]);
    await next();
    assert.doesNotThrow(() => checked.checkWeights());
  });
});

/**
 * Makes the `call`-th optimiser step of the run (counting every Adam) leave one weight NaN, as a
 * bad kernel or a stray write would.
 */
function poisonWeightAt(call: number): () => void {
  const original = Adam.prototype.step;
  let calls = 0;
  Adam.prototype.step = function (this: Adam, ...args: Parameters<Adam['step']>) {
    const norm = original.apply(this, args);
    if (++calls === call) (this as unknown as { params: Float32Array[] }).params[0]![0] = NaN;
    return norm;
  };
  return () => (Adam.prototype.step = original);
}

/** Trains `plan`, expecting it to fail; returns the message and the last checkpoint's weights. */
async function failure(plan: Plan, options: TrainOptions): Promise<{ message: string; weights: Float32Array[] }> {
  let failed: RunFailedError | undefined;
  await train(plan, { out: tempDir(), ...options }).catch((err: unknown) => {
    if (!(err instanceof RunFailedError)) throw err;
    failed = err;
  });
  assert.ok(failed, 'the run failed');
  const latest = latestCheckpoint(path.join(failed.runDir, 'checkpoints'));
  assert.ok(latest, 'a checkpoint was written before the failure');
  return { message: failed.message, weights: weightArrays(loadCheckpoint(latest.file).algorithmState) };
}

/** Every weight array ({ shape, data }) in a learner's saved state. */
function weightArrays(state: unknown): Float32Array[] {
  if (state === null || typeof state !== 'object') return [];
  const record = state as Record<string, unknown>;
  if (Array.isArray(record.shape) && record.data !== undefined) return [Float32Array.from(record.data as ArrayLike<number>)];
  return Object.values(record).flatMap(weightArrays);
}

/**
 * How each learner is made to diverge, at which step of training it fails, and the checkpoint
 * it names. Numeric learners: a reward of 1e38 once the env has taken some steps (counted over
 * both copies; DQN and SAC update 1000 steps at a time); text learners: a weight turned NaN at an optimiser step after the first checkpoint.
 */
const DIVERGING: Record<Learner, { plan: () => Plan; options: TrainOptions; poison?: number; message: RegExp }> = {
  PPO: { ...numeric('PPO', { rollout_steps: 64 }, 512, 300), message: /^PPO's update diverged: losses\/\w+ is (NaN|-?Infinity) \(update 3, epoch 1, gradient step 1 of this update\); try a smaller learning_rate or max_grad_norm, after 384 steps of training; the last good checkpoint is checkpoints\/state-256\.json \(step 256\)$/ },
  DQN: { ...numeric('DQN', { loss: 'mse', train_every: 8 }, 2000, 1100), message: /^DQN's update diverged: losses\/\w+ is (NaN|-?Infinity) \(update \d+, gradient step 1\); try a smaller learning_rate, loss: huber or a max_grad_norm, after 11\d\d steps of training; the last good checkpoint is checkpoints\/state-1000\.json \(step 1000\)$/ },
  SAC: { ...numeric('SAC', {}, 2000, 1100), message: /^SAC's update diverged: losses\/\w+ is (NaN|-?Infinity) \(critic step \d+\); try a smaller learning_rate or critic_learning_rate, after 11\d\d steps of training; the last good checkpoint is checkpoints\/state-1000\.json \(step 1000\)$/ },
  REINFORCE: { ...numeric('REINFORCE', {}, 1200, 500), message: /^REINFORCE's update diverged: (losses\/\w+|the loss|the gradient's norm) is (NaN|-?Infinity) \(update 7\); try a smaller learning_rate or max_grad_norm, after 560 steps of training; the last good checkpoint is checkpoints\/state-320\.json \(step 320\)$/ },
  SFT: { plan: () => learnerPlan('SFT'), options: { checkpointEvery: 16 }, poison: 3, message: /^SFT's update diverged: weight [\w.]+\[0\] is NaN \(update 3\); try a smaller learning_rate, after 16 steps of training; the last good checkpoint is checkpoints\/state-16\.json \(step 16\)$/ },
  GRPO: { plan: () => learnerPlan('GRPO'), options: { checkpointEvery: 16 }, poison: 5, message: /^GRPO's update diverged: losses\/\w+ is NaN \(update 3, iteration 2 of 2\); try a smaller learning_rate or max_grad_norm, after 16 steps of training; the last good checkpoint is checkpoints\/state-16\.json \(step 16\)$/ },
  RLOO: { plan: () => learnerPlan('RLOO'), options: { checkpointEvery: 8 }, poison: 3, message: /^REINFORCE's update diverged: weight [\w.]+\[0\] is NaN \(update 3\); try a smaller learning_rate or max_grad_norm, after 8 steps of training; the last good checkpoint is checkpoints\/state-8\.json \(step 8\)$/ },
};

/** A numeric learner on the corridor whose reward turns huge at env step `after`, checkpointing every 256 steps. */
function numeric(learner: 'PPO' | 'DQN' | 'SAC' | 'REINFORCE', params: Record<string, unknown>, budget: number, after: number): { plan: () => Plan; options: TrainOptions } {
  // Huge where the agent takes action 1: finite, so the stepper lets it through, but the losses
  // overflow; and not the same for every episode, or REINFORCE's baseline would cancel it.
  const { env, envModule } = brokenCorridor('reward', '(action === 1 ? 1e38 : 1)', after);
  return {
    plan: () => {
      const plan = learnerPlan(learner, { env });
      const stage = plan.stages[0]!;
      stage.budget = budget;
      Object.assign(stage.algorithm.params, params);
      return plan;
    },
    options: { envModule, checkpointEvery: 256 },
  };
}

describe('a NaN in any learner fails the run, naming the learner, the step and the last good checkpoint', () => {
  for (const learner of LEARNERS) {
    it(learner, async () => {
      const { plan, options, poison, message: expected } = DIVERGING[learner];
      const restore = poison !== undefined ? poisonWeightAt(poison) : () => {};
      try {
        const { message, weights } = await failure(plan(), options);
        assert.match(message, expected);
        assert.ok(weights.length > 0 && weights.every((w) => w.every(Number.isFinite)), "the last checkpoint's weights are finite");
      } finally {
        restore();
      }
    });
  }
});
