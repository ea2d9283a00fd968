// lora { base_dtype: float16 } (issue 41 item 4): a LoRA run keeps its frozen base as float16
// bits (half the bytes), fed as float16 and cast up inside each pass, which computes in float32.
// On a bf16 copy of the hf-tiny Qwen2 (every bf16 value of float16's range narrows exactly), a
// GRPO run logs the losses the float32 base gives, in one graph and with blocks recomputed, and
// its greedy completions are the same; what cannot be held in float16 is refused, saying why.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Plan } from '../../../dsl/compile/plan.js';
import { readSafetensorsHeader, readTensorAsHalf, readTensors } from '../../../hf/safetensors.js';
import { openModelFolder } from '../../../runtime/lm/model-folder.js';
import { PretrainedLm } from '../../../runtime/lm/pretrained.js';
import { writeSafetensors } from '../../../runtime/lm/safetensors-writer.js';
import { readEvents } from '../../../runtime/run/events.js';
import { train } from '../../../runtime/train.js';
import { Rng } from '../../../shared/random.js';
import { makePlan, tempDir } from '../helpers.js';
import { webgpuOrSkip } from '../../helpers/webgpu.js';
import type { ExecutionProvider } from '../../../runtime/tensor/session.js';
import { HF_TINY } from './model-folder.js';

const LORA = { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj', 'gate_proj'] };

/** A copy of the hf-tiny Qwen2 folder with its weights stored as `dtype`. */
function halfWidthCopy(dtype: 'BF16' | 'F16'): string {
  const dir = tempDir('rlx-half-base-');
  const source = path.join(HF_TINY, 'qwen2');
  for (const name of fs.readdirSync(source)) if (name !== 'model.safetensors') fs.copyFileSync(path.join(source, name), path.join(dir, name));
  const { tensors } = readSafetensorsHeader(path.join(source, 'model.safetensors'));
  const values = readTensors(tensors);
  writeSafetensors(path.join(dir, 'model.safetensors'), tensors.map((t) => ({ name: t.name, shape: t.shape, data: values.get(t.name)!, dtype })));
  return dir;
}

const BF16 = halfWidthCopy('BF16');

function plan(baseDtype: 'float32' | 'float16', checkpointing: boolean): Plan {
  const p = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 6 }, algorithm: 'GRPO', algorithmParams: { prompts_per_update: 2, group_size: 4, max_new_tokens: 6, iterations: 2, kl_coef: 0.1, learning_rate: 1e-2, micro_batch: 4, gradient_checkpointing: checkpointing }, budget: 2 * 8 * 2 });
  p.reward = { name: 'R', replace_env_reward: true, terms: [{ name: 'long', expr: { call: 'length', args: [{ ref: 'completion' }] } }] } as Plan['reward'];
  p.policy = { name: 'Base', kind: 'pretrained', params: { model: BF16, lora: { ...LORA, base_dtype: baseDtype } } as Plan['policy']['params'] };
  p.eval = { every: 1_000_000, episodes: 4, deterministic: true };
  return p;
}

async function losses(p: Plan): Promise<{ updates: Record<string, number>[]; manifest: Record<string, unknown>; hparams: Record<string, unknown> }> {
  const result = await train(p, { out: tempDir() });
  const events = readEvents(path.join(result.runDir, 'events.jsonl'));
  const updates = events.flatMap((e) => (e.type === 'metrics' ? [e.values] : []));
  const hparams = events.find((e) => e.type === 'hparams')!.values as Record<string, unknown>;
  const checkpoints = path.join(result.runDir, 'checkpoints');
  const manifest = JSON.parse(fs.readFileSync(path.join(checkpoints, fs.readdirSync(checkpoints).find((f) => /^policy-\d+\.json$/.test(f))!), 'utf8')) as Record<string, unknown>;
  return { updates, manifest, hparams };
}

for (const checkpointing of [false, true]) {
  test(`GRPO + LoRA over a bf16 base kept as float16 logs the float32 base's losses (${checkpointing ? 'blocks recomputed' : 'one graph'}), and records how it held the base`, async () => {
    const full = await losses(plan('float32', checkpointing));
    const half = await losses(plan('float16', checkpointing));
    assert.ok(full.updates.length >= 2);
    assert.equal(half.updates.length, full.updates.length);
    full.updates.forEach((expected, u) => {
      for (const name of ['losses/policy_loss', 'losses/kl', 'losses/entropy', 'losses/grad_norm']) {
        const [a, b] = [half.updates[u]![name]!, expected[name]!];
        assert.ok(Math.abs(a - b) <= 1e-5 * Math.max(1e-2, Math.abs(b)), `update ${u + 1}: ${name} ${a} against ${b}`);
      }
    });
    assert.equal(half.manifest.base_dtype, 'float16');
    assert.equal(full.manifest.base_dtype, undefined);
    assert.deepEqual([half.hparams.base_dtype, full.hparams.base_dtype], ['float16', 'float32'], 'hparams say how the base was held');
  });
}

