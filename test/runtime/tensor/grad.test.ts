// The backward walk: chain rule through reused nodes, broadcasting, StopGradient,
// missing rules, unreachable targets, symbolic batch dims.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { grad, paramsReachedByGradient } from '../../../runtime/tensor/grad.js';
import { Graph } from '../../../runtime/tensor/graph.js';
import { Session } from '../../../runtime/tensor/session.js';
import { checkGradients } from './gradcheck.js';

test('chain rule through a 2-layer MLP with reused nodes matches finite differences', () =>
  checkGradients({
    inputs: { x: [5, 3], w1: [3, 4], b1: [4], w2: [4, 2], b2: [2], y: [5, 2] },
    build: (g, { x, w1, b1, w2, b2, y }) => {
      const h = g.tanh(g.linear(x!, w1!, b1!));
      const out = g.linear(h, w2!, b2!);
      const mse = g.mean(g.square(g.sub(out, y!)));
      // w1 and h are used twice: their gradients must be summed.
      const l2 = g.mul(g.reduceSum(g.square(w1!)), 0.1);
      const act = g.mul(g.mean(g.mul(h, h)), 0.3);
      return g.add(g.add(mse, l2), act);
    },
  }));

test('a tensor used twice by one op (x * x) gets both gradients', async () => {
  const g = new Graph();
  const x = g.input('x', 'float64', [3]);
  const [dx] = grad(g.reduceSum(g.mul(x, x)), [x]);
  const s = await Session.create(g, { dx: dx! });
  const out = await s.runTensors({ x: new Float64Array([1, -2, 3]) });
  assert.deepEqual([...(out.dx!.data as Float64Array)], [2, -4, 6]);
});

test('broadcast gradients are summed back to each input shape', async () => {
  const g = new Graph();
  const a = g.input('a', 'float64', [2, 3]);
  const b = g.input('b', 'float64', [3]);
  const c = g.input('c', 'float64', [2, 1]);
  const s0 = g.input('s', 'float64', []);
  const y = g.mul(g.add(g.add(a, b), c), s0);
  const grads = grad(g.reduceSum(y), [a, b, c, s0]);
  assert.deepEqual(grads.map((t) => t.shape), [[2, 3], [3], [2, 1], []]);
  const s = await Session.create(g, { da: grads[0]!, db: grads[1]!, dc: grads[2]!, ds: grads[3]! });
  const a0 = new Float64Array([1, 2, 3, 4, 5, 6]);
  const out = await s.runTensors({ a: a0, b: new Float64Array([10, 20, 30]), c: new Float64Array([100, 200]), s: new Float64Array([2]) });
  assert.deepEqual([...(out.da!.data as Float64Array)], [2, 2, 2, 2, 2, 2]);
  assert.deepEqual([...(out.db!.data as Float64Array)], [4, 4, 4]);
  assert.deepEqual([...(out.dc!.data as Float64Array)], [6, 6]);
  // sum(a) + 2 * sum(b) + 3 * sum(c)
  assert.deepEqual([...(out.ds!.data as Float64Array)], [21 + 120 + 900]);
});

test('stopGradient passes the value but blocks the gradient', async () => {
  const g = new Graph();
  const x = g.input('x', 'float64', [3]);
  // d/dx sum(sg(x) * x) = sg(x) = x, not 2x.
  const loss = g.reduceSum(g.mul(g.stopGradient(x), x));
  const [dx] = grad(loss, [x]);
  const s = await Session.create(g, { loss, dx: dx! });
  const out = await s.runTensors({ x: new Float64Array([1, -2, 3]) });
  assert.deepEqual([...(out.loss!.data as Float64Array)], [14]);
  assert.deepEqual([...(out.dx!.data as Float64Array)], [1, -2, 3]);
});

test('a target reached only through stopGradient is unreachable', () => {
  const g = new Graph();
  const w = g.param('w', [2], 'float64');
  const loss = g.reduceSum(g.exp(g.stopGradient(w)));
  assert.throws(() => grad(loss, [w]), /does not depend on Param 'w'/);
});

test('a missing gradient rule is an error naming the op', () => {
  const g = new Graph();
  const x = g.param('x', [3], 'float64');
  const sin = g.custom('Sin', [x], { dtype: 'float64', shape: x.shape });
  const loss = g.reduceSum(g.mul(sin, 2));
  assert.throws(() => grad(loss, [x]), (e: Error) => {
    assert.match(e.message, /no gradient rule for op 'Sin'/);
    assert.match(e.message, /'x'/);
    return true;
  });
});

test('an op without a rule is fine where no gradient has to pass through it', async () => {
  const g = new Graph();
  const x = g.input('x', 'float64', [3]);
  const w = g.param('w', [3], 'float64');
  const sin = g.custom('Sin', [x], { dtype: 'float64', shape: x.shape });
  const [dw] = grad(g.reduceSum(g.mul(sin, w)), [w]);
  const s = await Session.create(g, { dw: dw! });
  const out = await s.runTensors({ x: new Float64Array([0, 1, 2]), w: new Float64Array(3) });
  const got = out.dw!.data as Float64Array;
  [0, Math.sin(1), Math.sin(2)].forEach((e, i) => assert.ok(Math.abs(got[i]! - e) < 1e-15));
});

