// A pretrained model (the hf-tiny Qwen2 with its PEFT LoRA adapter) on onnxruntime's WebGPU
// provider: its greedy completion and per-token log-probs equal the CPU's, and one LoRA SFT
// step gives the CPU's loss, moves only the adapters, and never sends the frozen base weights
// to the provider (they are baked into the sessions as initializers: a feed would be copied to
// the device at every run). Without a GPU this runs on Mesa's software Vulkan (lavapipe, as
// test/runtime/webgpu.test.ts); where no adapter starts it is skipped, saying how to install
// one, except in CI (CI=1), where it fails.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import * as ort from 'onnxruntime-node';
import type { Plan } from '../../../dsl/compile/plan.js';
import { Sft } from '../../../runtime/algorithms/sft/sft.js';
import { sftSettings } from '../../../runtime/algorithms/sft/settings.js';
import { GRPO } from '../../../runtime/algorithms/grpo/grpo.js';
import { grpoSettings } from '../../../runtime/algorithms/grpo/settings.js';
import { openModelFolder } from '../../../runtime/lm/model-folder.js';
import { PretrainedLm } from '../../../runtime/lm/pretrained.js';
import { PretrainedPolicy } from '../../../runtime/policies/pretrained.js';
import { TextEnvironment } from '../../../runtime/text/env.js';
import type { ExecutionProvider } from '../../../runtime/tensor/session.js';
import { Rng } from '../../../shared/random.js';
import { repoRoot } from '../../helpers/repo.js';
import { makePlan } from '../helpers.js';
import { webgpuOrSkip } from '../../helpers/webgpu.js';

const QWEN2 = path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2');
const ADAPTER = path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2-lora');
const loadLm = (provider: ExecutionProvider) => PretrainedLm.load(openModelFolder(QWEN2), { lora: { adapterDir: ADAPTER }, providers: [provider] });

/** The names fed to every onnxruntime run while `body` runs (what is sent to the provider). */
async function feedNames<T>(body: () => Promise<T>): Promise<{ result: T; fed: Set<string> }> {
  // onnxruntime-common declares a factory, but it is the session class: every session runs through its prototype.
  const proto = (ort.InferenceSession as unknown as { prototype: { run: (feeds: Record<string, unknown>, ...rest: unknown[]) => unknown } }).prototype;
  const run = proto.run;
  const fed = new Set<string>();
  proto.run = function (this: unknown, feeds: Record<string, unknown>, ...rest: unknown[]) {
    for (const name of Object.keys(feeds)) fed.add(name);
    return run.call(this, feeds, ...rest);
  };
  try {
    return { result: await body(), fed };
  } finally {
    proto.run = run;
  }
}

/** One LoRA SFT step on `provider` from the fixture's adapter: its loss, the weights after, and the names its runs were fed. */
async function sftStep(provider: ExecutionProvider) {
  const lm = loadLm(provider);
  const policy = new PretrainedPolicy(lm, { folder: QWEN2, lora: lm.lora!.settings });
  const plan: Plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 6 }, algorithm: 'SFT', algorithmParams: {} });
  const env = TextEnvironment.fromPlan(plan);
  const before = { adapters: policy.weights.snapshot(), base: policy.frozenWeights!.snapshot() };
  const sft = await Sft.create({ model: policy, env, budget: null, rng: new Rng(2), compute: { providers: [provider], threads: false } } as never, sftSettings({ updates: 1, batch_size: 4, learning_rate: 1e-2 }));
  try {
    const { result, fed } = await feedNames(() => sft.iterate());
    return { loss: result['losses/sft_loss']!, fed, before, policy };
  } finally {
    await sft.release();
    await policy.release();
  }
}

