// precision fp16 (runtime/tensor/mixed-precision.ts): a transformer's gradient step written with
// float16 products computes the float32 step's loss and gradients within float16's tolerance,
// on the CPU provider (every CI run) and on webgpu where it starts (lavapipe in CI); the model
// really computes its products in float16 and keeps float32 where the rules say; inputs and
// outputs stay float32.
import assert from 'node:assert/strict';
import { before, describe, it, test } from 'node:test';
import * as ort from 'onnxruntime-node';

import * as path from 'node:path';
import { buildLogProbs } from '../../../runtime/algorithms/text/tokens.js';
import { readLmConfig } from '../../../hf/config.js';
import { loadLmWeights } from '../../../runtime/lm/load.js';
import { initialAdapter, loraAdapters } from '../../../hf/lora.js';
import { loraWeights } from '../../../runtime/lm/lora-weights.js';
import { causalLm } from '../../../runtime/lm/model.js';
import { attentionMask, leftPad, rowPositions } from '../../../runtime/lm/rows.js';
import { makeTokenModel } from '../../../runtime/policies/index.js';
import { Graph } from '../../../runtime/tensor/graph.js';
import { GradientStep, WeightStore, type Precision } from '../../../runtime/tensor/index.js';
import { buildModel } from '../../../runtime/tensor/onnx.js';
import { halfBits } from '../../../runtime/tensor/mixed-precision.js';
import { ModelProto } from '../../../runtime/tensor/onnx-schema.js';
import type { ExecutionProvider } from '../../../runtime/tensor/session.js';
import { addition } from '../../../runtime/text/generated.js';
import { taskTokenizer } from '../../../runtime/text/task.js';
import { Rng } from '../../../shared/random.js';
import { repoRoot } from '../../helpers/repo.js';
import { webgpuOrSkip } from '../../helpers/webgpu.js';

interface NodeProto { op_type: string; input: string[]; output: string[]; attribute: { name: string; i?: number | { toNumber(): number } }[] }
const nodesOf = (bytes: Uint8Array): NodeProto[] => (ModelProto.decode(bytes) as unknown as { graph: { node: NodeProto[] } }).graph.node;
const castTo = (n: NodeProto): number => Number(n.attribute.find((a) => a.name === 'to')!.i);
const FLOAT16 = 10;
const FLOAT32 = 1;

test('fp16 writes MatMul on float16 casts and Softmax, LayerNormalization and a batch sum on float32, with float32 inputs and outputs', async () => {
  const g = new Graph();
  const x = g.input('x', 'float32', ['B', 4]);
  const w = g.param('w', [4, 3]);
  const b = g.param('b', [3]);
  const scale = g.param('scale', [3]);
  const h = g.mul(g.matmul(x, w), 0.5); // 0.5 does not vote: the product stays float16
  const y = g.softmax(g.layerNorm(g.add(h, b), scale, b));
  const sum = g.sumLeadingAxes(h, 1); // ones[1, B] @ h: a reduction, in float32
  const { bytes } = buildModel(g, { outputs: { y, h, sum }, precision: 'fp16' });
  const nodes = nodesOf(bytes);
  const producer = new Map(nodes.map((n) => [n.output[0]!, n]));
  const typeOfInput = (n: NodeProto, i: number): 'float16' | 'float32' | 'other' => {
    const p = producer.get(n.input[i]!);
    if (!p) return 'float32'; // a graph input or initializer: the graph's float32
    return p.op_type === 'Cast' ? (castTo(p) === FLOAT16 ? 'float16' : 'float32') : 'other';
  };
  const matmuls = nodes.filter((n) => n.op_type === 'MatMul');
  assert.equal(matmuls.length, 2);
  const [product, batchSum] = [matmuls.find((n) => producer.get(n.input[1]!)?.input[0] === 'w')!, matmuls.find((n) => producer.get(n.input[1]!)?.input[0] !== 'w')!];
  assert.deepEqual([typeOfInput(product, 0), typeOfInput(product, 1)], ['float16', 'float16'], 'x @ w in float16');
  assert.notEqual(typeOfInput(batchSum, 1), 'float16', 'the batch sum reads float32');
  const layerNorm = nodes.find((n) => n.op_type === 'LayerNormalization')!;
  assert.equal(producer.get(layerNorm.input[0]!)!.op_type, 'Add');
  // The Add of the float16 product and the float32 bias computes in float32: its product input is cast up.
  const add = producer.get(layerNorm.input[0]!)!;
  assert.equal(typeOfInput(add, 0), 'float32');
  // Outputs keep float32: h is written as float16 and cast up under its name.
  assert.equal(castTo(producer.get('h')!), FLOAT32);

  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['cpu'] });
  const plain = await ort.InferenceSession.create(buildModel(g, { outputs: { y, h, sum } }).bytes, { executionProviders: ['cpu'] });
  const random = new Rng(3);
  const feeds = {
    x: new ort.Tensor('float32', Float32Array.from({ length: 5 * 4 }, () => random.normal()), [5, 4]),
    w: new ort.Tensor('float32', Float32Array.from({ length: 12 }, () => random.normal()), [4, 3]),
    b: new ort.Tensor('float32', Float32Array.from([0.1, -0.2, 0.3]), [3]),
    scale: new ort.Tensor('float32', Float32Array.from([1, 2, 0.5]), [3]),
  };
  const [half, full] = [await session.run(feeds), await plain.run(feeds)];
  for (const name of ['y', 'h', 'sum']) {
    assert.equal(half[name]!.type, 'float32', `${name} is float32`);
    const [a, e] = [half[name]!.data as Float32Array, full[name]!.data as Float32Array];
    e.forEach((v, i) => assert.ok(Math.abs(a[i]! - v) <= 4e-3 * (1 + Math.abs(v)), `${name}[${i}]: fp16 ${a[i]} vs fp32 ${v}`));
  }
  await Promise.all([session.release(), plain.release()]);
});

