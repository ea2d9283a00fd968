// Device choice: cpu always works; auto falls back to the cpu with one line saying why; an
// explicit GPU that cannot start is a DeviceError; the probe's model is what buildModel writes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { DeviceError, hardwareGpuDiscovered, probeProvider, PROBE_MODEL, selectDevice } from '../../runtime/device.js';
import { GPU_MIN_MACS_PER_STEP, gpuWorthIt, planWork } from '../../runtime/device-rule.js';
import { parsePlacements, summarize } from '../../runtime/tensor/placement.js';
import { makePlan } from './helpers.js';
import { Graph } from '../../runtime/tensor/graph.js';
import { buildModel } from '../../runtime/tensor/onnx.js';

it('probes with a model buildModel writes as it is stored', () => {
  const g = new Graph();
  const x = g.input('x', 'float32', [2]);
  assert.equal(Buffer.from(buildModel(g, { outputs: { y: g.add(x, 1) } }).bytes).toString('base64'), PROBE_MODEL);
});

it('starts the cpu, and treats GPUs as the machine allows', async () => {
  assert.deepEqual(await probeProvider('cpu'), { ok: true });
  assert.deepEqual(await selectDevice('cpu'), { provider: 'cpu', reason: 'asked for' });
  const auto = await selectDevice('auto');
  const [cuda, webgpu] = [await probeProvider('cuda'), await probeProvider('webgpu')];
  if (cuda.ok) {
    assert.equal(auto.provider, 'cuda');
    assert.equal((await selectDevice('cuda')).provider, 'cuda');
  } else {
    // The default onnxruntime-node has no CUDA provider: a clear error, naming the way out.
    await assert.rejects(selectDevice('cuda'), (err: unknown) => err instanceof DeviceError && /^device cuda cannot start: .+\. Use --device cpu/.test(err.message));
    // auto takes webgpu when it starts on a GPU, else the cpu with both reasons (a software
    // adapter such as llvmpipe counts as none).
    if (webgpu.ok && webgpu.hardwareGpu !== false) assert.equal(auto.provider, 'webgpu');
    else assert.match(auto.note ?? '', /^device auto: no GPU provider started on a GPU \(cuda: .+; webgpu: .+\); training on the cpu$/);
  }
  if (webgpu.ok) assert.equal((await selectDevice('webgpu')).provider, 'webgpu');
  await assert.rejects(selectDevice('tpu' as never), /unknown device "tpu"; use one of auto, cpu, cuda, webgpu/);
});

