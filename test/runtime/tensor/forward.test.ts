// Forward values of the ops against plain JS (gradients are checked in gradients.test.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Graph } from '../../../runtime/tensor/graph.js';
import * as nn from '../../../runtime/tensor/nn.js';
import { Session } from '../../../runtime/tensor/session.js';
import type { Tensor } from '../../../runtime/tensor/tensor.js';

/** Evaluates one tensor built from a float64 input x [2, 3] = [[1, -2, 3], [-4, 5, -6]]. */
async function evaluate(build: (g: Graph, x: Tensor) => Tensor): Promise<{ dims: readonly number[]; values: number[] }> {
  const g = new Graph();
  const x = g.input('x', 'float64', [2, 3]);
  const y = build(g, x);
  const s = await Session.create(g, { y });
  const out = (await s.runTensors({ x: new Float64Array([1, -2, 3, -4, 5, -6]) })).y!;
  await s.release();
  return { dims: out.dims, values: Array.from(out.data as ArrayLike<number | bigint>, Number) };
}

async function expectValues(build: (g: Graph, x: Tensor) => Tensor, dims: number[], values: number[]) {
  const out = await evaluate(build);
  assert.deepEqual(out.dims, dims);
  assert.equal(out.values.length, values.length);
  out.values.forEach((v, i) => assert.ok(Math.abs(v - values[i]!) < 1e-12 * Math.max(1, Math.abs(values[i]!)), `[${i}] ${v} vs ${values[i]}`));
}

const X = [
  [1, -2, 3],
  [-4, 5, -6],
];
const softmaxRow = (r: number[]) => {
  const m = Math.max(...r);
  const e = r.map((v) => Math.exp(v - m));
  const s = e.reduce((a, b) => a + b);
  return e.map((v) => v / s);
};

test('elementwise unary ops', async () => {
  const flat = X.flat();
  await expectValues((g, x) => g.neg(x), [2, 3], flat.map((v) => -v));
  await expectValues((g, x) => g.abs(x), [2, 3], flat.map(Math.abs));
  await expectValues((g, x) => g.sign(x), [2, 3], flat.map(Math.sign));
  await expectValues((g, x) => g.relu(x), [2, 3], flat.map((v) => Math.max(v, 0)));
  await expectValues((g, x) => g.sigmoid(x), [2, 3], flat.map((v) => 1 / (1 + Math.exp(-v))));
  await expectValues((g, x) => g.tanh(x), [2, 3], flat.map(Math.tanh));
  await expectValues((g, x) => g.softplus(x), [2, 3], flat.map((v) => Math.log1p(Math.exp(v))));
  await expectValues((g, x) => g.exp(x), [2, 3], flat.map(Math.exp));
  await expectValues((g, x) => g.log(g.abs(x)), [2, 3], flat.map((v) => Math.log(Math.abs(v))));
  await expectValues((g, x) => g.sqrt(g.abs(x)), [2, 3], flat.map((v) => Math.sqrt(Math.abs(v))));
  await expectValues((g, x) => g.square(x), [2, 3], flat.map((v) => v * v));
  await expectValues((g, x) => g.pow(g.abs(x), 1.5), [2, 3], flat.map((v) => Math.abs(v) ** 1.5));
});

test('binary ops broadcast numpy-style', async () => {
  const row = [10, 20, 30];
  await expectValues((g, x) => g.add(x, g.const(row, { dtype: 'float64' })), [2, 3], X.flatMap((r) => r.map((v, j) => v + row[j]!)));
  await expectValues((g, x) => g.sub(2, x), [2, 3], X.flat().map((v) => 2 - v));
  await expectValues((g, x) => g.div(x, g.const([2, 4], { dtype: 'float64', shape: [2, 1] })), [2, 3], [0.5, -1, 1.5, -1, 1.25, -1.5]);
  await expectValues((g, x) => g.min(x, 0), [2, 3], X.flat().map((v) => Math.min(v, 0)));
  await expectValues((g, x) => g.max(x, 0), [2, 3], X.flat().map((v) => Math.max(v, 0)));
  await expectValues((g, x) => g.clip(x, -3, 2), [2, 3], X.flat().map((v) => Math.min(Math.max(v, -3), 2)));
  await expectValues((g, x) => g.clip(x, undefined, 2), [2, 3], X.flat().map((v) => Math.min(v, 2)));
});

