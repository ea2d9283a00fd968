// The fused forms of RMSNorm and the rotary embedding (tensor/layers.ts), which the chunked
// decoder writes as one onnxruntime kernel each: they compute what the primitives compute (on the
// CPU provider, and on webgpu where it starts), the rotation's tables are made once per graph, and
// a model that uses onnxruntime's own domain imports it (and only then).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Graph, ORT_DOMAIN } from '../../../runtime/tensor/graph.js';
import { applyRotary, fusedRmsNorm, fusedRotary, fusedSkipRmsNorm, groupQueryAttention, rmsNorm, rotaryCaches, rotaryTables } from '../../../runtime/tensor/layers.js';
import { buildModel } from '../../../runtime/tensor/onnx.js';
import { ModelProto } from '../../../runtime/tensor/onnx-schema.js';
import { Session, type ExecutionProvider } from '../../../runtime/tensor/session.js';
import type { Tensor } from '../../../runtime/tensor/tensor.js';
import { Rng } from '../../../shared/random.js';
import { webgpuOrSkip } from '../../helpers/webgpu.js';

const [B, H, T, D] = [2, 3, 5, 8];
const rng = new Rng(7);
const x = Float32Array.from({ length: B * H * T * D }, () => 4 * rng.uniform() - 2);
const scale = Float32Array.from({ length: D }, () => 0.5 + rng.uniform());
// Ragged positions, as left-padded rows have, up to 90.
const positions = BigInt64Array.from([0, 1, 2, 3, 4, 7, 30, 31, 60, 90], BigInt);
const inverseFrequencies = Float32Array.from({ length: D / 2 }, (_, i) => 1 / Math.pow(10000, Math.fround((2 * i) / D)));

/** The fused and the primitive form of one layer, run on `provider`: their outputs. */
async function bothForms(provider: ExecutionProvider, build: (g: Graph, input: Tensor, pos: Tensor, fused: boolean) => Tensor): Promise<[Float32Array, Float32Array]> {
  const g = new Graph();
  const input = g.input('x', 'float32', [B, H, T, D]);
  const pos = g.input('positions', 'int64', [B, T]);
  const session = await Session.create(g, { fused: build(g, input, pos, true), primitives: build(g, input, pos, false) }, { providers: [provider] });
  try {
    const out = await session.runTensors({ x: { data: x, dims: [B, H, T, D] }, positions: { data: positions, dims: [B, T] } });
    return [out.fused!.data as Float32Array, out.primitives!.data as Float32Array];
  } finally {
    await session.release();
  }
}

