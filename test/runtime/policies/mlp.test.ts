// The mlp policy: CleanRL's initialisation, the plain-JS forward pass against onnxruntime,
// and the exported standalone ONNX policy reproducing the trainer's actions when loaded in
// a fresh InferenceSession.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import * as ort from 'onnxruntime-node';

import { PPO, ppoSettings } from '../../../runtime/algorithms/index.js';
import { Stepper } from '../../../runtime/algorithms/stepper.js';
import { makeVecEnv } from '../../../runtime/envs/registry.js';
import { DenseStack, fastTanh, type DenseLayerSource } from '../../../runtime/policies/dense.js';
import { flatPolicySpaces, makeActorCritic, mlpSettings, PolicyFactory, type ActorCriticPolicy as Policy, type PolicySpaces } from '../../../runtime/policies/index.js';
import { Rng } from '../../../shared/random.js';
import { tempDir } from '../helpers.js';

const DISCRETE: PolicySpaces = flatPolicySpaces(4, { kind: 'discrete', n: 2 });
const BOX: PolicySpaces = flatPolicySpaces(3, { kind: 'box', shape: [2], low: [-1, -2], high: [1, 2] });

function policy(params: Record<string, unknown>, spaces: PolicySpaces, seed = 1): Policy {
  return makeActorCritic({ kind: 'mlp', name: 'Actor', params }, spaces, new Rng(seed));
}

/** W W^T for a [rows, cols] matrix with rows <= cols. */
function gram(w: Float32Array, rows: number, cols: number): number[][] {
  return Array.from({ length: rows }, (_, i) =>
    Array.from({ length: rows }, (_, j) => {
      let s = 0;
      for (let k = 0; k < cols; k++) s += w[i * cols + k] * w[j * cols + k];
      return s;
    }),
  );
}

/** A fresh InferenceSession on the exported model, as any program would load it. */
async function exported(p: Policy): Promise<ort.InferenceSession> {
  const file = path.join(tempDir(), 'policy.onnx');
  fs.writeFileSync(file, p.exportOnnx({ format: 'rlx-policy' }));
  return ort.InferenceSession.create(file);
}

function randomObs(rows: number, dim: number, seed: number): Float32Array {
  const rng = new Rng(seed);
  return Float32Array.from({ length: rows * dim }, () => rng.uniformRange(-2, 2));
}

