// Dynamic loss scaling of float16 steps (runtime/tensor/loss-scale.ts): the scale follows
// GradScaler's rules; Adam divides the scaled gradients out exactly and skips a step whose
// gradients overflowed, leaving weights, moments and step count alone; a float16 gradient step
// that overflows float16 is skipped, its scale halved until the gradients fit, and then trains.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { CheckedStep } from '../../../runtime/algorithms/checked-step.js';
import { CheckpointStateError, learnerState, part } from '../../../runtime/algorithms/learner-state.js';
import { Adam, Graph, GradientStep, LossScaler, WeightStore, type LossScaleState, type Precision } from '../../../runtime/tensor/index.js';

test('the loss scale starts at 2^16, halves on every overflow, doubles after growthInterval finite steps, and its state round-trips', () => {
  const scaler = new LossScaler({ growthInterval: 3 });
  assert.equal(scaler.scale, 2 ** 16);
  assert.equal(scaler.update(false), true, 'an overflow skips the step');
  assert.equal(scaler.scale, 2 ** 15);
  assert.equal(scaler.feed[0], 2 ** 15, 'the graph is fed the new scale');
  scaler.update(true);
  scaler.update(true);
  assert.equal(scaler.scale, 2 ** 15, 'two good steps of three: no growth yet');
  scaler.update(false);
  assert.equal(scaler.scale, 2 ** 14, 'an overflow restarts the count');
  for (let i = 0; i < 3; i++) assert.equal(scaler.update(true), false);
  assert.equal(scaler.scale, 2 ** 15);
  assert.equal(scaler.skipped, 2);
  scaler.update(true);
  const copy = new LossScaler({ growthInterval: 3 });
  copy.load(scaler.state());
  assert.deepEqual(copy.state(), { scale: 2 ** 15, goodSteps: 1 });
  copy.update(true);
  copy.update(true);
  assert.equal(copy.scale, 2 ** 16, 'a loaded scaler continues the count');
  assert.throws(() => copy.load({ scale: 0, goodSteps: 0 }), /scale > 0/);
});

test('Adam with gradScale s steps exactly as with the gradients divided by s (clipped or not), and skips a step whose gradients are not finite', () => {
  for (const simd of [true, false]) {
    const grads = [Float32Array.from([0.5, -1.5, 2, 0.25]), Float32Array.from([3, -0.125])];
    const scaled = grads.map((g) => g.map((x) => x * 1024));
    const make = () => {
      const params = [Float32Array.from([1, 2, 3, 4]), Float32Array.from([-1, 0.5])];
      return { params, adam: new Adam(params, { simd, lr: 0.01 }) };
    };
    for (const maxGradNorm of [undefined, 1]) {
      const [plain, withScale] = [make(), make()];
      const options = maxGradNorm === undefined ? {} : { maxGradNorm };
      const norm = plain.adam.step(grads, 0.01, options);
      const scaledNorm = withScale.adam.step(scaled, 0.01, { ...options, gradScale: 1024 });
      assert.ok(Math.abs(scaledNorm - norm) <= 1e-6 * norm, `norm ${scaledNorm} vs ${norm}`);
      assert.deepEqual(withScale.params, plain.params, `simd ${simd}, maxGradNorm ${maxGradNorm}`);
    }
    const { params, adam } = make();
    adam.step(grads, 0.01, { gradScale: 1 });
    const [before, moments] = [params.map((p) => p.slice()), adam.state()];
    const overflowed = [Float32Array.from([1, Infinity, 0, 0]), Float32Array.from([0, 0])];
    assert.equal(adam.step(overflowed, 0.01, { gradScale: 1024 }), Infinity);
    assert.deepEqual(params, before, 'weights unchanged');
    assert.deepEqual(adam.state(), moments, 'moments and step count unchanged');
    const nan = [Float32Array.from([NaN, 0, 0, 0]), Float32Array.from([0, 0])];
    assert.ok(Number.isNaN(adam.step(nan, 0.01, { gradScale: 1024 })));
    assert.equal(adam.stepCount, 1);
  }
});

