// Sessions: feeds, checks, live parameters, execution providers.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Graph } from '../../../runtime/tensor/graph.js';
import { WeightStore } from '../../../runtime/tensor/weights.js';
import { Session, resetSessionTraffic, sessionTraffic } from '../../../runtime/tensor/session.js';

function affine() {
  const g = new Graph();
  const x = g.input('x', 'float32', ['B', 2]);
  const w = g.param('w', [2, 3]);
  const y = g.matmul(x, w);
  return { g, x, w, y };
}

test('a bare buffer is enough when one dim is symbolic; one session serves all batch sizes', async () => {
  const { g, y } = affine();
  const s = await Session.create(g, { y }, { weights: paramsOf([1, 0, 0, 0, 1, 0]) });
  assert.deepEqual([...(await s.run({ x: new Float32Array([1, 2]) })).y!], [1, 2, 0]);
  assert.deepEqual([...(await s.run({ x: new Float32Array([1, 2, 3, 4]) })).y!], [1, 2, 0, 3, 4, 0]);
  assert.deepEqual(s.inputNames, ['x', 'w']);
});

test('sessionTraffic counts the bytes fed (parameters from the store included) and fetched, and the runs, until reset', async () => {
  const { g, y } = affine();
  const s = await Session.create(g, { y }, { weights: paramsOf([1, 0, 0, 0, 1, 0]) });
  const baked = await Session.create(g, { y }, { bake: paramsOf([1, 0, 0, 0, 1, 0]) });
  resetSessionTraffic();
  await s.run({ x: new Float32Array([1, 2, 3, 4]) }); // x: 16 bytes, w: 24 bytes in; y: 2 x 3 floats out
  await baked.runTensors({ x: new Float32Array([1, 2]) }); // a baked parameter is not fed: 8 bytes in, 12 out
  assert.equal(sessionTraffic.runs, 2);
  assert.equal(sessionTraffic.hostToDeviceBytes, 16 + 24 + 8);
  assert.equal(sessionTraffic.deviceToHostBytes, 24 + 12);
  assert.ok(sessionTraffic.runMs > 0);
  const before = resetSessionTraffic();
  assert.equal(before.runs, 2, 'reset returns what was counted');
  assert.deepEqual({ ...sessionTraffic }, { runs: 0, hostToDeviceBytes: 0, deviceToHostBytes: 0, runMs: 0 });
});

test('feeds are read at each run: the same buffer changed, another view of it, other dims, another buffer', async () => {
  const { g, y } = affine();
  const s = await Session.create(g, { y }, { weights: paramsOf([1, 0, 0, 0, 1, 0]) });
  const buffer = new Float32Array([1, 2, 3, 4]);
  assert.deepEqual([...(await s.run({ x: buffer })).y!], [1, 2, 0, 3, 4, 0]);
  buffer[0] = 7;
  assert.deepEqual([...(await s.run({ x: buffer.subarray(0, 4) })).y!], [7, 2, 0, 3, 4, 0], 'changed in place, fed as a new view');
  assert.deepEqual([...(await s.run({ x: buffer.subarray(0, 2) })).y!], [7, 2, 0], 'fewer rows of the same buffer');
  assert.deepEqual([...(await s.run({ x: buffer.subarray(2, 4) })).y!], [3, 4, 0], 'the same size further on');
  assert.deepEqual([...(await s.run({ x: new Float32Array([5, 6]) })).y!], [5, 6, 0], 'another buffer');
});

test('runReusingOutputs writes every run into the same arrays; outputs must have static shapes', async () => {
  const g = new Graph();
  const x = g.input('x', 'float32', ['B', 2]);
  const sum = g.reduceSum(g.matmul(x, g.param('w', [2, 3])), { axes: [0] });
  const s = await Session.create(g, { sum }, { weights: paramsOf([1, 0, 0, 0, 1, 0]) });
  const first = (await s.runReusingOutputs({ x: new Float32Array([1, 2, 3, 4]) })).sum!;
  assert.deepEqual([...first], [4, 6, 0]);
  const second = (await s.runReusingOutputs({ x: new Float32Array([1, 1]) })).sum!;
  assert.equal(second, first);
  assert.deepEqual([...first], [1, 1, 0]);
  const batch = affine();
  const dynamic = await Session.create(batch.g, { y: batch.y }, { weights: paramsOf([1, 0, 0, 0, 1, 0]) });
  await assert.rejects(dynamic.runReusingOutputs({ x: new Float32Array(2) }), /output 'y' must be float32 with a static shape, got float32 \[B, 3\]/);
});

test('parameters are read live from the store: in-place updates show in the next run', async () => {
  const { g, y } = affine();
  const store = paramsOf([1, 0, 0, 0, 1, 0]);
  const s = await Session.create(g, { y }, { weights: store });
  store.get('w').data[2] = 5;
  const out = await s.run({ x: new Float32Array([1, 2]) });
  assert.deepEqual([...out.y!], [1, 2, 5]);
});

test('outputs are fresh arrays each run, safe to keep', async () => {
  const { g, y } = affine();
  const s = await Session.create(g, { y }, { weights: paramsOf([1, 0, 0, 0, 1, 0]) });
  const first = (await s.run({ x: new Float32Array([1, 2]) })).y!;
  const second = (await s.run({ x: new Float32Array([3, 4]) })).y!;
  assert.deepEqual([...first], [1, 2, 0]);
  assert.deepEqual([...second], [3, 4, 0]);
});

