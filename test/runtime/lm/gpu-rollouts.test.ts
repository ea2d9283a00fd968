// A LoRA run on a GPU device decodes its rollouts there (lm/rollout-device.ts): GRPO's samples
// and held-out evaluation's greedy completions go through the chunked decoder's session
// (chunked-decoder.ts), the frozen base baked into it. On the webgpu provider via Mesa's
// software Vulkan (lavapipe) where no GPU is found, the rule forced on for the tiny fixture
// (it is far under GPU_SAMPLING_MIN_PARAMETERS). On the CPU device nothing changes: no
// chunked session is built, and the rule is neither logged nor recorded.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import * as ort from 'onnxruntime-node';
import type { Plan } from '../../../dsl/compile/plan.js';
import { CHUNK_IO } from '../../../runtime/lm/chunked-decoder.js';
import { openModelFolder } from '../../../runtime/lm/model-folder.js';
import { PretrainedLm, type SampleSettings } from '../../../runtime/lm/pretrained.js';
import { GPU_SAMPLING_MIN_PARAMETERS, rolloutDevice } from '../../../runtime/lm/rollout-device.js';
import type { LoraSettings } from '../../../hf/lora.js';
import type { WeightSnapshot } from '../../../runtime/tensor/index.js';
import { train } from '../../../runtime/train.js';
import { repoRoot } from '../../helpers/repo.js';
import { webgpuOrSkip } from '../../helpers/webgpu.js';
import { makePlan, tempDir } from '../helpers.js';

const QWEN2 = path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2');
const LORA = { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] };

function loraGrpoPlan(): Plan {
  const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 4 }, algorithm: 'GRPO', algorithmParams: { prompts_per_update: 2, group_size: 4, max_new_tokens: 4, learning_rate: 1e-2 }, budget: 16 });
  plan.policy = { name: 'Base', kind: 'pretrained', params: { model: QWEN2, lora: LORA } as Plan['policy']['params'] };
  plan.eval = { every: 1_000_000, episodes: 4, deterministic: true };
  return plan;
}

/** A greedy generate() that decoded on the rollout device: its prompts, tokens, and the adapters it decoded with. */
interface GreedyOnDevice {
  readonly prompts: readonly (readonly number[])[];
  readonly ids: readonly (readonly number[])[];
  readonly adapters: WeightSnapshot;
  readonly settings: LoraSettings;
  readonly maxNewTokens: number;
}

/**
 * While `body` runs: how many onnxruntime runs each kind of session made (a chunked session's
 * outputs hold the chosen tokens; sample mode is fed uniforms), and each greedy completion a
 * PretrainedLm decoded on its rollout device.
 */
async function recordRuns<T>(body: () => Promise<T>) {
  // onnxruntime-common declares a factory, but it is the session class: every session runs through its prototype.
  const proto = (ort.InferenceSession as unknown as { prototype: { run: (this: { outputNames: readonly string[] }, feeds: Record<string, unknown>, ...rest: unknown[]) => unknown } }).prototype;
  const run = proto.run;
  const runs = { chunkedSample: 0, chunkedGreedy: 0 };
  proto.run = function (feeds, ...rest) {
    if (this.outputNames.includes(CHUNK_IO.chosen)) {
      if (CHUNK_IO.uniforms in feeds) runs.chunkedSample++;
      else runs.chunkedGreedy++;
    }
    return run.call(this, feeds, ...rest);
  };
  const generate = PretrainedLm.prototype.generate;
  const greedy: GreedyOnDevice[] = [];
  PretrainedLm.prototype.generate = async function (this: PretrainedLm, prompts: readonly (readonly number[])[], settings: SampleSettings) {
    const out = await generate.call(this, prompts, settings);
    if (settings.greedy && this.rolloutDevice) greedy.push({ prompts, ids: out.map((c) => c.ids), adapters: this.trainable.snapshot(), settings: this.lora!.settings, maxNewTokens: settings.maxNewTokens });
    return out;
  };
  try {
    return { result: await body(), runs, greedy };
  } finally {
    proto.run = run;
    PretrainedLm.prototype.generate = generate;
  }
}

/** The hparams event's values of the run in `runDir`. */
function hparams(runDir: string): Record<string, unknown> {
  const events = fs.readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { type: string; values?: Record<string, unknown> });
  return events.find((e) => e.type === 'hparams')!.values!;
}

