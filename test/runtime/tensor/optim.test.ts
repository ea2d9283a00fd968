// Optimisers against hand-computed updates.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Adam, SGD, clipGradNorm, gradNorm } from '../../../runtime/tensor/optim.js';
import { ParamStore } from '../../../runtime/tensor/params.js';

const close = (actual: number, expected: number, tol = 1e-6) =>
  assert.ok(Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected)), `${actual} vs ${expected}`);

// Reference: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; p -= lr (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps),
// worked out in float64 for f(p) = 0.5 (p-3)^2 from p = 0 with lr 0.1 (first column)
// and f(q) = (q+1)^2 from q = 1 with lr 0.05 (second column).
const ADAM_REFERENCE = [
  [0.09999999966666669, 0.950000000125],
  [0.19989729224944813, 0.9000369976658238],
  [0.2996184760421757, 0.8501369223611016],
];

test('Adam follows the bias-corrected update on two quadratics', () => {
  const p = new Float32Array([0]);
  const q = new Float32Array([1]);
  const adamP = new Adam([p], { lr: 0.1 });
  const adamQ = new Adam([q], { lr: 0.05 });
  for (const [pExpected, qExpected] of ADAM_REFERENCE) {
    adamP.step([new Float32Array([p[0]! - 3])]);
    adamQ.step([new Float32Array([2 * (q[0]! + 1)])]);
    close(p[0]!, pExpected!);
    close(q[0]!, qExpected!);
  }
  assert.equal(adamP.stepCount, 3);
});

test('Adam eps: 1e-8 by default, 1e-5 (CleanRL PPO) when asked', () => {
  // First step with g = 1e-5: the update is lr * g / (|g| + eps).
  const a = new Float32Array([0]);
  const b = new Float32Array([0]);
  new Adam([a], { lr: 0.1 }).step([new Float32Array([1e-5])]);
  new Adam([b], { lr: 0.1, eps: 1e-5 }).step([new Float32Array([1e-5])]);
  close(a[0]!, -0.09990009990009993);
  close(b[0]!, -0.05);
});

test('Adam takes a per-step learning rate and keeps it', () => {
  const p = new Float32Array([0]);
  const adam = new Adam([p], { lr: 1 });
  adam.step([new Float32Array([2])], 0.25);
  close(p[0]!, -0.25); // the first Adam step moves by lr * sign(g)
  assert.equal(adam.lr, 0.25);
});

test('Adam state round-trips: a restored optimiser continues identically', () => {
  const store = new ParamStore();
  store.add('w', [3], [1, -2, 0.5]);
  const adam = new Adam(store, { lr: 0.01 });
  const gradAt = (w: Float32Array) => [Float32Array.from(w, (x) => 2 * x - 1)];
  adam.step(gradAt(store.get('w').data));
  adam.step(gradAt(store.get('w').data));
  const saved = adam.state();
  const copy = store.clone();
  const restored = new Adam(copy, { lr: 0.01 });
  restored.load(saved);
  assert.equal(restored.stepCount, 2);
  adam.step(gradAt(store.get('w').data));
  restored.step(gradAt(copy.get('w').data));
  assert.deepEqual([...copy.get('w').data], [...store.get('w').data]);
  // state() is a copy: later steps do not change a saved checkpoint.
  assert.notDeepEqual([...saved.m[0]!], [...adam.state().m[0]!]);
});

test('Adam.load rejects state of the wrong size', () => {
  const adam = new Adam([new Float32Array(3)]);
  assert.throws(() => adam.load({ step: 1, m: [new Float32Array(2)], v: [new Float32Array(2)] }), /state buffer 0 has 2 elements, expected 3/);
});

test('SGD with momentum follows the torch update', () => {
  // f(p) = 0.5 (p-3)^2, lr 0.1, momentum 0.9: buf = g, then buf = 0.9 buf + g; p -= lr buf.
  const p = new Float32Array([0]);
  const sgd = new SGD([p], { lr: 0.1, momentum: 0.9 });
  for (const expected of [0.3, 0.84, 1.542]) {
    sgd.step([new Float32Array([p[0]! - 3])]);
    close(p[0]!, expected);
  }
  const plain = new Float32Array([0]);
  new SGD([plain], { lr: 0.1 }).step([new Float32Array([-3])]);
  close(plain[0]!, 0.3);
});

test('SGD state round-trips', () => {
  const p = new Float32Array([0]);
  const sgd = new SGD([p], { lr: 0.1, momentum: 0.9 });
  sgd.step([new Float32Array([-3])]);
  const q = p.slice();
  const other = new SGD([q], { lr: 0.1, momentum: 0.9 });
  other.load(sgd.state());
  sgd.step([new Float32Array([1])]);
  other.step([new Float32Array([1])]);
  assert.deepEqual([...q], [...p]);
});

test('clipGradNorm scales all gradients to the max norm and returns the norm before', () => {
  const grads = [new Float32Array([3, 4]), new Float32Array([12])];
  const before = clipGradNorm(grads, 6.5);
  close(before, 13);
  close(gradNorm(grads), 6.5, 1e-6);
  close(grads[0]![0]!, 1.5);
  close(grads[0]![1]!, 2);
  close(grads[1]![0]!, 6);
});

test('clipGradNorm leaves gradients below the max norm alone', () => {
  const grads = [new Float32Array([0.3, 0.4])];
  close(clipGradNorm(grads, 1), 0.5);
  assert.deepEqual([...grads[0]!], [...new Float32Array([0.3, 0.4])]);
});

test('optimisers check gradient counts and sizes', () => {
  const adam = new Adam([new Float32Array(2)]);
  assert.throws(() => adam.step([]), /0 gradients for 1 parameters/);
  assert.throws(() => adam.step([new Float32Array(3)]), /gradient 0 has 3 elements, parameter has 2/);
});
