// The fused forms of RMSNorm and the rotary embedding (tensor/layers.ts), which the chunked
// decoder writes as one onnxruntime kernel each: they compute what the primitives compute (on the
// CPU provider, and on webgpu where it starts), the rotation's tables are made once per graph, and
// a model that uses onnxruntime's own domain imports it (and only then).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Graph, ORT_DOMAIN } from '../../../runtime/tensor/graph.js';
import { applyRotary, fusedRmsNorm, fusedRotary, rmsNorm, rotaryCaches, rotaryTables } from '../../../runtime/tensor/layers.js';
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
    it(`RMSNorm and the rotation compute what the primitives compute (${provider})`, async (t) => {
      if (provider === 'webgpu') {
        const skip = await webgpuOrSkip();
        if (skip) return t.skip(skip);
      }
      // Values of magnitude up to ~2 (RMSNorm's scale up to 1.5, a rotation keeps norms): a few float32 ulps.
      assertClose(...(await bothForms(provider, rms)), 2e-6, 'RMSNorm');
      assertClose(...(await bothForms(provider, rotation)), 2e-6, 'rotation');
    });
  }

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