test('comparisons, logic and where', async () => {
  const flat = X.flat();
  await expectValues((g, x) => g.less(x, 1), [2, 3], flat.map((v) => +(v < 1)));
  await expectValues((g, x) => g.lessOrEqual(x, 1), [2, 3], flat.map((v) => +(v <= 1)));
  await expectValues((g, x) => g.greater(x, 1), [2, 3], flat.map((v) => +(v > 1)));
  await expectValues((g, x) => g.greaterOrEqual(x, 1), [2, 3], flat.map((v) => +(v >= 1)));
  await expectValues((g, x) => g.equal(x, 3), [2, 3], flat.map((v) => +(v === 3)));
  await expectValues((g, x) => g.and(g.greater(x, -3), g.less(x, 4)), [2, 3], flat.map((v) => +(v > -3 && v < 4)));
  await expectValues((g, x) => g.or(g.less(x, -3), g.greater(x, 4)), [2, 3], flat.map((v) => +(v < -3 || v > 4)));
  await expectValues((g, x) => g.not(g.greater(x, 0)), [2, 3], flat.map((v) => +!(v > 0)));
  await expectValues((g, x) => g.where(g.greater(x, 0), x, 0), [2, 3], flat.map((v) => (v > 0 ? v : 0)));
});

test('softmax and logSoftmax along an axis', async () => {
  await expectValues((g, x) => g.softmax(x), [2, 3], X.flatMap(softmaxRow));
  await expectValues((g, x) => g.logSoftmax(x), [2, 3], X.flatMap((r) => softmaxRow(r).map(Math.log)));
  const cols = softmaxRow([1, -4]).concat(softmaxRow([-2, 5]), softmaxRow([3, -6]));
  await expectValues((g, x) => g.softmax(x, 0), [2, 3], [cols[0]!, cols[2]!, cols[4]!, cols[1]!, cols[3]!, cols[5]!]);
});

test('reductions with axes and keepdims', async () => {
  await expectValues((g, x) => g.reduceSum(x, { axes: [1] }), [2], [2, -5]);
  await expectValues((g, x) => g.reduceSum(x, { axes: [0], keepdims: true }), [1, 3], [-3, 3, -3]);
  await expectValues((g, x) => g.reduceSum(x), [], [-3]);
  await expectValues((g, x) => g.reduceMean(x, { axes: [-1] }), [2], [2 / 3, -5 / 3]);
  await expectValues((g, x) => g.mean(x), [], [-0.5]);
  await expectValues((g, x) => g.reduceMax(x, { axes: [1], keepdims: true }), [2, 1], [3, 5]);
  await expectValues((g, x) => g.argMax(x), [2], [2, 1]);
  await expectValues((g, x) => g.argMax(x, 0, true), [1, 3], [0, 1, 0]);
});

test('matmul, gemm and linear', async () => {
  const w = [1, 2, 3, 4, 5, 6]; // [3, 2]
  const xw = [1 * 1 - 2 * 3 + 3 * 5, 1 * 2 - 2 * 4 + 3 * 6, -4 * 1 + 5 * 3 - 6 * 5, -4 * 2 + 5 * 4 - 6 * 6];
  await expectValues((g, x) => g.matmul(x, g.const(w, { dtype: 'float64', shape: [3, 2] })), [2, 2], xw);
  await expectValues((g, x) => g.linear(x, g.const(w, { dtype: 'float64', shape: [3, 2] }), g.const([1, -1], { dtype: 'float64' })), [2, 2], xw.map((v, i) => v + (i % 2 ? -1 : 1)));
  // 2 x x^T through transB
  await expectValues((g, x) => g.gemm(x, x, undefined, { transB: true, alpha: 2 }), [2, 2], [28, -64, -64, 154]);
});