describe('mlp policy', () => {
  it('reads its params with the defaults of the registry and names bad ones', () => {
    assert.deepEqual(mlpSettings({}), { hidden: [64, 64], activation: 'tanh', sharedTrunk: false, core: null });
    assert.deepEqual(mlpSettings({ core: { kind: 'lstm', size: 16 } }).core, { kind: 'lstm', size: 16 });
    assert.throws(() => mlpSettings({ core: { kind: 'rnn', size: 16 } }), /core.*none, gru\(size\) or lstm\(size\)/);
    assert.throws(() => mlpSettings({ activation: 'gelu' }), /policy mlp: param "activation" must be one of tanh, relu, got "gelu"/);
    assert.throws(() => mlpSettings({ hidden: [] }), /param "hidden" must be a non-empty list/);
    assert.throws(() => mlpSettings({ layers: 2 }), /unknown param "layers"; valid params: hidden, activation, shared_trunk/);
  });

  it('initialises as CleanRL: orthogonal, gain sqrt 2 hidden, 0.01 actor head, 1 critic head, zero biases', () => {
    const p = policy({}, DISCRETE);
    assert.deepEqual(p.weights.names, [
      'actor.0.weight', 'actor.0.bias', 'actor.1.weight', 'actor.1.bias', 'actor.out.weight', 'actor.out.bias',
      'critic.0.weight', 'critic.0.bias', 'critic.1.weight', 'critic.1.bias', 'critic.out.weight', 'critic.out.bias',
    ]);
    const check = (name: string, rows: number, cols: number, gain: number) => {
      const w = p.weights.get(name).data;
      // The smaller side is orthonormal (times the gain): rows of W, or rows of W^T.
      const transposed = rows > cols ? Float32Array.from({ length: rows * cols }, (_, i) => w[(i % rows) * cols + Math.floor(i / rows)]) : w;
      const g = gram(transposed, Math.min(rows, cols), Math.max(rows, cols));
      g.forEach((row, i) => row.forEach((v, j) => assert.ok(Math.abs(v - (i === j ? gain * gain : 0)) < 1e-5, `${name}: (W W^T)[${i}][${j}] = ${v}`)));
    };
    check('actor.0.weight', 4, 64, Math.SQRT2);
    check('critic.1.weight', 64, 64, Math.SQRT2);
    check('actor.out.weight', 64, 2, 0.01);
    check('critic.out.weight', 64, 1, 1);
    for (const name of p.weights.names.filter((n) => n.endsWith('.bias'))) assert.ok(p.weights.get(name).data.every((b) => b === 0), name);
    const continuous = policy({ shared_trunk: true, hidden: [8] }, BOX);
    assert.deepEqual(continuous.weights.names, ['trunk.0.weight', 'trunk.0.bias', 'actor.out.weight', 'actor.out.bias', 'critic.out.weight', 'critic.out.bias', 'actor.log_std']);
    assert.deepEqual(Array.from(continuous.weights.get('actor.log_std').data), [0, 0]);
  });

  it('runs the same layers in the WebAssembly SIMD kernel as in the JS loop', () => {
    const rng = new Rng(4);
    const widths = [5, 64, 19, 33, 3];
    const sources: DenseLayerSource[] = widths.slice(1).map((out, l) => ({
      weight: Float32Array.from({ length: widths[l] * out }, () => rng.uniformRange(-0.5, 0.5)),
      bias: Float32Array.from({ length: out }, () => rng.uniformRange(-0.5, 0.5)),
      inDim: widths[l],
      outDim: out,
      activation: l === widths.length - 2 ? 'none' : l % 2 === 0 ? 'tanh' : 'relu',
    }));
    const simd = new DenseStack(sources);
    const js = new DenseStack(sources, { simd: false });
    for (const rows of [1, 2, 4, 7, 40]) {
      const x = randomObs(rows, 5, rows);
      const a = new Float32Array(rows * 3);
      const b = new Float32Array(rows * 3);
      simd.forward(x, rows, a);
      js.forward(x, rows, b);
      for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i] - b[i]) < 1e-5, `${rows} rows, output ${i}: SIMD ${a[i]}, JS ${b[i]}`);
    }
    assert.equal(simd.usesSimd, true, 'Node 20 has WebAssembly SIMD');
    assert.equal(js.usesSimd, false);
    // An optimiser step, then sync(): both kernels see the new weights (the JS loop's copy is
    // made when it next runs), and agree with a stack built from them.
    for (const source of sources) for (let i = 0; i < source.weight.length; i += 3) source.weight[i] += 0.25;
    simd.sync();
    js.sync();
    const fresh = new DenseStack(sources, { simd: false });
    const x = randomObs(4, 5, 11);
    const [a, b, c] = [new Float32Array(12), new Float32Array(12), new Float32Array(12)];
    simd.forward(x, 4, a);
    js.forward(x, 4, b);
    fresh.forward(x, 4, c);
    for (let i = 0; i < a.length; i++) {
      assert.equal(b[i], c[i], `JS after sync, output ${i}`);
      assert.ok(Math.abs(a[i] - c[i]) < 1e-5, `SIMD after sync, output ${i}: ${a[i]} vs ${c[i]}`);
    }
  });

  it('has a fast tanh within 3e-8 of Math.tanh', () => {
    for (let x = -12; x <= 12; x += 0.001) assert.ok(Math.abs(fastTanh(x) - Math.tanh(x)) < 3e-8, `x = ${x}`);
  });

  for (const [label, params, spaces] of [
    ['tanh, separate networks, discrete', {}, DISCRETE],
    ['relu, shared trunk, discrete', { activation: 'relu', shared_trunk: true, hidden: [7, 5, 3] }, DISCRETE],
    ['tanh, continuous', { hidden: [6, 9] }, BOX],
  ] as const) {
    it(`exports a standalone ONNX policy whose outputs the JS forward pass matches (${label})`, async () => {
      const p = policy(params, spaces, 3);
      // Move every parameter off its initial value, so that biases and heads matter too.
      const rng = new Rng(9);
      for (const name of p.weights.names) for (const [i, v] of p.weights.get(name).data.entries()) p.weights.get(name).data[i] = v + rng.uniformRange(-0.3, 0.3);
      p.sync();
      const session = await exported(p);
      assert.deepEqual(session.inputNames, ['obs']);
      const headName = spaces.actionSpace.kind === 'discrete' ? 'logits' : 'mean';
      assert.deepEqual([...session.outputNames].sort(), (spaces.actionSpace.kind === 'discrete' ? ['logits', 'value'] : ['log_std', 'mean', 'value']).sort());
      const width = p.distribution.headWidth;
      for (const rows of [1, 3, 4, 9]) {
        const obs = randomObs(rows, spaces.obsDim, rows);
        const out = await session.run({ obs: new ort.Tensor('float32', obs, [rows, spaces.obsDim]) });
        const head = new Float32Array(rows * width);
        p.actorForward(obs, rows, head);
        const expected = out[headName].data as Float32Array;
        for (let i = 0; i < head.length; i++) assert.ok(Math.abs(head[i] - expected[i]) < 1e-5, `${rows} rows, ${headName}[${i}]: JS ${head[i]}, ONNX ${expected[i]}`);
        assert.deepEqual(out.value.dims, [rows]);
        if (headName === 'mean') assert.deepEqual(Array.from(out.log_std.data as Float32Array).slice(0, 2), Array.from(p.weights.get('actor.log_std').data));
      }
      await session.release();
    });
  }

  it("reproduces the trainer's actions, sampled and deterministic, after training", async () => {
    const vec = makeVecEnv('CartPole', {}, 4);
    const stepper = new Stepper(vec, null);
    stepper.reset(2);
    const p = policy({}, DISCRETE, 2);
    const factory = new PolicyFactory({ kind: 'mlp', name: 'p', params: {} }, p.spaces, new Rng(0));
    factory.networks = <N>() => p as unknown as N;
    const ppo = await PPO.create({ policy: factory, stepper, budget: 1024, rng: new Rng(2), compute: { providers: ['cpu'] } }, ppoSettings({ rollout_steps: 64 }));
    while (!ppo.done) await ppo.iterate();
    await ppo.release();
    const session = await exported(p);
    const rows = 256;
    const obs = randomObs(rows, 4, 5);
    const logits = (await session.run({ obs: new ort.Tensor('float32', obs, [rows, 4]) })).logits.data as Float32Array;
    const head = new Float32Array(rows * 2);
    p.actorForward(obs, rows, head);
    const act = (source: Float32Array, deterministic: boolean) => {
      const rng = new Rng(13);
      const actions = new Int32Array(rows);
      const encoded = new Float32Array(rows * 2);
      for (let r = 0; r < rows; r++) {
        if (deterministic) p.distribution.mode(source, r * 2, actions, r);
        else p.distribution.sample(source, r * 2, rng, actions, r, encoded, r * 2);
      }
      return Array.from(actions);
    };
    assert.deepEqual(act(logits, false), act(head, false), 'sampled actions with the same random draws');
    assert.deepEqual(act(logits, true), act(head, true), 'most likely actions');
    assert.ok(new Set(act(head, true)).size === 2, 'the trained policy is not constant');
    await session.release();
  });
});