/** loss = mean(x @ w) on rows of tens: d loss / d w = mean(x) = 10 per weight, times the scale in float16. */
async function linearStep(precision: Precision) {
  const store = new WeightStore();
  store.add('w', [4, 1], [0.1, 0.1, 0.1, 0.1]);
  const g = new Graph();
  const { w } = store.declare(g);
  const x = g.input('x', 'float32', ['B', 4]);
  const loss = g.mean(g.matmul(x, w!));
  const step = await GradientStep.create(g, [{ loss, weights: ['w'] }], { weights: store, compute: { providers: ['cpu'], threads: false, precision } });
  const adam = new Adam(store, { lr: 0.01 });
  const checked = new CheckedStep(step, { learner: 'test', at: () => 'here', advice: 'none', weights: store, optimizer: adam });
  return { store, step, adam, checked, feeds: { x: { data: new Float32Array(2 * 4).fill(10), dims: [2, 4] } } };
}

test('a float16 step whose scaled gradients overflow float16 is skipped and its scale halved until they fit; then it steps as float32 does', async () => {
  const half = await linearStep('fp16');
  const full = await linearStep('fp32');
  try {
    // 10 * 2^16 overflows float16 (65504); 10 * 2^12 = 40960 fits: four steps are skipped.
    const scales: number[] = [];
    for (let i = 0; i < 4; i++) {
      scales.push(half.step.lossScaler!.scale);
      const result = await half.checked.step(half.feeds);
      assert.equal(result.skipped, true, `step ${i} overflows`);
      assert.deepEqual([...half.store.get('w').data], [0.1, 0.1, 0.1, 0.1].map(Math.fround), 'the weights did not move');
    }
    assert.deepEqual(scales, [2 ** 16, 2 ** 15, 2 ** 14, 2 ** 13]);
    assert.equal(half.adam.stepCount, 0);
    const result = await half.checked.step(half.feeds);
    assert.equal(result.skipped, false);
    assert.equal(half.step.lossScaler!.scale, 2 ** 12);
    assert.equal(half.adam.stepCount, 1);
    const fullResult = await full.checked.step(full.feeds);
    assert.equal(fullResult.skipped, false);
    assert.ok(Math.abs(result.gradNorm - fullResult.gradNorm) <= 1e-3 * fullResult.gradNorm, `norm ${result.gradNorm} vs ${fullResult.gradNorm}`);
    assert.deepEqual([...half.store.get('w').data], [...full.store.get('w').data], 'the step taken is float32\'s');
  } finally {
    await Promise.all([half.step.release(), full.step.release()]);
  }
});

test("a learner's checkpoint part for the loss scale: saved, loaded, optional, and a damaged one named", () => {
  const scaler = new LossScaler();
  scaler.update(false);
  const saved = learnerState<{ lossScale: LossScaleState | null }>('SFT', { lossScale: part.lossScale(scaler) }).save();
  assert.deepEqual(saved, { lossScale: { scale: 2 ** 15, goodSteps: 0 } });
  const fresh = new LossScaler();
  const state = learnerState<{ lossScale: LossScaleState | null }>('SFT', { lossScale: part.lossScale(fresh) });
  state.load(saved);
  assert.equal(fresh.scale, 2 ** 15);
  state.load({});
  assert.equal(fresh.scale, 2 ** 15, 'a checkpoint without it (fp32, or older) keeps the scale');
  assert.throws(() => state.load({ lossScale: { scale: -1, goodSteps: 0 } }), (err: Error) => err instanceof CheckpointStateError && /lossScale/.test(err.message) && /a loss scale/.test(err.message));
  assert.deepEqual(learnerState<{ lossScale: LossScaleState | null }>('SFT', { lossScale: part.lossScale(null) }).save(), { lossScale: null }, 'fp32 saves none');
});
