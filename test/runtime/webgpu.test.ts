// Training on onnxruntime's WebGPU provider: one PPO update's loss, metrics and gradients equal
// the CPU provider's within float32 tolerance, the graph runs on the GPU but for the nodes we
// know have no WebGPU kernel, and a short run learns. Without a GPU these run on Mesa's
// software Vulkan (lavapipe, Mesa >= 25: docs/gpu.md); where no adapter starts they are skipped,
// saying how to install one, except in CI (CI=1), where they fail. A transformer's SFT run in
// precision fp16 learns as fp32's does.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { before, describe, it } from 'node:test';

import { buildPpoLoss, ppoGradientStep, ppoSettings } from '../../runtime/algorithms/index.js';
import { flatPolicySpaces, makeActorCritic, type ActorCriticPolicy } from '../../runtime/policies/index.js';
import { Rng } from '../../shared/random.js';
import { train } from '../../runtime/train.js';
import type { ExecutionProvider } from '../../runtime/tensor/session.js';
import { parsePlacements, summarize } from '../../runtime/tensor/placement.js';
import { makePlan, tempDir, ZOO_PPO } from './helpers.js';
import { ppoMinibatch } from '../helpers/ppo-minibatch.js';
import { webgpuOrSkip } from '../helpers/webgpu.js';

/** CartPole's actor-critic as `rlx train` builds it (hidden [64, 64], tanh). */
const cartpolePolicy = (seed: number): ActorCriticPolicy =>
  makeActorCritic({ kind: 'mlp', name: 'p', params: { hidden: [64, 64] } }, flatPolicySpaces(4, { kind: 'discrete', n: 2 }), new Rng(seed));

/** A minibatch whose old log-probs are offset so that some ratios are clipped on each side. */

async function ppoUpdate(provider: ExecutionProvider, rows: number) {
  const policy = cartpolePolicy(5);
  const step = await ppoGradientStep(buildPpoLoss(policy, ppoSettings({ clip_value: true })), policy, { compute: { providers: [provider], threads: false }, maxRows: rows });
  try {
    const result = await step.run(ppoMinibatch(rows, new Rng(11)));
    return { loss: result.loss, metrics: Array.from(result.metrics), names: step.metricNames, grads: result.grads.map((g) => Float32Array.from(g)) };
  } finally {
    await step.release();
  }
}

