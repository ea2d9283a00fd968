// Weights a WeightStore keeps as float16 bits (addHalf: a LoRA base in half precision): a graph
// declares each as a float16 param cast up to float32; fed, the session reads the bits as they
// are; baked (a GPU's sessions bake their frozen weights), the model holds the float32 values in
// place of the cast, so no cast runs per pass. Either way the products see the exact float32 of
// each float16. A reader asking a half weight for float32 data is told which weight it is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildModel, Graph, Session, WeightStore } from '../../../runtime/tensor/index.js';
import { ModelProto } from '../../../runtime/tensor/onnx-schema.js';
import { halfBits } from '../../../shared/float16.js';

const W = Float32Array.of(0.5, -1.25, 3, 2 ** -20, 65504, -0.0009765625);
const X = Float32Array.of(2, 1);

function store(): WeightStore {
  const s = new WeightStore();
  s.addHalf('w', [2, 3], halfBits(W));
  return s;
}

/** y = x @ w over the store's declared weights. */
function graph(weights: WeightStore) {
  const g = new Graph();
  const x = g.input('x', 'float32', [1, 2]);
  const { w } = weights.declare(g);
  return { g, y: g.matmul(x, w!) };
}

/** The product in float64 from the float32 values W holds (each exactly a float16). */
const expected = [0, 1, 2].map((j) => X[0]! * W[j]! + X[1]! * W[3 + j]!);

test('a half weight fed as float16 and cast up in the graph: the float32 product', async () => {
  const weights = store();
  const { g, y } = graph(weights);
  const session = await Session.create(g, { y }, { weights });
  const out = (await session.run({ x: { data: X, dims: [1, 2] } })).y!;
  out.forEach((v, j) => assert.ok(Math.abs(v - expected[j]!) <= 1e-6 * Math.abs(expected[j]!), `y[${j}] ${v} against ${expected[j]}`));
  await session.release();
});

test('baked, a half weight is the float32 initializer the cast would give, and the cast is gone', async () => {
  const weights = store();
  const { g, y } = graph(weights);
  const model = ModelProto.toObject(ModelProto.decode(buildModel(g, { outputs: { y }, bake: weights }).bytes)) as { graph: { node: { op_type: string }[]; initializer: { data_type: number }[] } };
  assert.deepEqual(model.graph.node.map((n) => n.op_type), ['MatMul']);
  assert.deepEqual(model.graph.initializer.map((t) => t.data_type), [1], 'one float32 initializer');
  const session = await Session.create(g, { y }, { bake: weights });
  const out = (await session.run({ x: { data: X, dims: [1, 2] } })).y!;
  out.forEach((v, j) => assert.ok(Math.abs(v - expected[j]!) <= 1e-6 * Math.abs(expected[j]!), `y[${j}] ${v} against ${expected[j]}`));
  await session.release();
});

test('a half weight has no float32 data: a reader that asks is told which weight', () => {
  const weights = store();
  assert.equal(weights.size, 6);
  assert.ok(weights.holdsHalf);
  assert.throws(() => weights.get('w').data, /weight 'w' is kept in float16 \(half storage\)/);
});
