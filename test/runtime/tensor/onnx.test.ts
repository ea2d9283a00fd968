// ONNX export: standalone models with baked parameters that any onnxruntime loads.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import * as ort from 'onnxruntime-node';
import { Graph } from '../../../runtime/tensor/graph.js';
import { linearDefault } from '../../../runtime/tensor/init.js';
import { seededRandom } from '../../helpers/random.js';
import { buildModel } from '../../../runtime/tensor/onnx.js';
import { ModelProto } from '../../../runtime/tensor/onnx-schema.js';
import { WeightStore } from '../../../runtime/tensor/weights.js';
import { Session } from '../../../runtime/tensor/session.js';

/** A small actor: obs [B, 4] -> logits [B, 2], plus a PPO-style loss in the same graph. */
function actor() {
  const random = seededRandom(7);
  const store = new WeightStore();
  store.add('pi.w1', [4, 8], (n) => linearDefault(random, n, 4));
  store.add('pi.b1', [8], (n) => linearDefault(random, n, 4));
  store.add('pi.w2', [8, 2], (n) => linearDefault(random, n, 8));
  store.add('pi.b2', [2], (n) => linearDefault(random, n, 8));
  const g = new Graph();
  const p = store.declare(g);
  const obs = g.input('obs', 'float32', ['B', 4]);
  const actions = g.input('actions', 'int64', ['B']);
  const h = g.tanh(g.linear(obs, p['pi.w1']!, p['pi.b1']!));
  const logits = g.linear(h, p['pi.w2']!, p['pi.b2']!);
  const loss = g.neg(g.mean(g.gatherLast(g.logSoftmax(logits), actions)));
  return { store, g, obs, logits, action: g.argMax(logits), loss };
}

const OBS = Float32Array.from({ length: 5 * 4 }, (_, i) => Math.cos(i));

test('an exported policy with baked parameters reproduces the training graph in a fresh InferenceSession', async () => {
  const { store, g, logits, action, loss } = actor();
  const training = await Session.create(g, { logits, loss }, { weights: store });
  const expected = await training.run({ obs: OBS, actions: new BigInt64Array(5) });

  const model = buildModel(g, { outputs: { logits, action }, bake: store });
  assert.deepEqual(model.inputs.map((io) => io.name), ['obs']);

  const fresh = await ort.InferenceSession.create(model.bytes);
  assert.deepEqual(fresh.inputNames, ['obs']);
  assert.deepEqual(fresh.outputNames, ['logits', 'action']);
  const out = await fresh.run({ obs: new ort.Tensor('float32', OBS, [5, 4]) });
  assert.deepEqual(out.logits!.dims, [5, 2]);
  const got = out.logits!.data as Float32Array;
  got.forEach((v, i) => assert.ok(Math.abs(v - expected.logits![i]!) < 1e-6, `logit ${i}: ${v} vs ${expected.logits![i]}`));
  const greedy = [...(out.action!.data as BigInt64Array)].map(Number);
  assert.deepEqual(greedy, [0, 1, 2, 3, 4].map((b) => (got[2 * b]! >= got[2 * b + 1]! ? 0 : 1)));
});

test('a baked model is a snapshot: later parameter updates do not change it', async () => {
  const { store, g, logits } = actor();
  const bytes = buildModel(g, { outputs: { logits }, bake: store }).bytes;
  const before = (await (await ort.InferenceSession.create(bytes)).run({ obs: new ort.Tensor('float32', OBS, [5, 4]) })).logits!.data;
  store.get('pi.b2').data.fill(100);
  const after = (await (await ort.InferenceSession.create(bytes)).run({ obs: new ort.Tensor('float32', OBS, [5, 4]) })).logits!.data;
  assert.deepEqual(after, before);
});