describe('device auto', () => {
  it('trains small MLPs on the cpu without probing a GPU, saying why', async () => {
    // CartPole's PPO (examples/cartpole.rlx): 128-row minibatches through two 64x64 MLPs.
    const plan = makePlan({ algorithmParams: { rollout_steps: 128, minibatches: 4 }, policyParams: { hidden: [64, 64] } });
    const work = planWork(plan);
    assert.equal(work.rows, 128);
    assert.ok(work.macsPerStep > 1e6 && work.macsPerStep < 1e7, String(work.macsPerStep));
    const choice = await selectDevice('auto', plan);
    assert.equal(choice.provider, 'cpu');
    assert.match(choice.reason, /^auto: a gradient step is ~3\.\d+M multiply-adds \(128 rows\), under the 250M a GPU needs to beat the CPU$/);
    assert.equal(choice.note, undefined);
  });

  it('wants a GPU for big minibatches, wide MLPs and transformer batches', () => {
    const ppo = (minibatchRows: number, hidden: number[]) =>
      planWork(makePlan({ envs: 8, algorithmParams: { rollout_steps: minibatchRows / 8, minibatches: 1 }, policyParams: { hidden } }));
    // The cases of `npm run bench -- gpu`, whose webgpu/cpu ratios on an H200 set the thresholds.
    assert.equal(gpuWorthIt(ppo(2048, [64, 64])).worth, false); // 52M: 0.2-0.3x
    assert.equal(gpuWorthIt(ppo(16384, [64, 64])).worth, true); // 415M: 1.3-1.7x
    assert.equal(gpuWorthIt(ppo(16384, [256, 256])).worth, true);
    assert.equal(gpuWorthIt(planWork(makePlan({ algorithm: 'DQN', algorithmParams: { batch_size: 64 }, policyParams: { hidden: [256, 256] } }))).worth, false);
    const transformer = (batch: number) => ({ ...makePlan({ algorithm: 'SFT', algorithmParams: { batch_size: batch } }), policy: { name: 'T', kind: 'transformer', params: { layers: 2, width: 64, heads: 4, context: 32 } } });
    const work = planWork(transformer(64));
    assert.equal(work.rows, 64);
    // The example's model at batch 64 (654M): 1.0-1.2x per step on an H200, 1.1x over the whole run.
    assert.equal(work.gpuFrom, GPU_MIN_MACS_PER_STEP.transformer);
    assert.ok(work.macsPerStep >= GPU_MIN_MACS_PER_STEP.transformer, String(work.macsPerStep));
    // Half the batch would be above the MLP's threshold but is slower on the GPU: the transformer's has its own.
    const half = planWork(transformer(32));
    assert.ok(half.macsPerStep > GPU_MIN_MACS_PER_STEP.mlp && !gpuWorthIt(half).worth, String(half.macsPerStep));
  });

  it("counts a text learner's step as its groups' rows: GRPO's, with sft_data's demonstrations, and a learner module's", () => {
    const text = (algorithm: string, algorithmParams: Record<string, unknown>) =>
      planWork({ ...makePlan({ env: 'TextTask', algorithm, algorithmParams }), policy: { name: 'T', kind: 'transformer', params: { layers: 2, width: 64, heads: 4, context: 32 } } });
    // GRPO's defaults: 16 prompts x 8 completions, all in one gradient step.
    assert.equal(text('GRPO', {}).rows, 128);
    assert.equal(text('GRPO', { prompts_per_update: 4, group_size: 16 }).rows, 64);
    assert.equal(text('GRPO', { prompts_per_update: 4, group_size: 16, sft_data: 'demos', sft_batch_size: 8 }).rows, 72);
    // A learner module: rlx's own sampling settings (defaults filled), its own settings ignored.
    assert.equal(text('module', { beta: 0.1 }).rows, 128);
    assert.equal(text('module', { prompts_per_update: 2, group_size: 4, beta: 0.1 }).rows, 8);
    // The example's model at GRPO's default batch is past the transformer's threshold, as SFT's batch 64 is.
    assert.equal(gpuWorthIt(text('GRPO', {})).worth, true);
  });

  it("reads onnxruntime's discovered hardware", () => {
    const line = (type: number) => `2026-11-26 00:40:05.9 [I:onnxruntime:onnxruntime-node, device_discovery_common.cc:34 operator()] Discovered OrtHardwareDevice {vendor_id:0x10de, device_id:0x2330, vendor:NVIDIA, type:${type}, metadata: []}`;
    assert.equal(hardwareGpuDiscovered(line(0)), false);
    assert.equal(hardwareGpuDiscovered(`${line(0)}\n${line(1)}`), true);
    assert.equal(hardwareGpuDiscovered('no discovery here'), undefined);
  });
});

describe("onnxruntime's node placement log", () => {
  const at = (text: string) => `2026-11-26 00:16:18.797 [V:onnxruntime:, session_state.cc:1385 VerifyEachNodeIsAssignedToAnEp] ${text}`;
  it('lists each session: fallbacks, shape work kept on the CPU, copies', () => {
    const log = [
      at('Node placements'),
      at(' Node(s) placed on [CPUExecutionProvider]. Number of nodes: 3'),
      at('  LogSoftmax (LogSoftmax_38)'),
      at('  Concat (Concat_134)'),
      at('  ConstantOfShape (ConstantOfShape_135)'),
      at(' Node(s) placed on [WebGpuExecutionProvider]. Number of nodes: 4'),
      at('  MatMul (MatMul_31)'),
      at('  Tanh (Tanh_8)'),
      at('  MemcpyFromHost (Memcpy)'),
      at('  MemcpyToHost (Memcpy_token_1)'),
      '2026-11-26 00:16:18.814 [W:onnxruntime:, session_state.cc:1397 VerifyEachNodeIsAssignedToAnEp] Some nodes were not assigned to the preferred execution providers',
      at('Node placements'),
      at(' All nodes placed on [WebGpuExecutionProvider]. Number of nodes: 6'),
    ].join('\n');
    const [first, second, ...rest] = parsePlacements(log).map(summarize);
    assert.equal(rest.length, 0);
    assert.deepEqual(first!.fallbacks, [{ op: 'LogSoftmax', name: 'LogSoftmax_38' }]);
    assert.deepEqual(first!.shapeNodes.map((n) => n.op), ['Concat', 'ConstantOfShape']);
    assert.equal(first!.copies, 2);
    assert.equal(first!.onDevice, 2);
    assert.deepEqual(second, { fallbacks: [], shapeNodes: [], copies: 0, onDevice: 6 });
  });
});
