// The webgpu lowering (runtime/tensor/webgpu-lowering.ts): a model written for the WebGPU
// provider computes what the plain model computes. Both run on the CPU provider here, so this
// holds in CI without a GPU; test/runtime/webgpu.test.ts checks the placement on a real adapter.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as ort from 'onnxruntime-node';
import { Graph } from '../../../runtime/tensor/graph.js';
import { buildModel } from '../../../runtime/tensor/onnx.js';
import { ModelProto } from '../../../runtime/tensor/onnx-schema.js';
import type { Tensor } from '../../../runtime/tensor/tensor.js';

const opsOf = (bytes: Uint8Array): string[] =>
  (ModelProto.decode(bytes) as unknown as { graph: { node: { op_type: string }[] } }).graph.node.map((n) => n.op_type);

async function runBoth(g: Graph, outputs: Record<string, Tensor>, feeds: Record<string, ort.Tensor>) {
  const results = [];
  for (const forWebGpu of [false, true]) {
    const { bytes } = buildModel(g, { outputs, forWebGpu });
    const session = await ort.InferenceSession.create(bytes, { executionProviders: ['cpu'] });
    results.push({ ops: opsOf(bytes), out: await session.run(feeds) });
    await session.release();
  }
  return { plain: results[0]!, lowered: results[1]! };
}

function assertClose(actual: ort.Tensor, expected: ort.Tensor, what: string): void {
  assert.deepEqual(actual.dims, expected.dims, `${what}: dims`);
  const a = actual.data as Float32Array;
  const e = expected.data as Float32Array;
  e.forEach((x, i) => assert.ok(Math.abs(a[i]! - x) <= 1e-5 + 1e-5 * Math.abs(x), `${what}[${i}]: ${a[i]} vs ${x}`));
}

test('LogSoftmax is written as max-shifted log-sum-exp for webgpu, with the same values on any axis and at large logits', async () => {
  const g = new Graph();
  const x = g.input('x', 'float32', ['B', 3, 5]);
  const outputs = { last: g.logSoftmax(x), middle: g.logSoftmax(x, 1) };
  // Logits near 1e4: exp() of the unshifted values would overflow float32.
  const data = Float32Array.from({ length: 2 * 3 * 5 }, (_, i) => (i % 7 === 0 ? 1e4 : Math.sin(i) * 20));
  const { plain, lowered } = await runBoth(g, outputs, { x: new ort.Tensor('float32', data, [2, 3, 5]) });
  assert.ok(plain.ops.includes('LogSoftmax'));
  assert.ok(!lowered.ops.includes('LogSoftmax'), `lowered ops: ${lowered.ops.join(', ')}`);
  for (const name of ['last', 'middle']) {
    assertClose(lowered.out[name]!, plain.out[name]!, name);
    assert.ok((lowered.out[name]!.data as Float32Array).every(Number.isFinite), `${name} is finite`);
  }
});

test('ConstantOfShape is written as an Expand of a scalar for webgpu: same fill, dtype and run-time shape', async () => {
  const g = new Graph();
  const x = g.input('x', 'float32', ['B', 4]);
  const outputs = { zeros: g.add(g.zerosLike(x), x), ones: g.fill(g.shapeOf(x, 0, 1), 1, 'float32', ['B']) };
  const data = Float32Array.from({ length: 3 * 4 }, (_, i) => i - 5.5);
  const { plain, lowered } = await runBoth(g, outputs, { x: new ort.Tensor('float32', data, [3, 4]) });
  assert.ok(plain.ops.includes('ConstantOfShape'));
  assert.ok(!lowered.ops.includes('ConstantOfShape'), `lowered ops: ${lowered.ops.join(', ')}`);
  assertClose(lowered.out.zeros!, plain.out.zeros!, 'zeros + x');
  assert.deepEqual(lowered.out.ones!.dims, [3]);
  assert.deepEqual([...(lowered.out.ones!.data as Float32Array)], [1, 1, 1]);
});

test('the model for other providers keeps the fused ops', () => {
  const g = new Graph();
  const x = g.input('x', 'float32', ['B', 4]);
  const { bytes } = buildModel(g, { outputs: { y: g.logSoftmax(g.add(x, g.zerosLike(x))) } });
  assert.deepEqual(opsOf(bytes).filter((op) => op === 'LogSoftmax' || op === 'ConstantOfShape').sort(), ['ConstantOfShape', 'LogSoftmax']);
});