/** A tiny transformer's token cross-entropy step (2 layers, width 32, 4 heads) on random tokens. */
async function transformerStep(provider: ExecutionProvider, precision: Precision) {
  const tokenizer = taskTokenizer(addition(2));
  const model = makeTokenModel({ kind: 'transformer', name: 'Tiny', params: { layers: 2, width: 32, heads: 4, context: 16 } }, tokenizer, new Rng(1));
  const T = 16;
  const B = 8;
  const { graph, logProb } = buildLogProbs(model, T);
  const loss = graph.neg(graph.reduceMean(logProb));
  const step = await GradientStep.create(graph, [{ loss, weights: model.weights.names }], { weights: model.weights, compute: { providers: [provider], threads: false, precision } });
  // Characters of the task (the model never predicts its padding: a target of it would have log-probability -1e9).
  const characters = tokenizer.encode(tokenizer.alphabet);
  const random = new Rng(7);
  const tokens = BigInt64Array.from({ length: B * T }, () => BigInt(characters[random.int(characters.length)]!));
  const targets = BigInt64Array.from({ length: B * T }, () => BigInt(characters[random.int(characters.length)]!));
  try {
    const out = await step.run({ tokens: { data: tokens, dims: [B, T] }, targets: { data: targets, dims: [B, T] }, inv_temperature: new Float32Array([1]) });
    const carried = out.gradScale ?? 1;
    return { loss: out.loss, gradScale: out.gradScale, names: model.weights.names, grads: out.grads.map((g) => g.map((x) => x / carried)) };
  } finally {
    await step.release();
  }
}

/** ||a - b|| / ||b||. */
function relativeError(a: Float32Array, b: Float32Array): number {
  let diff = 0;
  let norm = 0;
  b.forEach((x, i) => {
    diff += (a[i]! - x) ** 2;
    norm += x * x;
  });
  return Math.sqrt(diff / norm);
}

/** The tolerances this file states: float16 keeps 11 bits (2^-11 ~ 5e-4 per rounding), and a step rounds many times. */
const LOSS_TOLERANCE = 1e-2;
const GRAD_TOLERANCE = 2e-2;

/**
 * One fine-tuning step (cross-entropy on random targets) of a tiny Hugging Face checkpoint
 * (test/fixtures/hf-tiny): RMSNorm, RoPE, SwiGLU or GPT-2's blocks. In full, or with LoRA on
 * q and v: the base is then frozen, fed on the CPU and baked on webgpu (as float16 in fp16).
 */
