// Issue 48 item 5: the scale issue's micro-batches, the head over chunks of tokens and recomputed
// blocks run on the webgpu provider too (lavapipe in CI), so the next GPU session measures them:
// a GRPO + LoRA run on the hf-tiny Qwen2 in micro-batches of 5 rows, one graph each or with
// blocks recomputed, logs the CPU's losses on webgpu within float32's rounding of other kernels.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../../../dsl/compile/plan.js';
import { readEvents } from '../../../../runtime/run/events.js';
import { train } from '../../../../runtime/train.js';
import { repoRoot } from '../../../helpers/repo.js';
import { webgpuOrSkip } from '../../../helpers/webgpu.js';
import { makePlan, tempDir } from '../../helpers.js';

const QWEN2 = path.join(repoRoot(), 'test/fixtures/hf-tiny/qwen2');
const LOSSES = ['losses/policy_loss', 'losses/kl', 'losses/grad_norm'];

function plan(checkpointing: boolean): Plan {
  const p = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 6 }, algorithm: 'GRPO', algorithmParams: { prompts_per_update: 3, group_size: 4, max_new_tokens: 6, iterations: 2, kl_coef: 0.1, learning_rate: 1e-2, micro_batch: 5, gradient_checkpointing: checkpointing }, budget: 2 * 12 });
  p.reward = { name: 'R', replace_env_reward: true, terms: [{ name: 'long', expr: { call: 'length', args: [{ ref: 'completion' }] } }] } as Plan['reward'];
  p.policy = { name: 'Base', kind: 'pretrained', params: { model: QWEN2, lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj', 'gate_proj'] } } as Plan['policy']['params'] };
  p.eval = { every: 1_000_000, episodes: 4, deterministic: true };
  return p;
}

async function losses(checkpointing: boolean, device: 'cpu' | 'webgpu'): Promise<Record<string, number>[]> {
  const result = await train(plan(checkpointing), { out: tempDir(), device });
  const events = readEvents(path.join(result.runDir, 'events.jsonl'));
  assert.equal(events.find((e) => e.type === 'hparams')!.values.device, device, 'the run trained where asked');
  return events.flatMap((e) => (e.type === 'metrics' ? [e.values] : []));
}

for (const checkpointing of [false, true]) {
  test(`GRPO + LoRA in micro-batches of 5 rows${checkpointing ? ', blocks recomputed and the head in chunks,' : ''} on webgpu logs the CPU's losses`, async (t) => {
    const skip = await webgpuOrSkip();
    if (skip) return t.skip(skip);
    const [cpu, gpu] = [await losses(checkpointing, 'cpu'), await losses(checkpointing, 'webgpu')];
    assert.equal(gpu.length, cpu.length);
    assert.ok(cpu.length >= 2 && cpu.every((u) => u['losses/grad_norm']! > 0));
    cpu.forEach((expected, u) => {
      for (const name of LOSSES) {
        const [a, b] = [gpu[u]![name]!, expected[name]!];
        assert.ok(Math.abs(a - b) <= 1e-4 * Math.max(1e-2, Math.abs(b)), `update ${u + 1}: ${name} ${a} on webgpu against ${b} on the cpu`);
      }
    });
  });
}