test('an exported model written to a file loads from its path', async () => {
  const { store, g, logits } = actor();
  const dir = await mkdtemp(join(tmpdir(), 'rlx-onnx-'));
  try {
    const path = join(dir, 'policy.onnx');
    await writeFile(path, buildModel(g, { outputs: { logits }, bake: store }).bytes);
    const session = await ort.InferenceSession.create(path);
    const out = await session.run({ obs: new ort.Tensor('float32', OBS.slice(0, 4), [1, 4]) });
    assert.deepEqual(out.logits!.dims, [1, 2]);
    assert.ok((await readFile(path)).length > 4 * (4 * 8 + 8 + 8 * 2 + 2));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the model header: IR 8, opset 18, symbolic batch dim, initializers named after parameters', () => {
  const { store, g, logits } = actor();
  const decoded = ModelProto.toObject(ModelProto.decode(buildModel(g, { outputs: { logits }, bake: store }).bytes), {
    longs: Number,
  }) as {
    ir_version: number;
    opset_import: { domain?: string; version: number }[];
    graph: { input: { name: string; type: { tensor_type: { shape: { dim: { dim_param?: string; dim_value?: number }[] } } } }[]; initializer: { name: string }[] };
  };
  assert.equal(decoded.ir_version, 8);
  assert.deepEqual(decoded.opset_import.map((o) => o.version), [18]);
  assert.deepEqual(decoded.graph.input[0]!.type.tensor_type.shape.dim, [{ dim_param: 'B' }, { dim_value: 4 }]);
  const names = decoded.graph.initializer.map((t) => t.name);
  for (const p of store.names) assert.ok(names.includes(p), `initializer ${p}`);
});

test('only what the outputs need is written; unbaked parameters are inputs', () => {
  const { g, logits } = actor();
  const model = buildModel(g, { outputs: { logits } });
  assert.deepEqual(model.inputs.map((io) => [io.name, io.isParam]), [
    ['pi.w1', true],
    ['pi.b1', true],
    ['pi.w2', true],
    ['pi.b2', true],
    ['obs', false],
  ]);
});

test('output names are checked', () => {
  const { g, logits } = actor();
  assert.throws(() => buildModel(g, { outputs: { obs: logits } }), /output name 'obs' is already an input or parameter name/);
  assert.throws(() => buildModel(g, { outputs: { _x: logits } }), /must be non-empty and not start with '_'/);
  assert.throws(() => buildModel(g, { outputs: {} }), /no outputs/);
});

test('inputs, constants and a tensor asked for twice can all be outputs', async () => {
  const g = new Graph();
  const x = g.input('x', 'float32', [2]);
  const y = g.exp(x);
  const s = await Session.create(g, { same: x, c: g.const([1, 2]), y, y2: y });
  const out = await s.run({ x: new Float32Array([0, 1]) });
  assert.deepEqual([...out.same!], [0, 1]);
  assert.deepEqual([...out.c!], [1, 2]);
  assert.deepEqual([...out.y2!], [...out.y!]);
});

/** y = x w + b with an 8 KiB w, for the external data tests. */
function wideLayer() {
  const random = seededRandom(11);
  const store = new WeightStore();
  store.add('w', [32, 64], (n) => linearDefault(random, n, 32));
  store.add('b', [64], (n) => linearDefault(random, n, 32));
  const g = new Graph();
  const p = store.declare(g);
  const x = g.input('x', 'float32', ['B', 32]);
  return { store, g, y: g.linear(x, p['w']!, p['b']!) };
}

test('initializers over externalDataAbove go to a weights file, and the session computes what the self-contained model does', async () => {
  const { store, g, y } = wideLayer();
  const model = buildModel(g, { outputs: { y }, bake: store, externalDataAbove: 4096 });
  assert.equal(model.externalData?.chunks.length, 1, 'w (8 KiB) goes out; b (256 bytes) stays in the protobuf');
  assert.equal(model.externalData!.chunks[0]!.bytes.byteLength, 32 * 64 * 4);
  assert.ok(model.bytes.byteLength < 32 * 64 * 4, `the protobuf is ${model.bytes.byteLength} bytes, without w`);
  assert.equal(buildModel(g, { outputs: { y }, bake: store, externalDataAbove: 1e6 }).externalData, undefined, 'under the threshold: one file');
  assert.equal(buildModel(g, { outputs: { y }, bake: store }).externalData, undefined, 'no threshold: one file (an exported policy)');

  const x = Float32Array.from({ length: 3 * 32 }, (_, i) => Math.sin(i));
  const inline = await Session.create(g, { y }, { bake: store });
  const external = await Session.create(g, { y }, { bake: store, externalDataAbove: 4096 });
  assert.ok(external.model.externalData, 'the session was made from the model with its weights file');
  assert.deepEqual((await external.run({ x })).y, (await inline.run({ x })).y);
});