test('a base kept as float16 holds half the bytes and decodes the same greedy tokens', async () => {
  const folder = openModelFolder(BF16);
  const load = (baseDtype: 'float32' | 'float16') => PretrainedLm.load(folder, { lora: { settings: { ...LORA, rsLora: false }, rng: new Rng(3) }, baseDtype });
  const [full, half] = [load('float32'), load('float16')];
  const bytes = (lm: PretrainedLm) => lm.frozen!.names.reduce((n, name) => n + (lm.frozen!.get(name).half?.byteLength ?? lm.frozen!.get(name).data.byteLength), 0);
  assert.ok(half.frozen!.holdsHalf && !full.frozen!.holdsHalf);
  assert.equal(bytes(half) * 2, bytes(full));
  const prompts = [[1, 5, 9, 2], [7, 3, 3, 8]];
  const complete = async (lm: PretrainedLm) => {
    const out = await lm.generate(prompts, { maxNewTokens: 8, greedy: true });
    await lm.release();
    return out.map((c) => ({ ids: c.ids, logProbs: c.logProbs.map((x) => Math.round(x * 1e4)) }));
  };
  const [a, b] = [await complete(half), await complete(full)];
  assert.deepEqual(a, b);
  assert.ok(a.every((c) => c.ids.length > 0));
});

test('on WebGPU, where sessions bake the base, a float16 base decodes the float32 base\'s greedy tokens on the CPU', async (t) => {
  const skip = await webgpuOrSkip();
  if (skip) return t.skip(skip);
  const folder = openModelFolder(BF16);
  const load = (baseDtype: 'float32' | 'float16', provider: ExecutionProvider) => PretrainedLm.load(folder, { lora: { settings: { ...LORA, rsLora: false }, rng: new Rng(3) }, baseDtype, providers: [provider] });
  const greedy = async (lm: PretrainedLm) => {
    const out = await lm.generate([[1, 5, 9, 2], [7, 3, 3, 8]], { maxNewTokens: 8, greedy: true });
    await lm.release();
    return out.map((c) => c.ids);
  };
  assert.deepEqual(await greedy(load('float16', 'webgpu')), await greedy(load('float32', 'cpu')));
});

test('what float16 cannot hold is refused, saying why: a float32 checkpoint, a bf16 value past 65504', () => {
  const folder = openModelFolder(path.join(HF_TINY, 'qwen2'));
  assert.throws(() => PretrainedLm.load(folder, { lora: { settings: { ...LORA, rsLora: false }, rng: new Rng(3) }, baseDtype: 'float16' }),
    /lora \{ base_dtype: float16 \} keeps the base as float16, but its weights are stored in float32 or hold a value past float16's largest \(65504\); use base_dtype: float32 \(or auto\)/);
  const dir = tempDir('rlx-half-values-');
  const file = path.join(dir, 'model.safetensors');
  // bf16 values over float16's range: each normal one narrows exactly, a subnormal one within 2^-25.
  const values = Float32Array.of(1, -0.375, 1e-3, 60000, 2 ** -14, 3e-6, 0);
  writeSafetensors(file, [{ name: 'w', shape: [values.length], data: values, dtype: 'BF16' }, { name: 'big', shape: [1], data: Float32Array.of(70000), dtype: 'BF16' }]);
  const { tensors } = readSafetensorsHeader(file);
  const asRead = readTensors(tensors).get('w')!;
  const half = readTensorAsHalf(tensors.find((t) => t.name === 'w')!)!;
  const widened = new Float32Array(new Uint32Array(Array.from(half, (h) => halfToFloat32Bits(h))).buffer);
  asRead.forEach((x, i) => assert.ok(Math.abs(widened[i]! - x) <= (Math.abs(x) >= 2 ** -14 ? 0 : 2 ** -25), `value ${i}: ${widened[i]} against ${x}`));
  assert.equal(readTensorAsHalf(tensors.find((t) => t.name === 'big')!), undefined);
});

/** float16 bits -> float32 bits, written out here so the test does not lean on the code under test. */
function halfToFloat32Bits(h: number): number {
  const sign = (h & 0x8000) << 16;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) {
    const f = new Float32Array([(m * 2 ** -24) * (sign ? -1 : 1)]);
    return new Uint32Array(f.buffer)[0]!;
  }
  return (sign | ((e - 15 + 127) << 23) | (m << 13)) >>> 0;
}
