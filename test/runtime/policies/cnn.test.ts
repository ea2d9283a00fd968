// The `cnn` policy: its settings, its refusals (flat observations, images too small for nature),
// and its two passes agreeing: the acting pass outside onnxruntime (conv-stack.ts) against the
// exported ONNX model, for both encoders and both image layouts, before and after training.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import * as ort from 'onnxruntime-node';
import { Q_NETWORK } from '../../../runtime/algorithms/dqn/q-network.js';
import { cnnSettings, makeActorCritic, PolicyFactory, policySpaces, type ActorCriticPolicy, type PolicySpaces } from '../../../runtime/policies/index.js';
import { Rng } from '../../../shared/random.js';
import { tempDir } from '../helpers.js';

const ACTIONS = { kind: 'discrete', n: 3 } as const;
const image = (shape: number[]): PolicySpaces => policySpaces({ kind: 'box', shape, low: [], high: [] }, ACTIONS);

function policy(params: Record<string, unknown>, spaces: PolicySpaces, seed = 1): ActorCriticPolicy {
  return makeActorCritic({ kind: 'cnn', name: 'C', params }, spaces, new Rng(seed));
}

/** Pixel rows: whole numbers 0-255, as an image env gives them. */
function pixels(rows: number, dim: number, seed: number): Float32Array {
  const rng = new Rng(seed);
  return Float32Array.from({ length: rows * dim }, () => rng.int(256));
}

async function exportedLogits(p: ActorCriticPolicy, obs: Float32Array, rows: number): Promise<Float32Array> {
  const file = path.join(tempDir(), 'policy.onnx');
  fs.writeFileSync(file, p.exportOnnx({ format: 'rlx-policy' }));
  const session = await ort.InferenceSession.create(file);
  const out = await session.run({ obs: new ort.Tensor('float32', obs, [rows, p.spaces.obsDim]) });
  await session.release();
  return out.logits!.data as Float32Array;
}

function assertClose(got: Float32Array, expected: Float32Array, what: string): void {
  assert.equal(got.length, expected.length);
  const scale = Math.max(...expected.map(Math.abs), 1e-3);
  for (let i = 0; i < got.length; i++) assert.ok(Math.abs(got[i]! - expected[i]!) <= 1e-4 * scale + 1e-6, `${what}[${i}]: JS ${got[i]}, ONNX ${expected[i]}`);
}

describe('cnn policy', () => {
  it('reads its settings with the defaults of the registry', () => {
    assert.deepEqual(cnnSettings({}), { encoder: 'nature', channels: undefined, hidden: [256], activation: 'relu', sharedTrunk: true, core: null });
    assert.deepEqual(cnnSettings({ encoder: 'impala', channels: [4, 8] }).channels, [4, 8]);
    assert.throws(() => cnnSettings({ encoder: 'resnet' }), /param "encoder" must be one of nature, impala/);
  });

  it('refuses flat observations and images too small for the nature encoder, saying what to do', () => {
    assert.throws(() => policy({}, image([4])), /policy cnn reads images \[C, H, W\] \(or \[H, W, C\]\); this env's observations are \[4\]: use an mlp policy/);
    assert.throws(() => policy({}, image([1, 16, 16])), /the nature encoder needs images of at least 36x36 .* got 16x16: use encoder: impala/);
    assert.throws(() => policy({ channels: [8, 8] }, image([1, 40, 40])), /nature encoder has 3 convolutions, so 3 widths, got 2/);
  });

  const cases: [string, Record<string, unknown>, number[]][] = [
    ['nature on [2, 36, 36]', { channels: [4, 8, 8], hidden: [16] }, [2, 36, 36]],
    ['nature on [40, 44, 3], channels last', { channels: [4, 8, 8], hidden: [16] }, [40, 44, 3]],
    ['impala on [1, 9, 9]', { encoder: 'impala', channels: [4, 6], hidden: [16] }, [1, 9, 9]],
    ['impala on [8, 10, 3], channels last', { encoder: 'impala', channels: [4, 4, 6], hidden: [8] }, [8, 10, 3]],
  ];
  for (const [name, params, shape] of cases) {
    it(`acts with the exported model's logits: ${name}`, async () => {
      const p = policy(params, image(shape));
      // Random biases and a larger head, so every layer (and its ReLU) shows in the logits.
      const rng = new Rng(9);
      for (const n of p.weights.names) {
        const w = p.weights.get(n).data;
        if (n.endsWith('.bias')) for (let i = 0; i < w.length; i++) w[i] = rng.uniformRange(-0.3, 0.3);
        if (n === 'actor.out.weight') for (let i = 0; i < w.length; i++) w[i] = w[i]! * 100;
      }
      p.sync();
      for (const rows of [1, 5]) {
        const obs = pixels(rows, p.spaces.obsDim, rows);
        const head = new Float32Array(rows * 3);
        p.actorForward(obs, rows, head);
        assertClose(head, await exportedLogits(p, obs, rows), `${rows} rows, logits`);
      }
    });
  }

  it('builds a Q-network for DQN over the same encoder', () => {
    const factory = new PolicyFactory({ kind: 'cnn', name: 'C', params: { encoder: 'impala', channels: [4], hidden: [8] } }, image([1, 8, 8]), new Rng(1));
    const q = factory.networks(Q_NETWORK, 'DQN');
    assert.equal(q.kind, 'cnn');
    assert.ok(q.weights.names.includes('q.encoder.stack0.block1.conv1.weight'));
    const out = new Float32Array(6);
    q.qValues(pixels(2, 64, 3), 2, out);
    assert.ok(out.every(Number.isFinite) && new Set(out).size > 1);
  });
});