async function pretrainedStep(family: string, provider: ExecutionProvider, precision: Precision, lora = false) {
  const dir = path.join(repoRoot(), 'test/fixtures/hf-tiny', family);
  const config = readLmConfig(dir);
  const base = loadLmWeights(dir, config);
  const [B, T] = [2, 12];
  const g = new Graph();
  const inputs = { tokens: g.input('tokens', 'int64', ['B', T]), positions: g.input('positions', 'int64', ['B', T]), mask: g.input('mask', 'float32', ['B', T, T]) };
  const targets = g.input('targets', 'int64', ['B', T]);
  const settings = { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] };
  const adapters = lora ? loraAdapters(config, settings) : [];
  const trainable = lora ? new WeightStore() : base;
  const init = new Rng(3);
  for (const a of adapters) {
    trainable.add(a.a.name, a.a.shape, initialAdapter(a, 'a', init));
    // B is 0 in a fresh adapter; small values so that every gradient is exercised.
    trainable.add(a.b.name, a.b.shape, (n) => Float32Array.from({ length: n }, () => 0.05 * (init.uniform() - 0.5)));
  }
  const declared = lora ? { ...base.declare(g), ...trainable.declare(g) } : base.declare(g);
  const { logits } = causalLm(g, declared, config, inputs, lora ? { lora: loraWeights(adapters, settings) } : {});
  const loss = g.neg(g.reduceMean(g.gatherLast(g.logSoftmax(logits), targets)));
  const weights = trainable;
  const step = await GradientStep.create(g, [{ loss, weights: weights.names }], { weights, ...(lora ? { fed: base } : {}), compute: { providers: [provider], threads: false, precision } });
  const random = new Rng(5);
  const ids = () => BigInt64Array.from({ length: B * T }, () => BigInt(random.int(config.vocab)));
  const rows = leftPad([Array.from({ length: T }, () => 1), Array.from({ length: T - 3 }, () => 1)], 0);
  try {
    const out = await step.run({
      tokens: { data: ids(), dims: [B, T] },
      targets: { data: ids(), dims: [B, T] },
      positions: { data: rowPositions(rows.starts, 0, T), dims: [B, T] },
      mask: { data: attentionMask(rows.starts, 0, T), dims: [B, T, T] },
    });
    const carried = out.gradScale ?? 1;
    return { loss: out.loss, gradScale: out.gradScale, names: weights.names, grads: out.grads.map((gr) => gr.map((x) => x / carried)) };
  } finally {
    await step.release();
  }
}

type StepOf = (provider: ExecutionProvider, precision: Precision) => ReturnType<typeof transformerStep>;

async function assertAgreement(provider: ExecutionProvider, stepOf: StepOf = transformerStep, label = 'transformer'): Promise<void> {
  const [full, half] = [await stepOf(provider, 'fp32'), await stepOf(provider, 'fp16')];
  assert.equal(full.gradScale, undefined);
  assert.equal(half.gradScale, 2 ** 16, 'fp16 gradients carry the loss scale');
  const lossError = Math.abs(half.loss - full.loss) / Math.abs(full.loss);
  assert.ok(lossError <= LOSS_TOLERANCE, `${label} on ${provider}: loss: fp16 ${half.loss} vs fp32 ${full.loss}`);
  let worst = 0;
  let identical = 0;
  full.grads.forEach((g, k) => {
    const error = relativeError(half.grads[k]!, g);
    worst = Math.max(worst, error);
    if (error === 0) identical++;
    assert.ok(error <= GRAD_TOLERANCE, `${label} on ${provider}: gradient of ${full.names[k]}: relative error ${error.toExponential(2)} over ${GRAD_TOLERANCE}`);
  });
  // The products really ran in float16: most gradients differ from float32's in their last bits.
  assert.ok(identical < full.grads.length / 2, `${identical} of ${full.grads.length} gradients are float32's exactly`);
  console.log(`# ${label} on ${provider}: loss ${full.loss} vs ${half.loss}, relative error ${lossError.toExponential(2)}, worst gradient relative error ${worst.toExponential(2)} over ${full.grads.length} weights`);
}

