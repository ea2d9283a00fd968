// One finite-difference check per gradient rule (and per composite op), in float64. The
// last test fails when a rule of GRADIENTS has no case here that differentiates through it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GRADIENTS } from '../../../runtime/tensor/gradients.js';
import { Graph } from '../../../runtime/tensor/graph.js';
import * as nn from '../../../runtime/tensor/nn.js';
import { type GradCase, type Sampler, awayFromZero, checkGradients, differentiatedOps, distinct, positive } from './gradcheck.js';

const int64 = (g: Graph, values: number[], shape: number[]) => g.const(values, { dtype: 'int64', shape });
const bool = (g: Graph, values: number[], shape: number[]) => g.const(values, { dtype: 'bool', shape });

/** Inputs named in `which` are positive, the rest away from zero. */
const positiveFor = (...which: string[]): Sampler => (name, size, random) =>
  (which.includes(name) ? positive : awayFromZero)(name, size, random);

/** Values in ±[0.2, 2] that keep 0.05 away from the clip bounds -0.5 and 0.7. */
const awayFromBounds: Sampler = (name, size, random) =>
  awayFromZero(name, size, random).map((v) => (Math.abs(v + 0.5) < 0.05 || Math.abs(v - 0.7) < 0.05 ? v + 0.1 : v));

/** Min/Max inputs: 'a' and 'b' from one pool of distinct values, so they never tie. */
const noTies: Sampler = (name, size, random) => {
  const pool = distinct(name, 2 * size, random);
  return name === 'a' ? pool.slice(0, size) : pool.slice(size);
};