describe('the webgpu provider', () => {
  let skip: string | false = false;
  before(async () => {
    skip = await webgpuOrSkip();
  });

  it("computes one PPO update's loss, metrics and gradients as the cpu does (float32 tolerance)", async (t) => {
    if (skip) return t.skip(skip);
    const rows = 128;
    const [cpu, gpu] = [await ppoUpdate('cpu', rows), await ppoUpdate('webgpu', rows)];
    const close = (a: number, b: number, scale: number, what: string) => assert.ok(Math.abs(a - b) <= 1e-5 + 1e-4 * scale, `${what}: webgpu ${a}, cpu ${b}`);
    close(gpu.loss, cpu.loss, Math.abs(cpu.loss), 'loss');
    cpu.metrics.forEach((m, i) => close(gpu.metrics[i]!, m, Math.abs(m), cpu.names[i]!));
    assert.ok(cpu.metrics[cpu.names.indexOf('clipfrac')]! > 0, 'the minibatch exercises the clip');
    assert.equal(gpu.grads.length, cpu.grads.length);
    cpu.grads.forEach((g, k) => {
      const scale = g.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      assert.ok(scale > 0, `gradient ${k} is not all zero`);
      g.forEach((x, i) => close(gpu.grads[k]![i]!, x, scale, `gradient ${k}[${i}]`));
    });
  });

  it("runs PPO's graphs and the transformer's GRPO step (fp32 and fp16) on the GPU with no node left to the CPU", async (t) => {
    if (skip) return t.skip(skip);
    // A child process per case, as onnxruntime writes its placement log to stderr from native
    // code: buffered there, so a marker written from JavaScript between two cases may land
    // before the first's log (it did under load).
    const module = (file: string) => JSON.stringify(new URL(file, import.meta.url).href);
    const placements = (body: string) => {
      const script = `
        const { buildPpoLoss, ppoGradientStep, ppoSettings } = await import(${module('../../runtime/algorithms/index.js')});
        const { buildGrpoLoss } = await import(${module('../../runtime/algorithms/text/policy-gradient-loss.js')});
        const { makeActorCritic, makeTokenModel } = await import(${module('../../runtime/policies/index.js')});
        const { addition } = await import(${module('../../runtime/text/generated.js')});
        const { taskTokenizer } = await import(${module('../../runtime/text/task.js')});
        const { GradientStep } = await import(${module('../../runtime/tensor/index.js')});
        const { Rng } = await import(${module('../../shared/random.js')});
        ${body}`;
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 180_000, maxBuffer: 64 << 20, env: { ...process.env, RLX_ORT_PLACEMENT: '1' } });
      assert.equal(run.status, 0, run.stderr.slice(-2000));
      return { found: parsePlacements(run.stderr).map(summarize), log: run.stderr.slice(-3000) };
    };
    const grpoStep = (precision: string) => `
      const model = makeTokenModel({ kind: 'transformer', name: 'Tiny', params: { layers: 1, width: 32, heads: 2, context: 16 } }, taskTokenizer(addition(2)), new Rng(1));
      const grpo = buildGrpoLoss(model, 13);
      const step = await GradientStep.create(grpo.graph, [{ loss: grpo.loss, weights: model.weights.names }], { weights: model.weights, compute: { providers: ['webgpu'], threads: false, precision: '${precision}' } });
      await step.release();`;
    const ppoRun = placements(`
      const policy = makeActorCritic({ kind: 'mlp', name: 'p', params: { hidden: [64, 64] } }, { obsDim: 4, actionSpace: { kind: 'discrete', n: 2 } }, new Rng(1));
      const step = await ppoGradientStep(buildPpoLoss(policy, ppoSettings({ clip_value: true })), policy, { compute: { providers: ['webgpu'], threads: false }, maxRows: 64 });
      await step.release();`);
    const transformerRun = placements(grpoStep('fp32'));
    const halfRun = placements(grpoStep('fp16'));
    const [ppo, transformer, half] = [ppoRun.found, transformerRun.found, halfRun.found];
    for (const [name, run, expected] of [['PPO', ppoRun, 0], ['GRPO', transformerRun, 1], ['fp16 GRPO', halfRun, 1]] as const) {
      assert.ok(expected === 0 ? run.found.length >= 1 : run.found.length === expected, `onnxruntime logged the ${name} step's placements ${run.found.length} times; its log:\n${run.log}`);
    }
    // precision fp16 (runtime/tensor/mixed-precision.ts): its float16 ops and casts run on the GPU too.
    assert.deepEqual(half[0]!.fallbacks.map((n) => n.op), [], 'the fp16 GRPO step leaves no node to the CPU');
    assert.ok(half[0]!.onDevice > transformer[0]!.onDevice, `the fp16 step's casts run on the GPU: ${half[0]!.onDevice} nodes`);
    assert.ok(half[0]!.copies <= transformer[0]!.copies, `host<->GPU copies per fp16 GRPO step: ${half[0]!.copies}`);
    // LogSoftmax (no webgpu kernel) and ConstantOfShape (placed on the CPU) are written as other
    // ops for webgpu (runtime/tensor/webgpu-lowering.ts); a new op here is a new fallback.
    assert.deepEqual([...ppo, ...transformer].flatMap((s) => s.fallbacks.map((n) => n.op)), []);
    assert.ok(ppo.every((s) => s.onDevice > 50), 'the PPO graphs run on the GPU');
    assert.ok(transformer[0]!.onDevice > 200, 'the GRPO step runs on the GPU');
    // Before the lowering, each bias gradient's ones-row was a CPU ConstantOfShape: ~13 copies here.
    assert.ok(transformer[0]!.copies <= 4, `host<->GPU copies per GRPO step: ${transformer[0]!.copies}`);
  });

  it('trains CartPole with --device webgpu: a short PPO run learns', async (t) => {
    if (skip) return t.skip(skip);
    const plan = makePlan({ budget: 8192, envs: 8, algorithmParams: ZOO_PPO });
    const result = await train(plan, { device: 'webgpu', out: tempDir(), compute: { threads: false } });
    assert.equal(result.status, 'finished');
    // A random policy lasts ~22 steps; the CPU run of these settings reaches ~100-200 here.
    const mean = result.metrics['train/mean_return']!;
    assert.ok(mean > 60, `mean return over the last episodes ${mean}, expected > 60 after 8k steps`);
  });

  it('trains a transformer with precision fp16 on webgpu: an SFT run learns as fp32 does', async (t) => {
    if (skip) return t.skip(skip);
    const tiny = { name: 'Tiny', kind: 'transformer', params: { layers: 1, width: 32, heads: 2, context: 16 } };
    const plan = { ...makePlan({ env: 'TextTask', envParams: { task: { kind: 'reverse', len: 3 }, max_tokens: 3 } }), policy: tiny, precision: 'fp16',
      stages: [{ name: 'main', algorithm: { name: 'SFT', kind: 'SFT', params: { updates: 40, batch_size: 32, learning_rate: 3e-3 } }, budget: null }] };
    const result = await train(plan, { device: 'webgpu', out: tempDir(), compute: { threads: false } });
    assert.equal(result.status, 'finished');
    // On lavapipe: 0.977 held-out accuracy in fp16; the same plan in fp32 reached 0.980.
    const accuracy = result.metrics['eval/accuracy']!;
    assert.ok(accuracy > 0.5, `held-out accuracy ${accuracy} after 40 fp16 updates`);
    assert.equal(result.metrics['charts/skipped_steps'], 0, 'no step overflowed');
  });
});