test('feeds are checked: dtype, rank, fixed dims, symbol agreement, size, presence', async () => {
  const g = new Graph();
  const a = g.input('a', 'float32', ['B', 2]);
  const b = g.input('b', 'float32', ['B']);
  const s = await Session.create(g, { y: g.add(g.reduceSum(a, { axes: [1] }), b) });
  const ok = { a: new Float32Array(4), b: new Float32Array(2) };
  assert.deepEqual([...(await s.run(ok)).y!], [0, 0]);
  await assert.rejects(s.run({ ...ok, a: new Float64Array(4) }), /input 'a' expects float32 \[B, 2\], got float64 \[2, 2\]: wrong element type/);
  await assert.rejects(s.run({ ...ok, a: { data: new Float32Array(4), dims: [4] } }), /wrong rank/);
  await assert.rejects(s.run({ ...ok, a: { data: new Float32Array(6), dims: [2, 3] } }), /dim 1 must be 2/);
  await assert.rejects(s.run({ ...ok, b: new Float32Array(3) }), /'B' is 2 in another input/);
  await assert.rejects(s.run({ ...ok, a: { data: new Float32Array(5), dims: [2, 2] } }), /5 elements for 4 places/);
  await assert.rejects(s.run({ a: ok.a }), /missing input 'b' \(float32 \[B\]\)/);
});

test('a missing parameter without a store is named', async () => {
  const { g, y } = affine();
  const s = await Session.create(g, { y });
  await assert.rejects(s.run({ x: new Float32Array(2) }), /missing parameter 'w'/);
});

test('run() wants float32 outputs; runTensors() returns any dtype with dims', async () => {
  const g = new Graph();
  const x = g.input('x', 'float32', ['B', 3]);
  const s = await Session.create(g, { best: g.argMax(x), big: g.greater(x, 0.5) });
  const feeds = { x: new Float32Array([0.1, 0.9, 0.3, 0.7, 0.2, 0.1]) };
  await assert.rejects(s.run(feeds), /output 'best' is int64, not float32; use runTensors/);
  const out = await s.runTensors(feeds);
  assert.deepEqual(out.best, { dtype: 'int64', dims: [2], data: new BigInt64Array([1n, 0n]) });
  assert.deepEqual([...(out.big!.data as Uint8Array)], [0, 1, 0, 1, 0, 0]);
});

test('float16 feeds and fetches are their bits (Uint16Array): through an Identity and a cast to float32 and back, exactly', async () => {
  const g = new Graph();
  const x = g.input('x', 'float16', ['B']);
  const single = g.cast(x, 'float32');
  const s = await Session.create(g, { same: x, single, back: g.cast(single, 'float16') });
  // 1, -2, the largest float16, the smallest normal and subnormal, -0, infinity, a NaN, 1 + 2^-10.
  const bits = Uint16Array.of(0x3c00, 0xc000, 0x7bff, 0x0400, 0x0001, 0x8000, 0x7c00, 0x7e00, 0x3c01);
  resetSessionTraffic();
  const out = await s.runTensors({ x: bits });
  assert.deepEqual(out.same, { dtype: 'float16', dims: [9], data: bits });
  assert.deepEqual(out.back, { dtype: 'float16', dims: [9], data: bits });
  assert.deepEqual([...(out.single!.data as Float32Array)], [1, -2, 65504, 2 ** -14, 2 ** -24, -0, Infinity, NaN, 1 + 2 ** -10]);
  assert.deepEqual([sessionTraffic.hostToDeviceBytes, sessionTraffic.deviceToHostBytes], [18, 18 + 36 + 18], 'two bytes a float16 value');
  await assert.rejects(s.runTensors({ x: new Float32Array(2) }), /input 'x' expects float16 \[B\], got float32 \[2\]: wrong element type/);
});

test('a Graph computes nothing in float16: only inputs, outputs and casts are float16, other ops are refused naming them', () => {
  const g = new Graph();
  const x = g.input('x', 'float16', [2]);
  const y = g.input('y', 'float32', [2]);
  assert.throws(() => g.add(x, x), /Add: reads Input 'x' float16 \[2\]; a Graph only declares float16 inputs and casts to or from float16/);
  assert.throws(() => g.matmul(g.reshape(x, [1, 2]), g.reshape(y, [2, 1])), /Reshape: reads Input 'x' float16/);
  assert.throws(() => g.custom('Relu', [y], { dtype: 'float16', shape: [2] }), /Relu: would write float16/);
  assert.throws(() => g.const([1, 2], { dtype: 'float16' }), /a Graph has no float16 constants/);
  assert.equal(g.cast(g.cast(x, 'float32'), 'float16').dtype, 'float16');
});

test('a graph parameter missing from the store is reported when the session is made', async () => {
  const { g, y } = affine();
  await assert.rejects(Session.create(g, { y }, { weights: new WeightStore() }), /graph parameter 'w' has no value in the WeightStore/);
});

test('an accelerator that cannot start is an error naming it (no silent fallback)', async () => {
  const g = new Graph();
  const x = g.input('x', 'float32', [2]);
  for (const provider of ['cuda', 'webgpu'] as const) {
    try {
      const s = await Session.create(g, { y: g.exp(x) }, { providers: [provider] });
      // This machine has the provider: then it must compute.
      const y = (await s.run({ x: new Float32Array([0, 1]) })).y!;
      assert.ok(Math.abs(y[1]! - Math.E) < 1e-5);
    } catch (e) {
      assert.match((e as Error).message, new RegExp(`could not start execution provider\\(s\\) ${provider}`));
    }
  }
});

function paramsOf(w: number[]): WeightStore {
  const store = new WeightStore();
  store.add('w', [2, 3], w);
  return store;
}