/** The names a GRPO step with a KL reference (its own log-prob session) feeds on webgpu, and the base's names. */
async function grpoStepFeeds() {
  const lm = loadLm('webgpu');
  const policy = new PretrainedPolicy(lm, { folder: QWEN2, lora: lm.lora!.settings });
  const plan: Plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 3 }, algorithm: 'GRPO', algorithmParams: {} });
  const settings = grpoSettings({ prompts_per_update: 1, group_size: 2, max_new_tokens: 3, kl_coef: 0.04, kl_in_reward: true });
  const grpo = await GRPO.create({ model: policy, env: TextEnvironment.fromPlan(plan), budget: 2, rng: new Rng(3), compute: { providers: ['webgpu'], threads: false } } as never, settings);
  try {
    const { result, fed } = await feedNames(() => grpo.iterate());
    return { kl: result['losses/kl']!, fed, base: policy.frozenWeights!.names };
  } finally {
    await grpo.release();
    await policy.release();
  }
}

describe('a pretrained model with LoRA on the webgpu provider', () => {
  let skip: string | false = false;
  before(async () => {
    skip = await webgpuOrSkip();
  });

  it('completes a prompt greedily with the cpu\'s tokens and per-token log-probs (float32 tolerance)', async (t) => {
    if (skip) return t.skip(skip);
    const decode = async (provider: ExecutionProvider) => {
      const lm = loadLm(provider);
      try {
        const prompt = lm.tokenizer.encode('12+34=');
        const [completion] = await lm.generate([prompt], { maxNewTokens: 6, greedy: true });
        return { ids: completion!.ids, logProbs: await lm.score(prompt, completion!.ids) };
      } finally {
        await lm.release();
      }
    };
    const [cpu, gpu] = [await decode('cpu'), await decode('webgpu')];
    assert.deepEqual(gpu.ids, cpu.ids);
    assert.equal(cpu.logProbs.length, 6, 'six tokens scored');
    cpu.logProbs.forEach((lp, i) => assert.ok(Math.abs(gpu.logProbs[i]! - lp) <= 1e-4 * Math.max(1, Math.abs(lp)), `token ${i}: webgpu ${gpu.logProbs[i]}, cpu ${lp}`));
  });

  it('takes an SFT step with the cpu\'s loss, moving only the adapters, the base weights baked and never fed', async (t) => {
    if (skip) return t.skip(skip);
    const [cpu, gpu] = [await sftStep('cpu'), await sftStep('webgpu')];
    assert.ok(Math.abs(gpu.loss - cpu.loss) <= 1e-4 * Math.abs(cpu.loss), `loss: webgpu ${gpu.loss}, cpu ${cpu.loss}`);
    const baseNames = gpu.policy.frozenWeights!.names;
    assert.ok(baseNames.length > 0);
    for (const name of baseNames) assert.deepEqual(gpu.policy.frozenWeights!.get(name).data, gpu.before.base[name]!.data, `base weight ${name} changed`);
    const moved = gpu.policy.weights.names.filter((name) => gpu.policy.weights.get(name).data.some((v, i) => v !== gpu.before.adapters[name]!.data[i]));
    assert.ok(moved.length > 0 && moved.every((name) => name.includes('lora_')), `moved: ${moved.join(', ')}`);
    // The CPU feeds its base weights (a feed there is the array itself, no copy): the spy sees them.
    assert.ok(baseNames.every((name) => cpu.fed.has(name)), 'the cpu step is fed its base weights');
    const sent = baseNames.filter((name) => gpu.fed.has(name));
    assert.deepEqual(sent, [], 'webgpu runs are fed no base weight: they are baked into the session');
    assert.ok(gpu.policy.weights.names.every((name) => gpu.fed.has(name)), 'the adapters are fed at each run');
  });

  it('takes a GRPO step whose KL reference and log-prob passes are fed no base weight either', async (t) => {
    if (skip) return t.skip(skip);
    const { kl, fed, base } = await grpoStepFeeds();
    assert.ok(Number.isFinite(kl), `kl ${kl}`);
    assert.ok(fed.has('model.layers.0.self_attn.q_proj.lora_A.weight'), 'the spy sees the runs');
    assert.deepEqual(base.filter((name) => fed.has(name)), []);
  });
});