test('indexing: gatherElements, gatherLast', async () => {
  const idx = (g: Graph, v: number[], shape: number[]) => g.const(v, { dtype: 'int64', shape });
  await expectValues((g, x) => g.gatherLast(x, idx(g, [2, 0], [2])), [2], [3, -4]);
  await expectValues((g, x) => g.gatherElements(x, idx(g, [1, 1, 0, 0, 0, 1], [2, 3]), 0), [2, 3], [-4, 5, 3, 1, -2, -6]);
});

test('gather (an embedding lookup) and scatterAddRows', async () => {
  const idx = (g: Graph, v: number[], shape: number[]) => g.const(v, { dtype: 'int64', shape });
  await expectValues((g, x) => g.gather(x, idx(g, [1, 0, 1], [1, 3])), [1, 3, 3], [...X[1]!, ...X[0]!, ...X[1]!]);
  // Row 1 gets two updates, row 0 one.
  const updates = (g: Graph) => g.const([1, 2, 3, 10, 20, 30, 100, 200, 300], { dtype: 'float64', shape: [3, 3] });
  await expectValues((g, x) => g.scatterAddRows(x, idx(g, [1, 0, 1], [3]), updates(g)), [2, 3], [11, 18, 33, 97, 207, 297]);
});

test('layerNorm and gelu', async () => {
  const scale = [0.5, 1, 2];
  const bias = [0, 1, -1];
  const normalised = X.flatMap((r) => {
    const mean = r.reduce((a, b) => a + b) / r.length;
    const variance = r.reduce((a, v) => a + (v - mean) ** 2, 0) / r.length;
    return r.map((v, j) => ((v - mean) / Math.sqrt(variance + Math.fround(1e-5))) * scale[j]! + bias[j]!);
  });
  const f64 = (g: Graph, v: number[]) => g.const(v, { dtype: 'float64' });
  await expectValues((g, x) => g.layerNorm(x, f64(g, scale), f64(g, bias)), [2, 3], normalised);
  const gelu = (v: number) => 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v ** 3)));
  await expectValues((g, x) => g.gelu(x), [2, 3], X.flat().map(gelu));
});

test('shape ops: reshape, transpose, concat, slice, squeeze, unsqueeze, expand', async () => {
  const flat = X.flat();
  await expectValues((g, x) => g.reshape(x, [3, 2]), [3, 2], flat);
  await expectValues((g, x) => g.reshape(x, [0, -1, 1]), [2, 3, 1], flat);
  await expectValues((g, x) => g.transpose(x), [3, 2], [1, -4, -2, 5, 3, -6]);
  await expectValues((g, x) => g.concat([x, x], 0), [4, 3], [...flat, ...flat]);
  await expectValues((g, x) => g.concat([x, g.slice(x, 1, 0, 1)], 1), [2, 4], [1, -2, 3, 1, -4, 5, -6, -4]);
  await expectValues((g, x) => g.slice(x, 1, -2), [2, 2], [-2, 3, 5, -6]);
  await expectValues((g, x) => g.squeeze(g.unsqueeze(x, [0, -1]), [0, 3]), [2, 3], flat);
  await expectValues((g, x) => g.unsqueeze(x, [1]), [2, 1, 3], flat);
  await expectValues((g, x) => g.expandAs(g.slice(x, 0, 0, 1), x), [2, 3], [1, -2, 3, 1, -2, 3]);
  await expectValues((g, x) => g.cast(g.cast(g.mul(x, 0.75), 'int64'), 'float64'), [2, 3], flat.map((v) => Math.trunc(v * 0.75)));
  await expectValues((g, x) => g.zerosLike(x), [2, 3], [0, 0, 0, 0, 0, 0]);
  await expectValues((g, x) => g.cast(g.shapeOf(x), 'float64'), [2], [2, 3]);
});

