// Gradients handed to Adam's worker threads (runtime/tensor/gradient-handover.ts): a gradient
// step writes them as pieces of whole tensors, Adam's workers copy the pieces in and send them
// back, and the step writes the next gradients into the pieces it got back. The numbers are
// those of the single output copied in by the calling thread, bit for bit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CheckedStep } from '../../../runtime/algorithms/checked-step.js';
import { GradientParts, WEBGPU_MAX_PIECE_BYTES } from '../../../runtime/tensor/gradient-parts.js';
import { GradientStep } from '../../../runtime/tensor/gradient-step.js';
import { Graph } from '../../../runtime/tensor/graph.js';
import { Adam } from '../../../runtime/tensor/optim.js';
import { WeightStore } from '../../../runtime/tensor/weights.js';
import { seededRandom } from '../../helpers/random.js';
import { webgpuOrSkip } from '../../helpers/webgpu.js';

const bits = (xs: readonly Float32Array[]): Uint32Array[] => xs.map((x) => new Uint32Array(x.slice().buffer));

/** A two-layer network of five weights (odd sizes) and a squared error: one loss over all of them. */
function network() {
  const random = seededRandom(3);
  const store = new WeightStore();
  const init = (n: number) => Array.from({ length: n }, () => random() - 0.5);
  store.add('w1', [3, 37], init);
  store.add('b1', [37], init);
  store.add('w2', [37, 5], init);
  store.add('b2', [5], init);
  store.add('scale', [1], init);
  const g = new Graph();
  const p = store.declare(g);
  const x = g.input('x', 'float32', ['B', 3]);
  const target = g.input('target', 'float32', ['B', 5]);
  const hidden = g.tanh(g.add(g.matmul(x, p.w1!), p.b1!));
  const out = g.mul(g.add(g.matmul(hidden, p.w2!), p.b2!), p.scale!);
  const loss = g.mean(g.square(g.sub(out, target)));
  const feeds = (seed: number) => {
    const r = seededRandom(seed);
    return { x: Float32Array.from({ length: 24 }, () => r() - 0.5), target: Float32Array.from({ length: 40 }, () => r()) };
  };
  return { g, store, loss, feeds };
}

test('a step of one part writes its gradients as pieces of whole tensors, lends them, and writes the next run into the pieces it got back', async () => {
  const { g, store, loss, feeds } = network();
  const whole = await GradientParts.create(g, [{ loss, weights: store.names }], { weights: store, threads: false });
  const pieced = await GradientParts.create(g, [{ loss, weights: store.names }], { weights: store, threads: false, gradientPieces: 3 });
  try {
    for (let run = 0; run < 3; run++) {
      const expected = bits((await whole.run(feeds(run))).grads);
      assert.equal((await whole.run(feeds(run))).handover, undefined, 'one output: nothing lent');
      const result = await pieced.run(feeds(run));
      assert.deepEqual(bits(result.grads), expected, `run ${run}: the same gradients`);
      const { pieces, giveBack } = result.handover!;
      assert.equal(pieces.length, 3);
      // Every gradient is a view of a piece, the pieces whole buffers, tensors end to end.
      for (const grad of result.grads) assert.ok(pieces.some((p) => p.buffer === grad.buffer), 'a gradient outside the pieces');
      assert.deepEqual(pieces.map((p) => p.length).reduce((a, b) => a + b), store.size);
      // What a worker does: the buffers move to another thread and back, as new objects.
      const moved = pieces.map((p) => structuredClone(p.buffer, { transfer: [p.buffer as ArrayBuffer] }));
      assert.ok(pieces.every((p) => p.length === 0), 'the lent pieces are detached');
      giveBack(moved.map((buffer) => new Float32Array(buffer)));
      const next = await pieced.run(feeds(run + 10));
      assert.deepEqual(bits(next.grads), bits((await whole.run(feeds(run + 10))).grads), `run ${run}: the next gradients, in the pieces given back`);
      assert.ok(next.grads.every((grad) => moved.includes(grad.buffer as ArrayBuffer)), 'the next run wrote into the pieces given back');
    }
  } finally {
    await Promise.all([whole.release(), pieced.release()]);
  }
});

test("checked steps with the gradients handed to Adam's workers give the JS loop's weights bit for bit", async () => {
  const train = async (pieces: number, adamOptions: { simd?: boolean; threads?: number }) => {
    const { g, store, loss, feeds } = network();
    const step = await GradientStep.create(g, [{ loss, weights: store.names }], { weights: store, compute: { providers: ['cpu'], threads: false }, gradientPieces: pieces });
    const adam = new Adam(store, { lr: 1e-2, ...adamOptions });
    const checked = new CheckedStep(step, { learner: 'test', at: () => 'here', advice: '', weights: store, optimizer: adam, maxGradNorm: 0.5 });
    try {
      for (let s = 0; s < 5; s++) await checked.step(feeds(s));
      return store.values;
    } finally {
      adam.release();
      await step.release();
    }
  };
  const expected = bits(await train(1, { simd: false }));
  for (const [pieces, threads] of [[2, 2], [3, 2], [2, 3]] as const) {
    assert.deepEqual(bits(await train(pieces, { threads })), expected, `${pieces} pieces, ${threads} threads`);
  }
});

test('on webgpu a step writes its gradients in pieces of at most about 64 MiB: 40 tensors of 192 MB in one output fail on lavapipe (lavapipe in CI)', async (t) => {
  const skip = await webgpuOrSkip();
  if (skip) return t.skip(skip);
  // One output of 40 tensors and 192 MB asks onnxruntime's Concat for more storage buffers than
  // lavapipe has ("Too many storage buffers in shader. Current: 18, Max is 16"); 3 pieces do not.
  const [count, size] = [40, 1_200_000];
  const store = new WeightStore();
  for (let i = 0; i < count; i++) store.add(`w${i}`, [size], (n) => new Float32Array(n).fill(0.25 + i));
  const g = new Graph();
  const p = store.declare(g);
  const c = g.input('c', 'float32', []);
  // d/dw of c * sum(w * w) is 2 c w.
  const loss = store.names.map((name) => g.mul(g.reduceSum(g.mul(p[name]!, p[name]!)), c)).reduce((a, b) => g.add(a, b));
  const parts = await GradientParts.create(g, [{ loss, weights: store.names }], { weights: store, providers: ['webgpu'], threads: false });
  try {
    const { grads, handover } = await parts.run({ c: new Float32Array([2]) });
    assert.ok(handover && handover.pieces.length >= Math.ceil((4 * count * size) / WEBGPU_MAX_PIECE_BYTES), `${handover?.pieces.length} pieces`);
    for (const piece of handover.pieces) assert.ok(piece.byteLength <= WEBGPU_MAX_PIECE_BYTES + 4 * size, `a piece of ${piece.byteLength} bytes`);
    grads.forEach((grad, i) => assert.ok(grad[0] === 4 * (0.25 + i) && grad[size - 1] === 4 * (0.25 + i), `gradient ${i}: ${grad[0]}`));
  } finally {
    await parts.release();
  }
});