function assertClose(a: Float32Array, b: Float32Array, tolerance: number, what: string): void {
  assert.equal(a.length, b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
  assert.ok(worst <= tolerance, `${what}: the fused form differs by up to ${worst}`);
}

const rms = (g: Graph, input: Tensor, _pos: Tensor, fused: boolean) => (fused ? fusedRmsNorm : rmsNorm)(g, input, g.const(scale, { dtype: 'float32', shape: [D] }), 1e-6);
const rotation = (g: Graph, input: Tensor, pos: Tensor, fused: boolean) =>
  fused ? fusedRotary(g, input, pos, rotaryCaches(g, inverseFrequencies, 128)) : applyRotary(g, input, rotaryTables(g, pos, inverseFrequencies));

describe('fused layers', () => {
  for (const provider of ['cpu', 'webgpu'] as const) {
    it(`RMSNorm (alone, and with its residual add) and the rotation compute what the primitives compute (${provider})`, async (t) => {
      if (provider === 'webgpu') {
        const skip = await webgpuOrSkip();
        if (skip) return t.skip(skip);
      }
      // Values of magnitude up to ~2 (RMSNorm's scale up to 1.5, a rotation keeps norms): a few float32 ulps.
      assertClose(...(await bothForms(provider, rms)), 2e-6, 'RMSNorm');
      assertClose(...(await bothForms(provider, rotation)), 2e-6, 'rotation');
      // The residual add and the norm in one kernel: the sum as Add makes it, the norm of it.
      // (onnxruntime's kernel takes [B, T, C] or [N, C]: the rows of x as [B * H, T, D].)
      const rows3 = (g: Graph, input: Tensor) => g.reshape(input, [B * H, T, D]);
      const skip = (g: Graph, input: Tensor) => g.mul(input, 0.5);
      const w = (g: Graph) => g.const(scale, { dtype: 'float32', shape: [D] });
      assertClose(...(await bothForms(provider, (g, input, _pos, fused) => (fused ? fusedSkipRmsNorm(g, rows3(g, input), skip(g, rows3(g, input)), w(g), 1e-6).normed : rmsNorm(g, g.add(rows3(g, input), skip(g, rows3(g, input))), w(g), 1e-6)))), 2e-6, 'RMSNorm of a sum');
      assertClose(...(await bothForms(provider, (g, input, _pos, fused) => (fused ? fusedSkipRmsNorm(g, rows3(g, input), skip(g, rows3(g, input)), w(g), 1e-6).sum : g.add(rows3(g, input), skip(g, rows3(g, input)))))), 0, 'the sum');
    });
  }

  for (const provider of ['cpu', 'webgpu'] as const) {
    it(`GroupQueryAttention attends one new position over a left-padded cache as the primitives do, and writes the cache in place (${provider})`, async (t) => {
      if (provider === 'webgpu') {
        const skip = await webgpuOrSkip();
        if (skip) return t.skip(skip);
      }
      // 2 rows (the second left-padded by 2), 4 query heads over 2 key/value heads, a cache of capacity 7 holding 4 slots; the step writes slot 4.
      const [rows, heads, kvHeads, dim, capacity, slot] = [2, 4, 2, 16, 7, 4];
      const starts = [0, 2];
      const r = new Rng(3);
      const values = (n: number) => Float32Array.from({ length: n }, () => 2 * r.uniform() - 1);
      const [q, k, v, pastKey, pastValue] = [values(rows * heads * dim), values(rows * kvHeads * dim), values(rows * kvHeads * dim), values(rows * kvHeads * capacity * dim), values(rows * kvHeads * capacity * dim)];
      const g = new Graph();
      const input = (name: string, shape: (number | string)[]) => g.input(name, 'float32', shape);
      const past = { key: input('past_key', [rows, kvHeads, 'C', dim]), value: input('past_value', [rows, kvHeads, 'C', dim]) };
      const step = { seqlens: g.input('seqlens', 'int32', [rows]), total: g.input('total', 'int32', [1]), bias: input('bias', [rows, 1, 1, 'S']) };
      const fused = groupQueryAttention(g, input('q', [rows, 1, heads * dim]), input('k', [rows, 1, kvHeads * dim]), input('v', [rows, 1, kvHeads * dim]), past, step, heads, kvHeads);
      const bias = new Float32Array(rows * (slot + 1));
      starts.forEach((start, row) => bias.fill(-1e9, row * (slot + 1), row * (slot + 1) + start));
      // Every output read: onnxruntime's CPU kernel attends over the caches it writes.
      const session = await Session.create(g, { output: fused.output, key: fused.key, value: fused.value }, { providers: [provider] });
      let out: Awaited<ReturnType<Session['runTensors']>>;
      try {
        out = await session.runTensors({
          q: { data: q, dims: [rows, 1, heads * dim] }, k: { data: k, dims: [rows, 1, kvHeads * dim] }, v: { data: v, dims: [rows, 1, kvHeads * dim] },
          past_key: { data: pastKey, dims: [rows, kvHeads, capacity, dim] }, past_value: { data: pastValue, dims: [rows, kvHeads, capacity, dim] },
          seqlens: { data: new Int32Array(rows).fill(slot), dims: [rows] }, total: { data: Int32Array.of(slot + 1), dims: [1] }, bias: { data: bias, dims: [rows, 1, 1, slot + 1] },
        });
      } finally {
        await session.release();
      }
      // The primitives' attention in float64: head h reads key/value head h / 2, slots start..slot, the new key at slot.
      const at = (cache: Float32Array, fresh: Float32Array, row: number, kv: number, j: number, d: number) => (j === slot ? fresh[(row * kvHeads + kv) * dim + d]! : cache[((row * kvHeads + kv) * capacity + j) * dim + d]!);
      let worst = 0;
      for (let row = 0; row < rows; row++) {
        for (let h = 0; h < heads; h++) {
          const kv = Math.floor(h / (heads / kvHeads));
          const scores: number[] = [];
          for (let j = starts[row]!; j <= slot; j++) {
            let dot = 0;
            for (let d = 0; d < dim; d++) dot += q[(row * heads + h) * dim + d]! * at(pastKey, k, row, kv, j, d);
            scores.push(dot / Math.sqrt(dim));
          }
          const most = Math.max(...scores);
          const weights = scores.map((x) => Math.exp(x - most));
          const total = weights.reduce((a, b) => a + b, 0);
          for (let d = 0; d < dim; d++) {
            const expected = weights.reduce((a, w, i) => a + (w / total) * at(pastValue, v, row, kv, starts[row]! + i, d), 0);
            worst = Math.max(worst, Math.abs((out.output!.data as Float32Array)[(row * heads + h) * dim + d]! - expected));
          }
        }
      }
      assert.ok(worst < 1e-5, `the attention differs by up to ${worst}`);
      assert.deepEqual(out.key!.dims, [rows, kvHeads, capacity, dim], 'the cache keeps its capacity');
      const written = out.key!.data as Float32Array;
      for (let row = 0; row < rows; row++) {
        for (let kv = 0; kv < kvHeads; kv++) {
          for (let j = 0; j < slot; j++) for (let d = 0; d < dim; d++) assert.equal(written[((row * kvHeads + kv) * capacity + j) * dim + d], pastKey[((row * kvHeads + kv) * capacity + j) * dim + d], 'the slots before are kept');
          for (let d = 0; d < dim; d++) assert.equal(written[((row * kvHeads + kv) * capacity + slot) * dim + d], k[(row * kvHeads + kv) * dim + d], 'the new key is written at its slot');
        }
      }
    });
  }

  it("writes a node's later outputs under their tensors' names, and an absent input as an empty name", () => {
    const g = new Graph();
    const x = g.input('x', 'float32', [2, 8]);
    const [first, second] = g.customOutputs('Pair', [x, g.absent(), x], [{ dtype: 'float32', shape: [2, 8] }, { dtype: 'float32', shape: [2, 4] }], { domain: ORT_DOMAIN });
    const model = ModelProto.toObject(ModelProto.decode(buildModel(g, { outputs: { a: first!, b: g.add(second!, 1) } }).bytes)) as { graph: { node: { op_type: string; input: string[]; output: string[] }[] } };
    const pair = model.graph.node.find((n) => n.op_type === 'Pair')!;
    assert.deepEqual(pair.input, ['x', '', 'x']);
    assert.equal(pair.output.length, 2);
    assert.equal(pair.output[0], 'a');
    const add = model.graph.node.find((n) => n.op_type === 'Add')!;
    assert.equal(add.input[0], pair.output[1], 'the second output is read by name');
    // Only the outputs the model reads are named: an unread later output is written as ''.
    const only = ModelProto.toObject(ModelProto.decode(buildModel(g, { outputs: { a: first! } }).bytes)) as typeof model;
    assert.deepEqual(only.graph.node.find((n) => n.op_type === 'Pair')!.output, ['a']);
  });

  it('makes the rotation tables once per graph for the same frequencies and length', () => {
    const g = new Graph();
    const first = rotaryCaches(g, inverseFrequencies, 64);
    assert.equal(rotaryCaches(g, inverseFrequencies, 64), first, 'a K-step graph holds one pair of tables');
    assert.notEqual(rotaryCaches(g, inverseFrequencies, 32), first);
    assert.notEqual(rotaryCaches(new Graph(), inverseFrequencies, 64), first);
  });

  it("imports onnxruntime's domain in a model that uses it, and only then", () => {
    const imports = (fused: boolean) => {
      const g = new Graph();
      const input = g.input('x', 'float32', [B, H, T, D]);
      const y = rotation(g, input, g.input('positions', 'int64', [B, T]), fused);
      const model = ModelProto.toObject(ModelProto.decode(buildModel(g, { outputs: { y } }).bytes), { longs: Number }) as { opset_import: { domain?: string; version: number }[]; graph: { node: { op_type: string; domain?: string }[] } };
      return { domains: model.opset_import.map((o) => o.domain ?? ''), nodes: model.graph.node };
    };
    const fused = imports(true);
    assert.deepEqual(fused.domains, ['', ORT_DOMAIN]);
    assert.deepEqual(fused.nodes.filter((n) => n.domain === ORT_DOMAIN).map((n) => n.op_type), ['RotaryEmbedding']);
    assert.deepEqual(imports(false).domains, ['']);
  });

  it("refuses a domain written into a custom op's name", () => {
    const g = new Graph();
    assert.throws(() => g.custom(`${ORT_DOMAIN}:RotaryEmbedding`, [g.input('x', 'float32', [2])], { dtype: 'float32', shape: [2] }), /give the domain as `domain`/);
  });
});