test('losses and distributions', async () => {
  const LOG_2PI = Math.log(2 * Math.PI);
  await expectValues((g, x) => nn.mse(x, 1), [], [X.flat().reduce((s, v) => s + (v - 1) ** 2, 0) / 6]);
  await expectValues((g, x) => nn.huber(g.mul(x, 0.25), 1), [2, 3], X.flat().map((v) => {
    const a = Math.abs(v * 0.25);
    return a < 1 ? 0.5 * a * a : a - 0.5;
  }));
  await expectValues((g, x) => nn.logSumExp(g.mul(x, 1000)), [2], X.map((r) => {
    const m = Math.max(...r.map((v) => v * 1000));
    return m + Math.log(r.reduce((s, v) => s + Math.exp(v * 1000 - m), 0));
  }));
  const mean = [0.5, 0, -1];
  const logStd = [0, -0.5, 0.25];
  await expectValues(
    (g, x) => nn.gaussianLogProb(x, g.const(mean, { dtype: 'float64' }), g.const(logStd, { dtype: 'float64' })),
    [2],
    X.map((r) => r.reduce((s, v, j) => s - 0.5 * ((v - mean[j]!) / Math.exp(logStd[j]!)) ** 2 - logStd[j]! - 0.5 * LOG_2PI, 0)),
  );
  await expectValues((g, x) => nn.gaussianEntropy(g.mul(x, 0.1)), [2], X.map((r) => r.reduce((s, v) => s + 0.1 * v + 0.5 * (1 + LOG_2PI), 0)));
});

test('shape inference errors name the op and the shapes', () => {
  const g = new Graph();
  const a = g.input('a', 'float32', ['B', 3]);
  const b = g.input('b', 'float32', [4]);
  assert.throws(() => g.add(a, b), /Add: shapes \[B, 3\] and \[4\] do not broadcast/);
  assert.throws(() => g.matmul(a, g.param('w', [4, 2])), /MatMul: inner dimensions differ: \[B, 3\] @ \[4, 2\]/);
  assert.throws(() => g.matmul(a, b), /MatMul: both operands need rank >= 2/);
  assert.throws(() => g.add(a, g.input('c', 'float64', [3])), /Add: dtypes differ/);
  assert.throws(() => g.reduceSum(a, { axes: [2] }), /ReduceSum: axis 2 is out of range for rank 2/);
  assert.throws(() => g.reshape(g.param('p', [2, 3]), [4, 2]), /Reshape: cannot reshape \[2, 3\] to \[4, 2\]/);
  assert.throws(() => g.squeeze(a, [0]), /Squeeze: axis 0 of Input 'a' float32 \[B, 3\] is not 1/);
  assert.throws(() => g.input('a', 'float32', [1]), /name already declared/);
  assert.throws(() => g.exp(new Graph().input('z', 'float32', [1])), /belongs to another graph/);
  assert.throws(() => g.exp(g.argMax(a)), /Exp: needs a float tensor, got ArgMax #\d+ int64 \[B\]/);
  assert.throws(() => g.layerNorm(a, g.param('s', [4]), g.param('t', [3])), /LayerNormalization: scale and bias must be \[3\]/);
  assert.throws(() => g.gather(a, g.input('i', 'float32', [2])), /Gather: needs a int64 tensor/);
  const rows = g.input('rows', 'int64', [2]);
  assert.throws(() => g.scatterAddRows(g.param('e', [5, 3]), rows, g.param('u', [2, 4])), /ScatterND: updates must be \[2, 3\]/);
});

test('shape inference keeps symbolic dims', () => {
  const g = new Graph();
  const x = g.input('obs', 'float32', ['B', 4]);
  const h = g.linear(x, g.param('w', [4, 8]), g.param('b', [8]));
  assert.deepEqual(h.shape, ['B', 8]);
  assert.deepEqual(g.reshape(h, [0, 2, -1]).shape, ['B', 2, 4]);
  assert.deepEqual(g.reshape(h, [-1]).shape.length, 1);
  assert.deepEqual(g.reduceMean(h, { axes: [0] }).shape, [8]);
  assert.deepEqual(g.concat([h, h], 1).shape, ['B', 16]);
  assert.deepEqual(g.gatherLast(h, g.input('a', 'int64', ['B'])).shape, ['B']);
  assert.deepEqual(g.gather(g.param('wte', [16, 8]), g.input('tokens', 'int64', ['B', 'T'])).shape, ['B', 'T', 8]);
  assert.deepEqual(g.layerNorm(h, g.param('s', [8]), g.param('t', [8])).shape, ['B', 8]);
});