test('withGradient: the rule gives the gradient, the model computes the value', async () => {
  const g = new Graph();
  const x = g.input('x', 'float64', [3]);
  const w = g.param('w', [3], 'float64');
  // Value x * w; a (deliberately wrong) rule saying d/dx = 10 dy and nothing for w's side.
  const y = g.withGradient(g.mul(x, w), [x], (dy) => [g.mul(dy, 10)]);
  const [dx] = grad(g.reduceSum(g.mul(y, 2)), [x]);
  const s = await Session.create(g, { y, dx: dx! });
  const out = await s.runTensors({ x: new Float64Array([1, 2, 3]), w: new Float64Array([4, 5, 6]) });
  assert.deepEqual([...(out.y!.data as Float64Array)], [4, 10, 18]);
  assert.deepEqual([...(out.dx!.data as Float64Array)], [20, 20, 20]);
  // Nothing flows into y's own ops: w is reached only through them.
  assert.throws(() => grad(g.reduceSum(y), [w]), /does not depend on Param 'w'/);
});

test('withGradient: a rule must give one gradient per target', () => {
  const g = new Graph();
  const x = g.input('x', 'float64', [2]);
  const y = g.withGradient(g.exp(x), [x], () => []);
  assert.throws(() => grad(g.reduceSum(y), [x]), /gave 0 gradients for 1 tensors/);
});

test('x * 1 is x itself, with no node', () => {
  const g = new Graph();
  const x = g.input('x', 'float32', ['B']);
  assert.equal(g.mul(x, 1), x);
  assert.equal(g.mul(g.scalar(1, 'float32'), x), x);
  // Not when the one would broadcast x to a larger shape, or change its dtype.
  assert.notEqual(g.mul(x, g.const([1, 1], { dtype: 'float32' })), x);
  assert.throws(() => g.mul(x, g.scalar(1, 'float64')), /dtypes differ/);
});

test('a parameter with no path to the loss is an error by default', () => {
  const g = new Graph();
  const w1 = g.param('w1', [2], 'float64');
  const w2 = g.param('w2', [2], 'float64');
  assert.throws(() => grad(g.reduceSum(w1), [w1, w2]), /does not depend on Param 'w2'/);
});

test("unreachable: 'zeros' gives zero gradients for unused parameters", async () => {
  const g = new Graph();
  const w1 = g.param('w1', [2], 'float64');
  const w2 = g.param('w2', [2, 3], 'float64');
  const [d1, d2] = grad(g.reduceSum(g.square(w1)), [w1, w2], { unreachable: 'zeros' });
  assert.deepEqual(d2!.shape, [2, 3]);
  const s = await Session.create(g, { d1: d1!, d2: d2! });
  const out = await s.runTensors({ w1: new Float64Array([1, 2]), w2: new Float64Array(6).fill(5) });
  assert.deepEqual([...(out.d1!.data as Float64Array)], [2, 4]);
  assert.deepEqual([...(out.d2!.data as Float64Array)], [0, 0, 0, 0, 0, 0]);
});

test('gradients do not flow through integer casts', () => {
  const g = new Graph();
  const w = g.param('w', [2], 'float64');
  const loss = g.reduceSum(g.cast(g.cast(w, 'int64'), 'float64'));
  assert.throws(() => grad(loss, [w]), /does not depend on Param 'w'/);
});

test('the loss must be a scalar', () => {
  const g = new Graph();
  const w = g.param('w', [2]);
  assert.throws(() => grad(g.exp(w), [w]), /loss must be a scalar, got shape \[2\]/);
});

test('a symbolic batch dim: one session, two batch sizes, mean divides by the run-time size', async () => {
  const g = new Graph();
  const x = g.input('x', 'float64', ['B', 2]);
  const w = g.param('w', [2, 1], 'float64');
  // loss = mean_b (x_b . w)^2, so dL/dw = (2/B) sum_b (x_b . w) x_b
  const loss = g.mean(g.square(g.matmul(x, w)));
  const [dw] = grad(loss, [w]);
  const s = await Session.create(g, { loss, dw: dw! });
  const wv = new Float64Array([0.5, -1]);
  for (const batch of [3, 7]) {
    const xv = Float64Array.from({ length: 2 * batch }, (_, i) => Math.sin(i + 1));
    const expected = [0, 0];
    for (let b = 0; b < batch; b++) {
      const dot = xv[2 * b]! * wv[0]! + xv[2 * b + 1]! * wv[1]!;
      expected[0] += (2 / batch) * dot * xv[2 * b]!;
      expected[1] += (2 / batch) * dot * xv[2 * b + 1]!;
    }
    const out = await s.runTensors({ x: xv, w: wv });
    const got = out.dw!.data as Float64Array;
    assert.deepEqual(out.dw!.dims, [2, 1]);
    expected.forEach((e, i) => assert.ok(Math.abs(got[i]! - e) < 1e-12, `batch ${batch}: ${got[i]} vs ${e}`));
  }
});