describe('rollouts of a LoRA run on the webgpu device', () => {
  let skip: string | false = false;
  before(async () => {
    skip = await webgpuOrSkip();
  });

  it('sample and evaluate through the chunked session, the greedy evaluation equal to the cpu decoder\'s tokens for the same adapters', async (t) => {
    if (skip) return t.skip(skip);
    const logs: string[] = [];
    const { result, runs, greedy } = await recordRuns(() => train(loraGrpoPlan(), { out: tempDir(), device: { provider: 'webgpu', reason: 'asked for' }, gpuSamplingMinParameters: 0, log: (m) => logs.push(m) }));
    assert.equal(result.status, 'finished');
    assert.equal(result.step, 16);
    assert.ok(runs.chunkedSample > 0, 'GRPO samples through the chunked session');
    assert.ok(runs.chunkedGreedy > 0, 'evaluation decodes through the chunked session');
    assert.equal(hparams(result.runDir).rollout_device, 'webgpu');
    assert.equal(logs.filter((m) => m.startsWith('rollouts on webgpu (chunked decoding')).length, 1, logs.join('\n'));
    // Evaluations at the start and at the end (in batches of prompts), each against the cpu's one-step decoder over the same adapters.
    assert.ok(greedy.length >= 2, `${greedy.length} greedy batches on the device`);
    const [first, last] = [greedy[0]!.adapters, greedy.at(-1)!.adapters];
    assert.ok(Object.keys(last).some((name) => last[name]!.data.some((v, i) => v !== first[name]!.data[i])), 'training moved the adapters between the evaluations');
    for (const g of greedy) {
      const cpu = PretrainedLm.load(openModelFolder(QWEN2), { lora: { settings: g.settings, trained: { weights: g.adapters, file: 'the evaluated adapters' } } });
      try {
        const completions = await cpu.generate(g.prompts, { maxNewTokens: g.maxNewTokens, greedy: true });
        assert.deepEqual(g.ids, completions.map((c) => c.ids));
      } finally {
        await cpu.release();
      }
    }
  });

  it('keep sampling on the cpu where the learner reads token statistics, saying why', async (t) => {
    if (skip) return t.skip(skip);
    const plan = loraGrpoPlan();
    plan.stages[0]!.algorithm.params = { ...plan.stages[0]!.algorithm.params, entropy_top_fraction: 0.5 };
    const logs: string[] = [];
    const { result, runs } = await recordRuns(() => train(plan, { out: tempDir(), device: { provider: 'webgpu', reason: 'asked for' }, gpuSamplingMinParameters: 0, log: (m) => logs.push(m) }));
    assert.equal(result.status, 'finished');
    assert.deepEqual(runs, { chunkedSample: 0, chunkedGreedy: 0 });
    assert.equal(hparams(result.runDir).rollout_device, 'cpu');
    assert.equal(logs.filter((m) => /^rollouts on cpu \(token statistics .* need every step's logits\)$/.test(m)).length, 1, logs.join('\n'));
  });
});

describe('rollouts of a LoRA run on the cpu device', () => {
  it('never build a chunked session, and the rule is neither logged nor recorded', async () => {
    const logs: string[] = [];
    const { result, runs } = await recordRuns(() => train(loraGrpoPlan(), { out: tempDir(), device: 'cpu', gpuSamplingMinParameters: 0, log: (m) => logs.push(m) }));
    assert.equal(result.status, 'finished');
    assert.deepEqual(runs, { chunkedSample: 0, chunkedGreedy: 0 });
    assert.ok(!('rollout_device' in hparams(result.runDir)));
    assert.deepEqual(logs.filter((m) => m.startsWith('rollouts on')), []);
  });
});

describe('the rule for where rollouts decode', () => {
  const lora = { device: 'webgpu' as const, lora: true, parameters: 494e6, tokenStatistics: false };
  it('moves a LoRA model from GPU_SAMPLING_MIN_PARAMETERS to the GPU device, and keeps smaller ones on the cpu', () => {
    assert.equal(rolloutDevice(lora).provider, 'webgpu');
    assert.equal(rolloutDevice({ ...lora, device: 'cuda' }).provider, 'cuda');
    assert.equal(rolloutDevice({ ...lora, parameters: GPU_SAMPLING_MIN_PARAMETERS - 1 }).provider, 'cpu');
    assert.match(rolloutDevice({ ...lora, parameters: 5000 }).reason, /^5\.00k parameters, under the 400M from which sampling moves to the GPU$/);
  });

  it('keeps full fine-tuning and token statistics on the cpu, saying why', () => {
    assert.deepEqual(rolloutDevice({ ...lora, lora: false }), { provider: 'cpu', precision: 'fp32', reason: 'full fine-tuning: every weight would be sent to the device at each chunk' });
    assert.match(rolloutDevice({ ...lora, tokenStatistics: true }).reason, /token statistics .* need every step's logits/);
    assert.equal(rolloutDevice({ ...lora, device: 'cpu' }).provider, 'cpu');
  });
});