describe("a transformer step in fp16 agrees with fp32's (loss within 1e-2, each weight's gradient within 2e-2, relative)", () => {
  let skip: string | false = false;
  before(async () => {
    skip = await webgpuOrSkip();
  });

  it('on the cpu provider', async () => {
    await assertAgreement('cpu');
  });

  it('on webgpu (lavapipe in CI)', async (t) => {
    if (skip) return t.skip(skip);
    await assertAgreement('webgpu');
  });

  // The pretrained families' graphs: RMSNorm's mean of squares and its epsilon (1e-6, below
  // float16's smallest normal) stay float32; RoPE's and SwiGLU's products follow their inputs.
  for (const family of ['qwen2', 'llama', 'gpt2']) {
    it(`a ${family} checkpoint's full fine-tuning step, on the cpu provider and on webgpu`, async (t) => {
      const stepOf: StepOf = (provider, precision) => pretrainedStep(family, provider, precision);
      await assertAgreement('cpu', stepOf, family);
      if (skip) return t.skip(skip);
      await assertAgreement('webgpu', stepOf, family);
    });
  }

  it("a qwen2 checkpoint's LoRA step: the frozen base fed on the cpu, baked (as float16) on webgpu", async (t) => {
    const stepOf: StepOf = (provider, precision) => pretrainedStep('qwen2', provider, precision, true);
    await assertAgreement('cpu', stepOf, 'qwen2 LoRA');
    if (skip) return t.skip(skip);
    await assertAgreement('webgpu', stepOf, 'qwen2 LoRA');
  });
});