test('bias gradients sum over symbolic, anonymous and several leading batch axes', async () => {
  // Leading-axis sums are a product with a row of ones (gradients.ts); each variant must
  // give the plain sum over every batch row, at any run-time batch size.
  const g = new Graph();
  const x = g.input('x', 'float64', ['B', 3]);
  const seq = g.input('seq', 'float64', ['B', 'T', 3]);
  const flat = g.input('flat', 'float64', [-1]);
  const b = g.param('b', [3], 'float64');
  const c = g.param('c', [3], 'float64');
  const d = g.param('d', [3], 'float64');
  const w = g.const([1, 2, 3], { dtype: 'float64' });
  // An anonymous row count: [?, 3] from a reshape of a flat input.
  const anon = g.reshape(flat, [-1, 3]);
  const loss = g.add(
    g.add(g.reduceSum(g.mul(g.square(g.add(x, b)), 0.5)), g.reduceSum(g.mul(g.add(seq, c), w))),
    g.reduceSum(g.mul(g.add(anon, d), w)),
  );
  const [db, dc, dd] = grad(loss, [b, c, d]);
  const s = await Session.create(g, { db: db!, dc: dc!, dd: dd! });
  for (const [batch, steps] of [[2, 1], [5, 3]] as const) {
    const xv = Float64Array.from({ length: batch * 3 }, (_, i) => Math.sin(i));
    const bv = new Float64Array([0.1, -0.2, 0.3]);
    const out = await s.runTensors({
      x: { data: xv, dims: [batch, 3] },
      seq: { data: new Float64Array(batch * steps * 3), dims: [batch, steps, 3] },
      flat: { data: new Float64Array(batch * 3), dims: [batch * 3] },
      b: bv,
      c: new Float64Array(3),
      d: new Float64Array(3),
    });
    // d/db sum(0.5 (x + b)^2) = sum over rows of (x + b).
    const expected = [0, 1, 2].map((k) => Array.from({ length: batch }, (_, r) => xv[r * 3 + k]! + bv[k]!).reduce((p, v) => p + v, 0));
    const got = out.db!.data as Float64Array;
    expected.forEach((e, k) => assert.ok(Math.abs(got[k]! - e) < 1e-12, `batch ${batch}: db[${k}] ${got[k]} vs ${e}`));
    assert.deepEqual([...(out.dc!.data as Float64Array)], [1, 2, 3].map((v) => v * batch * steps));
    assert.deepEqual([...(out.dd!.data as Float64Array)], [1, 2, 3].map((v) => v * batch));
  }
});

test('concat along a symbolic axis slices the gradient with run-time offsets', async () => {
  const g = new Graph();
  const a = g.input('a', 'float64', ['N', 2]);
  const b = g.input('b', 'float64', ['M', 2]);
  const w = g.input('w', 'float64', ['K', 2]);
  const both = g.concat([a, b], 0);
  const [da, db] = grad(g.reduceSum(g.mul(both, w)), [a, b]);
  const s = await Session.create(g, { da: da!, db: db! });
  const wv = Float64Array.from({ length: 10 }, (_, i) => i);
  const out = await s.runTensors({
    a: { data: new Float64Array(4), dims: [2, 2] },
    b: { data: new Float64Array(6), dims: [3, 2] },
    w: { data: wv, dims: [5, 2] },
  });
  assert.deepEqual([...(out.da!.data as Float64Array)], [0, 1, 2, 3]);
  assert.deepEqual([...(out.db!.data as Float64Array)], [4, 5, 6, 7, 8, 9]);
});

test('gradients with respect to an intermediate tensor', async () => {
  const g = new Graph();
  const x = g.input('x', 'float64', [2]);
  const h = g.mul(x, 3);
  const [dh, dx] = grad(g.reduceSum(g.square(h)), [h, x]);
  const s = await Session.create(g, { dh: dh!, dx: dx! });
  const out = await s.runTensors({ x: new Float64Array([1, 2]) });
  assert.deepEqual([...(out.dh!.data as Float64Array)], [6, 12]);
  assert.deepEqual([...(out.dx!.data as Float64Array)], [18, 36]);
});

test('paramsReachedByGradient: the weights a loss trains, not those behind a StopGradient or a withGradient\'s passed-through value', () => {
  const g = new Graph();
  const x = g.input('x', 'float32', [2]);
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => g.param(name, [2]));
  const stopped = g.stopGradient(g.mul(x, b!));
  // The rule sends the gradient to d only; c reaches the value, not the gradient.
  const custom = g.withGradient(g.mul(x, c!), [d!], (dy) => [dy]);
  const loss = g.reduceSum(g.add(g.add(g.mul(x, a!), stopped), custom));
  assert.deepEqual([...paramsReachedByGradient(loss)].sort(), ['a', 'd']);
});