const cases: Record<string, GradCase> = {
  Add: { inputs: { a: [2, 3], b: [2, 3] }, build: (g, { a, b }) => g.add(a!, b!) },
  'Add broadcast [2,3] + [3]': { inputs: { a: [2, 3], b: [3] }, build: (g, { a, b }) => g.add(a!, b!) },
  Sub: { inputs: { a: [2, 3], b: [2, 1] }, build: (g, { a, b }) => g.sub(a!, b!) },
  Mul: { inputs: { a: [2, 3], b: [1, 3] }, build: (g, { a, b }) => g.mul(a!, b!) },
  Div: { inputs: { a: [2, 3], b: [2, 1] }, build: (g, { a, b }) => g.div(a!, b!), sample: positiveFor('b') },
  Neg: { inputs: { x: [2, 3] }, build: (g, { x }) => g.neg(x!) },
  Exp: { inputs: { x: [2, 3] }, build: (g, { x }) => g.exp(x!) },
  Log: { inputs: { x: [2, 3] }, build: (g, { x }) => g.log(x!), sample: positive },
  Sqrt: { inputs: { x: [2, 3] }, build: (g, { x }) => g.sqrt(x!), sample: positive },
  Pow: { inputs: { a: [2, 3], b: [3] }, build: (g, { a, b }) => g.pow(a!, b!), sample: positiveFor('a') },
  'Pow with a constant exponent': { inputs: { a: [2, 3] }, build: (g, { a }) => g.pow(a!, 3) },
  Tanh: { inputs: { x: [2, 3] }, build: (g, { x }) => g.tanh(x!) },
  Sigmoid: { inputs: { x: [2, 3] }, build: (g, { x }) => g.sigmoid(x!) },
  Relu: { inputs: { x: [2, 3] }, build: (g, { x }) => g.relu(x!) },
  Softplus: { inputs: { x: [2, 3] }, build: (g, { x }) => g.softplus(x!) },
  Abs: { inputs: { x: [2, 3] }, build: (g, { x }) => g.abs(x!) },
  Square: { inputs: { x: [2, 3] }, build: (g, { x }) => g.square(x!) },
  Identity: { inputs: { x: [2, 3] }, build: (g, { x }) => g.identity(x!) },
  'Sign (zero gradient)': { inputs: { x: [2, 3] }, build: (g, { x }) => g.add(g.sign(x!), x!) },
  Softmax: { inputs: { x: [2, 4] }, build: (g, { x }) => g.softmax(x!) },
  'Softmax on axis 0': { inputs: { x: [3, 2] }, build: (g, { x }) => g.softmax(x!, 0) },
  'Softmax over the last axis of [B, H, T, T]': { inputs: { x: [2, 2, 3, 3] }, build: (g, { x }) => g.softmax(x!) },
  // Causal masks: a [T, T] condition (or additive mask) broadcast over batch and heads.
  'Softmax with a causal mask through Where': {
    inputs: { x: [2, 2, 3, 3] },
    build: (g, { x }) => g.softmax(g.where(bool(g, [1, 0, 0, 1, 1, 0, 1, 1, 1], [3, 3]), x!, -1e9)),
  },
  'Softmax with an additive causal mask': {
    inputs: { x: [2, 2, 3, 3] },
    build: (g, { x }) => g.softmax(g.add(x!, g.const([0, -1e9, -1e9, 0, 0, -1e9, 0, 0, 0], { dtype: 'float64', shape: [3, 3] }))),
  },
  LogSoftmax: { inputs: { x: [2, 4] }, build: (g, { x }) => g.logSoftmax(x!) },
  ReduceSum: { inputs: { x: [2, 3, 2] }, build: (g, { x }) => g.reduceSum(x!, { axes: [1] }) },
  'ReduceSum keepdims': { inputs: { x: [2, 3, 2] }, build: (g, { x }) => g.reduceSum(x!, { axes: [0, 2], keepdims: true }) },
  'ReduceSum over all axes': { inputs: { x: [2, 3] }, build: (g, { x }) => g.reduceSum(x!) },
  ReduceMean: { inputs: { x: [2, 3, 2] }, build: (g, { x }) => g.reduceMean(x!, { axes: [-1] }) },
  'ReduceMean over all axes': { inputs: { x: [2, 3] }, build: (g, { x }) => g.mean(x!) },
  ReduceMax: { inputs: { x: [3, 4] }, build: (g, { x }) => g.reduceMax(x!, { axes: [1] }), sample: distinct },
  'ReduceMax keepdims': { inputs: { x: [3, 4] }, build: (g, { x }) => g.reduceMax(x!, { axes: [0], keepdims: true }), sample: distinct },
  MatMul: { inputs: { a: [2, 3], b: [3, 4] }, build: (g, { a, b }) => g.matmul(a!, b!) },
  'MatMul batched with broadcast': { inputs: { a: [2, 2, 3], b: [3, 4] }, build: (g, { a, b }) => g.matmul(a!, b!) },
  'MatMul of attention scores [B, H, T, D] @ [B, H, D, T]': { inputs: { q: [2, 2, 3, 2], k: [2, 2, 2, 3] }, build: (g, { q, k }) => g.matmul(q!, k!) },
  'MatMul broadcasting size-1 batch dims': { inputs: { a: [2, 1, 3, 2], b: [1, 2, 2, 4] }, build: (g, { a, b }) => g.matmul(a!, b!) },
  'MatMul of a 4-D input with a 2-D weight': { inputs: { x: [2, 2, 2, 3], w: [3, 2] }, build: (g, { x, w }) => g.matmul(x!, w!) },
  Gemm: {
    inputs: { a: [3, 2], b: [4, 3], c: [4] },
    build: (g, { a, b, c }) => g.gemm(a!, b!, c!, { transA: true, transB: true, alpha: 0.7, beta: 1.3 }),
  },
  Linear: { inputs: { x: [2, 3], w: [3, 4], b: [4] }, build: (g, { x, w, b }) => g.linear(x!, w!, b!) },
  // Repeated indices check that the scatter accumulates.
  GatherElements: {
    inputs: { x: [3, 4] },
    build: (g, { x }) => g.gatherElements(x!, int64(g, [0, 0, 3, 1, 2, 2], [3, 2]), 1),
  },
  // Repeated indices: both updates land in data, and each update's gradient is read back.
  ScatterElements: {
    inputs: { data: [3, 4], updates: [3, 2] },
    build: (g, { data, updates }) => g.scatterAdd(data!, int64(g, [1, 1, 0, 3, 2, 0], [3, 2]), updates!, 1),
  },
  gatherLast: { inputs: { x: [3, 4] }, build: (g, { x }) => g.gatherLast(x!, int64(g, [3, 0, 2], [3])) },
  Clip: { inputs: { x: [3, 4] }, build: (g, { x }) => g.clip(x!, -0.5, 0.7), sample: awayFromBounds },
  'Clip with tensor bounds': {
    inputs: { x: [2, 3], lo: [3], hi: [2, 1] },
    build: (g, { x, lo, hi }) => g.clip(x!, g.sub(lo!, 1.5), g.add(hi!, 1.5)),
    sample: (name, size, random) => (name === 'x' ? distinct : awayFromZero)(name, size, random).map((v) => (name === 'x' ? v * 1.7 : v)),
  },
  Min: { inputs: { a: [2, 3], b: [2, 3] }, build: (g, { a, b }) => g.min(a!, b!), sample: noTies },
  Max: { inputs: { a: [2, 3], b: [2, 3] }, build: (g, { a, b }) => g.max(a!, b!), sample: noTies },
  Where: {
    inputs: { a: [2, 3], b: [3] },
    build: (g, { a, b }) => g.where(bool(g, [1, 0, 1, 0, 0, 1], [2, 3]), a!, b!),
  },
  'Where with a broadcast condition': {
    inputs: { a: [3, 1], b: [4] },
    build: (g, { a, b }) => g.where(bool(g, [1, 0, 0, 1, 1, 1, 0, 0], [2, 1, 4]), a!, b!),
  },
  LayerNormalization: {
    inputs: { x: [2, 3, 4], scale: [4], bias: [4] },
    build: (g, { x, scale, bias }) => g.layerNorm(x!, scale!, bias!),
  },
  gelu: { inputs: { x: [2, 3] }, build: (g, { x }) => g.gelu(x!) },
  // Conv has no float64 kernel in onnxruntime's CPU: float32 with a step of 1 (gradcheck.ts).
  // Stride 2 with padding 1; then without padding, where the weight gradient's Conv is cropped.
  'Conv with stride 2 and padding 1': {
    inputs: { x: [2, 2, 5, 5], w: [3, 2, 3, 3], b: [3] },
    build: (g, { x, w, b }) => g.conv2d(x!, w!, b!, { stride: 2, pad: 1 }),
    dtype: 'float32',
    points: 1,
  },
  'Conv with stride 2, no padding, an uneven fit': {
    inputs: { x: [2, 1, 6, 6], w: [2, 1, 3, 3] },
    build: (g, { x, w }) => g.conv2d(x!, w!, undefined, { stride: 2 }),
    dtype: 'float32',
    points: 1,
  },
  'Conv 4x4 stride 2 on a rectangle of channels (NatureCNN\'s second layer)': {
    inputs: { x: [1, 3, 8, 8], w: [2, 3, 4, 4], b: [2] },
    build: (g, { x, w, b }) => g.conv2d(x!, w!, b!, { stride: 2 }),
    dtype: 'float32',
    points: 1,
  },
  // IMPALA's pool: overlapping 3x3 windows, stride 2, padding 1; distinct values never tie.
  MaxPool: {
    inputs: { x: [2, 2, 5, 5] },
    build: (g, { x }) => g.maxPool2d(x!, 3, { stride: 2, pad: 1 }),
    sample: distinct,
  },
  'MaxPool 2x2 without overlap': { inputs: { x: [1, 2, 4, 6] }, build: (g, { x }) => g.maxPool2d(x!, 2), sample: distinct },
  // An embedding lookup [5, 3] at [2, 3] indices; repeated rows (4 also as -1) accumulate their gradients.
  Gather: { inputs: { table: [5, 3] }, build: (g, { table }) => g.gather(table!, int64(g, [4, 0, -1, 2, 0, 4], [2, 3])) },
  ScatterND: {
    inputs: { data: [4, 3], updates: [2, 2, 3] },
    build: (g, { data, updates }) => g.scatterAddRows(data!, int64(g, [3, 1, 1, 0], [2, 2]), updates!),
  },
  'split heads [B, T, H*D] -> [B, H, T, D]': {
    inputs: { x: [2, 3, 6] },
    build: (g, { x }) => g.transpose(g.reshape(x!, [0, 0, 2, 3]), [0, 2, 1, 3]),
  },
  'merge heads [B, H, T, D] -> [B, T, H*D]': {
    inputs: { x: [2, 2, 3, 3] },
    build: (g, { x }) => g.reshape(g.transpose(x!, [0, 2, 1, 3]), [0, 0, 6]),
  },
  Concat: { inputs: { a: [2, 1], b: [2, 3] }, build: (g, { a, b }) => g.concat([a!, b!, a!], 1) },
  Slice: { inputs: { x: [3, 5] }, build: (g, { x }) => g.slice(x!, 1, 1, -1) },
  Reshape: { inputs: { x: [2, 6] }, build: (g, { x }) => g.reshape(x!, [3, -1, 2]) },
  Transpose: { inputs: { x: [2, 3, 4] }, build: (g, { x }) => g.transpose(x!, [1, 2, 0]) },
  Unsqueeze: { inputs: { x: [2, 3] }, build: (g, { x }) => g.unsqueeze(x!, [0, 2]) },
  Squeeze: { inputs: { x: [2, 1, 3] }, build: (g, { x }) => g.squeeze(x!, [1]) },
  // Through float32 and back: exact with dyadic values and a power-of-two step, so central
  // differences see the pass-through gradient rounded to nothing.
  Cast: {
    inputs: { x: [4] },
    build: (g, { x }) => g.cast(g.mul(g.cast(x!, 'float32'), g.const([0.5, -1.25, 2, 3.75], { dtype: 'float32' })), 'float64'),
    sample: (_name, size, random) => Float64Array.from({ length: size }, () => (Math.floor(random() * 200) - 100) / 64),
    step: 2 ** -10,
  },
  // A closed form standing in for the derived gradient (here of x^3, as 3 x^2).
  withGradient: {
    inputs: { x: [2, 3] },
    build: (g, { x }) => g.withGradient(g.mul(g.square(x!), g.stopGradient(x!)), [x!], (dy) => [g.mul(dy, g.mul(g.square(x!), 3))]),
  },
  Expand: { inputs: { x: [3, 1], like: [3, 4] }, build: (g, { x, like }) => g.mul(g.expandAs(x!, like!), like!) },
  logSumExp: { inputs: { x: [2, 4] }, build: (_g, { x }) => nn.logSumExp(x!) },
  mse: { inputs: { p: [4, 2], t: [4, 2] }, build: (_g, { p, t }) => nn.mse(p!, t!) },
  huber: {
    inputs: { x: [2, 4] },
    build: (_g, { x }) => nn.huber(x!, 1),
    sample: (n, s, r) => awayFromZero(n, s, r).map((v) => (Math.abs(Math.abs(v) - 1) < 0.05 ? v * 1.2 : v)),
  },
  gaussianLogProb: {
    inputs: { x: [3, 2], mean: [3, 2], logStd: [2] },
    build: (_g, { x, mean, logStd }) => nn.gaussianLogProb(x!, mean!, logStd!),
  },
  gaussianEntropy: { inputs: { logStd: [3, 2] }, build: (_g, { logStd }) => nn.gaussianEntropy(logStd!) },
};

for (const [name, c] of Object.entries(cases)) {
  test(`gradient of ${name} matches finite differences`, () => checkGradients(c));
}

test('every rule of GRADIENTS has a finite-difference case above', () => {
  const covered = new Set(Object.values(cases).flatMap((c) => [...differentiatedOps(c)]));
  const missing = Object.keys(GRADIENTS).filter((op) => !covered.has(op));
  assert.deepEqual(missing, [], `add a case that differentiates through: ${missing.join(', ')}`);
});