test("halfBits rounds float32 to float16 as onnxruntime's Cast does: ties to even, subnormals, overflow, infinities and NaN", async () => {
  const random = new Rng(11);
  const edge = [0, -0, 1, -1, 65504, 65519.99, 65520, 1e6, -1e6, 2 ** -14, 2 ** -24, 2 ** -25, 2 ** -25 * 1.0001, 3 * 2 ** -26, 2 ** -26, 1e-10, Infinity, -Infinity, NaN,
    1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -11 + 2 ** -20, 2047.5, 2049, 4097];
  const values = Float32Array.from([...edge, ...Array.from({ length: 20000 }, () => (random.uniform() - 0.5) * 2 ** (random.int(60) - 30))]);
  // A Cast alone, written by hand: float32 in, float16 out.
  const cast = ModelProto.encode({
    ir_version: 8, opset_import: [{ domain: '', version: 18 }],
    graph: {
      name: 'cast', node: [{ op_type: 'Cast', input: ['x'], output: ['y'], name: 'c', attribute: [{ name: 'to', type: 2, i: FLOAT16 }] }],
      input: [{ name: 'x', type: { tensor_type: { elem_type: FLOAT32, shape: { dim: [{ dim_value: values.length }] } } } }],
      output: [{ name: 'y', type: { tensor_type: { elem_type: FLOAT16, shape: { dim: [{ dim_value: values.length }] } } } }],
    },
  }).finish();
  const session = await ort.InferenceSession.create(cast, { executionProviders: ['cpu'] });
  const expected = (await session.run({ x: new ort.Tensor('float32', values, [values.length]) })).y!.data as Uint16Array;
  await session.release();
  const actual = halfBits(values);
  const nan = (h: number) => (h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0;
  values.forEach((v, i) => assert.ok(actual[i] === expected[i] || (nan(actual[i]!) && nan(expected[i]!)), `${v}: ${actual[i]!.toString(16)} vs onnxruntime's ${expected[i]!.toString(16)}`));
});

test('fp16 bakes a frozen weight read only by a product as float16, with no Cast left for it; one read elsewhere stays float32', async () => {
  const g = new Graph();
  const x = g.input('x', 'float32', ['B', 4]);
  const w = g.param('w', [4, 3]);
  const table = g.param('table', [3]);
  const y = g.add(g.matmul(x, w), table); // table is read by an Add: it stays float32
  const random = new Rng(2);
  const values: Record<string, Float32Array> = { w: Float32Array.from({ length: 12 }, () => random.normal()), table: Float32Array.from([0.1, 0.2, 0.3]) };
  const bake = { find: (name: string) => ({ data: values[name]!, shape: name === 'w' ? [4, 3] : [3] }) };
  const half = buildModel(g, { outputs: { y }, bake, precision: 'fp16' });
  const model = ModelProto.decode(half.bytes) as unknown as { graph: { node: NodeProto[]; initializer: { name: string; data_type: number }[] } };
  const types = Object.fromEntries(model.graph.initializer.map((t) => [t.name, t.data_type]));
  assert.equal(types.table, FLOAT32);
  assert.equal(Object.values(types).filter((t) => t === FLOAT16).length, 1, 'w is baked as float16');
  assert.ok(!('w' in types), 'under the name of its cast');
  assert.ok(model.graph.node.every((n) => n.input[0] !== 'w'), 'no Cast of w is left');
  const session = await ort.InferenceSession.create(half.bytes, { executionProviders: ['cpu'] });
  const plain = await ort.InferenceSession.create(buildModel(g, { outputs: { y }, bake }).bytes, { executionProviders: ['cpu'] });
  const feeds = { x: new ort.Tensor('float32', Float32Array.from({ length: 8 }, () => random.normal()), [2, 4]) };
  const [a, e] = [(await session.run(feeds)).y!.data as Float32Array, (await plain.run(feeds)).y!.data as Float32Array];
  e.forEach((v, i) => assert.ok(Math.abs(a[i]! - v) <= 4e-3 * (1 + Math.abs(v)), `y[${i}]: fp16 ${a[i]} vs fp32 ${v}`));
  await Promise.all([session.release(), plain.release()]);
});

test('fp16 reads a float16 input as it is where a product needs it in float16: no Cast chain; elsewhere its cast to float32', async () => {
  const g = new Graph();
  const x = g.input('x', 'float32', [2, 2]);
  const half = g.input('half', 'float16', [2, 2]);
  const single = g.cast(half, 'float32');
  const product = g.matmul(x, single);
  const out = g.cast(g.add(product, single), 'float16');
  const { bytes, inputs, outputs } = buildModel(g, { outputs: { product, out }, precision: 'fp16' });
  assert.deepEqual([inputs.map((io) => io.dtype), outputs.map((io) => io.dtype)], [['float32', 'float16'], ['float32', 'float16']]);
  const nodes = nodesOf(bytes);
  const producer = new Map(nodes.map((n) => [n.output[0]!, n]));
  const matmul = nodes.find((n) => n.op_type === 'MatMul')!;
  assert.equal(matmul.input[1], 'half', 'the product reads the float16 input itself');
  const add = nodes.find((n) => n.op_type === 'Add')!;
  assert.ok(add.input.some((name) => producer.get(name)?.op_type === 'Cast' && producer.get(name)!.input[0] === 'half' && castTo(producer.get(name)!) === FLOAT32), 'the sum reads its float32 cast');

  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['cpu'] });
  const result = await session.run({ x: new ort.Tensor('float32', Float32Array.of(1, 2, 3, 4), [2, 2]), half: new ort.Tensor('float16', halfBits(Float32Array.of(1, 0.5, -1, 2)), [2, 2]) });
  assert.deepEqual([...(result.product!.data as Float32Array)], [-1, 4.5, -1, 9.5]);
  assert.deepEqual([...(result.out!.data as Uint16Array)], [...halfBits(Float32Array.of(0, 5, -2, 11.5))]);
});

test("fp16 sums a float16 product's running total (CumSum) in float32, as torch.autocast's cumsum", () => {
  const g = new Graph();
  const x = g.input('x', 'float32', ['B', 4]);
  const w = g.param('w', [4, 3]);
  const running = g.custom('CumSum', [g.matmul(x, w), g.const(1, { dtype: 'int64' })], { dtype: 'float32', shape: ['B', 3] });
  const nodes = nodesOf(buildModel(g, { outputs: { running }, precision: 'fp16' }).bytes);
  const producer = new Map(nodes.map((n) => [n.output[0]!, n]));
  const cumsum = nodes.find((n) => n.op_type === 'CumSum')!;
  const input = producer.get(cumsum.input[0]!)!;
  // Its input is the product cast up: a float16 running sum would keep 11 bits of the total.
  assert.equal(input.op_type, 'Cast');
  assert.equal(castTo(input), FLOAT32);
  assert.equal(cumsum.output[0], 'running', 'written as float32 under its own name, with no Cast after');
});
