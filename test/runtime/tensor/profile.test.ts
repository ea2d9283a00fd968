// onnxruntime's profiler (RLX_ORT_PROFILE) and its reader: real profiles written by tiny sessions on
// the CPU provider and on webgpu (where it starts), summed by op type and by model part. No timing
// is asserted: only that the sums are the events' sums, per step, and name the ops and parts run.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { grad } from '../../../runtime/tensor/grad.js';
import { GradientSession } from '../../../runtime/tensor/gradient-session.js';
import { Graph } from '../../../runtime/tensor/graph.js';
import type { ExecutionProvider } from '../../../runtime/tensor/session.js';
import { WeightStore } from '../../../runtime/tensor/weights.js';
import {
  nodeParts, PACKED_OUTPUTS, parseOrtProfile, partOfNode, ProfileError, readOrtProfile, summarizeProfile, tensorIdOfNode, transformerPart, type OrtProfile,
} from '../../../runtime/tensor/profile.js';
import { tempDir } from '../helpers.js';
import { webgpuOrSkip } from '../../helpers/webgpu.js';

const ROWS = 8;

/** A transformer block in miniature, its parameters named as the transformer's: layer norm, a softmax between attention's projections, MLP. */
function tinyBlock() {
  const g = new Graph();
  const weights = new WeightStore();
  weights.add('h.0.ln1.scale', [4], [1, 1, 1, 1]);
  weights.add('h.0.ln1.bias', [4], [0, 0, 0, 0]);
  weights.add('h.0.attn.qkv.weight', [4, 4], (n) => Array.from({ length: n }, (_, i) => Math.sin(i)));
  weights.add('h.0.attn.out.weight', [4, 4], (n) => Array.from({ length: n }, (_, i) => Math.sin(2 * i)));
  weights.add('h.0.mlp.up.weight', [4, 3], (n) => Array.from({ length: n }, (_, i) => Math.cos(i)));
  const p = weights.declare(g);
  const x = g.input('x', 'float32', ['B', 4]);
  const h = g.layerNorm(x, p['h.0.ln1.scale']!, p['h.0.ln1.bias']!);
  const softmax = g.softmax(g.matmul(h, p['h.0.attn.qkv.weight']!));
  const tanh = g.tanh(g.matmul(g.matmul(softmax, p['h.0.attn.out.weight']!), p['h.0.mlp.up.weight']!));
  const loss = g.mean(g.square(tanh));
  return { g, weights, loss, softmax, tanh };
}

/** Runs the tiny block's loss and gradients `runs` times with RLX_ORT_PROFILE set, and returns the profile's path and its raw events. */
async function profiled(provider: ExecutionProvider, runs: number) {
  const folder = tempDir('rlx-profile-test-');
  const block = tinyBlock();
  process.env.RLX_ORT_PROFILE = folder;
  let session: GradientSession;
  try {
    session = await GradientSession.create(block.g, { loss: block.loss, weights: block.weights, providers: [provider] });
  } finally {
    delete process.env.RLX_ORT_PROFILE;
  }
  const x = Float32Array.from({ length: ROWS * 4 }, (_, i) => (i % 5) - 2);
  for (let i = 0; i < runs; i++) await session.run({ x });
  await session.release();
  const files = fs.readdirSync(folder).filter((f) => f.endsWith('.json'));
  assert.equal(files.length, 1, `one profile for one session, found ${files.join(', ')}`);
  const file = path.join(folder, files[0]!);
  const events = JSON.parse(fs.readFileSync(file, 'utf8')) as { cat: string; name: string; ts: number; dur: number; args?: { op_name?: string } }[];
  return { file, events, block };
}

/** Sums of `dur` (ms) by key over raw events, for comparing with the reader's. */
function sumsBy<T extends { dur: number }>(events: readonly T[], keyOf: (e: T) => string): Map<string, number> {
  const sums = new Map<string, number>();
  for (const e of events) sums.set(keyOf(e), (sums.get(keyOf(e)) ?? 0) + e.dur / 1000);
  return sums;
}

function assertSameSums(summary: { byOp: readonly { key: string; ms: number }[] }, expected: Map<string, number>, steps: number): void {
  assert.deepEqual(summary.byOp.map((r) => r.key).sort(), [...expected.keys()].sort());
  for (const r of summary.byOp) assert.ok(Math.abs(r.ms - expected.get(r.key)! / steps) < 1e-9, `${r.key}: ${r.ms} ms/step, events ${expected.get(r.key)! / steps}`);
}

describe('onnxruntime profiles (RLX_ORT_PROFILE)', () => {
  it('a CPU session writes one profile at release: every run and node, summed per step by op type as its events are', async () => {
    const { file, events, block } = await profiled('cpu', 3);
    const profile = readOrtProfile(file);
    assert.equal(profile.runMs.length, 3, 'one model_run per run');
    assert.equal(profile.gpuKernels.length, 0, 'the CPU provider has no GPU timestamps');
    assert.ok(profile.hostKernels.every((k) => k.run >= 0 && k.where === 'CPUExecutionProvider'), 'each node event falls in a run');

    const summary = summarizeProfile(profile, { skipRuns: 1 });
    assert.equal(summary.timing, 'host');
    assert.equal(summary.steps, 2);
    assert.equal(summary.skippedRuns, 1);
    const nodes = events.filter((e) => e.cat === 'Node');
    assert.equal(summary.kernelsPerStep, nodes.length / 3, 'every run executes the same nodes');
    // Sums over the runs after the first, from the raw events: the first run's nodes are the first third.
    const kept = nodes.filter((e) => e.ts >= events.filter((r) => r.name === 'model_run').sort((a, b) => a.ts - b.ts)[1]!.ts);
    assertSameSums(summary, sumsBy(kept, (e) => e.args!.op_name!), 2);
    for (const op of ['MatMul', 'Softmax', 'Tanh']) assert.ok(summary.byOp.some((r) => r.key === op), `${op} is among the op types`);
    assert.ok(Math.abs(summary.kernelMs - summary.byOp.reduce((s, r) => s + r.ms, 0)) < 1e-9);
    assert.equal(summary.byNode.length, summary.kernelsPerStep, 'one entry per node');
    const matmuls = summary.byNode.filter((r) => r.key.startsWith('MatMul'));
    assert.ok(matmuls.length > 0 && matmuls.every((r) => r.detail.includes('"float":[')), 'each node says its input shapes');

    // By part: the graph's nodes are named after their tensors (MatMul_12), so each is found.
    const parts = nodeParts(block.g, block.loss, transformerPart);
    const byPart = summarizeProfile(profile, { skipRuns: 1, partOf: partOfNode(parts) }).byPart;
    for (const part of ['layer norm', 'attention', 'MLP', 'attention (backward)', 'MLP (backward)']) {
      assert.ok(byPart.some((r) => r.key === part), `part ${part} in ${byPart.map((r) => r.key).join(', ')}`);
    }
    assert.ok(Math.abs(byPart.reduce((s, r) => s + r.ms, 0) - summary.kernelMs) < 1e-9, 'the parts share all the kernel time');
  });

  it('names the model part of each node by the parameters nearby: forward by the next, backward by the last', () => {
    const { g, weights, loss, softmax, tanh } = tinyBlock();
    const before = g.nodes.length;
    // Every gradient flattened into one output, as gradient-parts.ts packs a step's.
    const flat = g.concat(grad(loss, weights.names.map((n) => g.byName(n)!)).map((t) => g.reshape(t, [-1])), 0);
    const parts = nodeParts(g, loss, transformerPart);
    assert.equal(parts.get(flat.id), PACKED_OUTPUTS, 'the concatenation comes after every gradient, in no part');
    assert.ok(flat.inputs.every((t) => parts.get(t.id) === PACKED_OUTPUTS), 'with the reshapes it alone reads');
    assert.equal(parts.get(softmax.id), 'attention', 'the softmax comes before the next projection');
    assert.equal(parts.get(tanh.id), 'loss', 'after the last parameter: the loss');
    const backward = g.nodes.filter((t) => t.id > loss.id && !t.isLeaf);
    assert.ok(g.nodes.length > before && backward.length > 0, 'the gradient was built');
    assert.ok(backward.filter((t) => parts.get(t.id) !== PACKED_OUTPUTS).every((t) => parts.get(t.id)!.endsWith(' (backward)')));
    assert.equal(partOfNode(parts)(`Softmax_${softmax.id}`), 'attention');
    assert.equal(partOfNode(parts)(`Softmax_t${softmax.id}`), 'attention', "a lowering's name keeps the tensor");
    assert.equal(partOfNode(parts)('Cast_l3'), 'fp16 casts');
    assert.equal(partOfNode(parts)('Memcpy_token_5'), 'inserted by onnxruntime');
    assert.equal(tensorIdOfNode('Reshape_522_new_reshape'), 522, 'onnxruntime keeps the prefix of a node it rewrites');
    assert.equal(tensorIdOfNode('MatMul_32/MatmulTransposeFusion/'), 32, 'or fuses');
  });

  it('names a node that reads a parameter through a view of it by that parameter: a tied head reads the embedding transposed', () => {
    const g = new Graph();
    const weights = new WeightStore();
    weights.add('model.embed_tokens.weight', [6, 4], (n) => Array.from({ length: n }, (_, i) => Math.sin(i)));
    weights.add('model.norm.weight', [4], [1, 1, 1, 1]);
    const p = weights.declare(g);
    const x = g.input('x', 'float32', ['B', 4]);
    const normed = g.mul(x, p['model.norm.weight']!);
    const logits = g.matmul(normed, g.transpose(p['model.embed_tokens.weight']!));
    const loss = g.mean(g.square(logits));
    const parts = nodeParts(g, loss, transformerPart);
    assert.equal(parts.get(logits.id), 'embeddings and head');
    assert.equal(parts.get(logits.inputs[1]!.id), 'embeddings and head', 'the transpose belongs to the product that reads it');
    assert.equal(parts.get(normed.id), 'layer norm');
  });

  it("names the parts of the pretrained families' parameters, LoRA adapters included", () => {
    const parts: Record<string, string> = {
      'h.3.attn.qkv.weight': 'attention',
      'lnf.scale': 'layer norm',
      wte: 'embeddings and head',
      'model.layers.3.self_attn.q_proj.weight': 'attention',
      'model.layers.3.self_attn.v_proj.lora_B.weight': 'attention',
      'model.layers.3.self_attn.k_norm.weight': 'layer norm',
      'model.layers.3.input_layernorm.weight': 'layer norm',
      'model.layers.3.post_attention_layernorm.weight': 'layer norm',
      'model.layers.3.mlp.down_proj.weight': 'MLP',
      'model.norm.weight': 'layer norm',
      'model.embed_tokens.weight': 'embeddings and head',
      'lm_head.weight': 'embeddings and head',
      'transformer.h.3.ln_1.weight': 'layer norm',
      'transformer.h.3.attn.c_attn.weight': 'attention',
      'transformer.h.3.mlp.c_fc.bias': 'MLP',
      'transformer.wpe.weight': 'embeddings and head',
      'value_head.weight': 'other',
    };
    for (const [param, part] of Object.entries(parts)) assert.equal(transformerPart(param), part, param);
  });

  it('two sessions write two profiles; a file that is not a profile is an error naming it', async () => {
    const folder = tempDir('rlx-profile-test-');
    process.env.RLX_ORT_PROFILE = folder;
    try {
      const block = tinyBlock();
      const sessions = [await GradientSession.create(block.g, { loss: block.loss, weights: block.weights }), await GradientSession.create(block.g, { loss: block.loss, weights: block.weights })];
      await Promise.all(sessions.map((s) => s.release()));
    } finally {
      delete process.env.RLX_ORT_PROFILE;
    }
    assert.equal(fs.readdirSync(folder).filter((f) => f.endsWith('.json')).length, 2);
    const bad = path.join(folder, 'bad.json');
    fs.writeFileSync(bad, '{"traceEvents": []}');
    assert.throws(() => readOrtProfile(bad), (e: Error) => e instanceof ProfileError && e.message.includes(bad));
  });

  it('GPU times that cannot be split by run are summed over every run, warm-up included, and say so', () => {
    const run = (ts: number) => ({ cat: 'Session', name: 'model_run', ts, dur: 100, ph: 'X' });
    const dispatch = (node: string, dur: number) => ({ cat: 'Api', name: `${node}&MatMul&MatMul`, ts: 0, dur, ph: 'X' });
    // The first run dispatched one program more (a shape that changed): 3 dispatches over 2 runs.
    const profile = parseOrtProfile([run(0), run(200), dispatch('MatMul_1', 30), dispatch('MatMul_2', 10), dispatch('MatMul_1', 20)], 'made up');
    assert.equal(profile.gpuSplitByRun, false);
    const summary = summarizeProfile(profile, { skipRuns: 1 });
    assert.deepEqual([summary.timing, summary.steps, summary.skippedRuns, summary.kernelMs, summary.kernelsPerStep], ['gpu', 2, 0, 0.03, 1.5]);
    // Split when each run dispatches the same programs: the warm-up's are left out.
    const even = summarizeProfile(parseOrtProfile([run(0), run(200), dispatch('MatMul_1', 30), dispatch('MatMul_1', 20)], 'made up'), { skipRuns: 1 });
    assert.deepEqual([even.steps, even.skippedRuns, even.kernelMs, even.kernelsPerStep], [1, 1, 0.02, 1]);
  });

  it('a webgpu session on an adapter with timestamp queries: GPU time per dispatch, split by run, summed by op type as its events are', async (t) => {
    const skip = await webgpuOrSkip();
    if (skip) return t.skip(skip);
    const { file, events } = await profiled('webgpu', 3);
    const profile: OrtProfile = readOrtProfile(file);
    const dispatches = events.filter((e) => e.cat === 'Api' && e.name.split('&').length === 3);
    if (dispatches.length === 0) {
      // An adapter without timestamp queries: the host's times are what the profile holds.
      assert.equal(summarizeProfile(profile).timing, 'host');
      return t.skip('this adapter has no timestamp queries: onnxruntime wrote no GPU times');
    }
    assert.equal(profile.gpuSplitByRun, true, 'each run dispatches the same programs');
    assert.equal(profile.gpuKernels.length, dispatches.length);
    const summary = summarizeProfile(profile, { skipRuns: 1 });
    assert.equal(summary.timing, 'gpu');
    assert.equal(summary.kernelsPerStep, dispatches.length / 3);
    // The last two thirds of the dispatches are the profiled runs'.
    assertSameSums(summary, sumsBy(dispatches.slice(dispatches.length / 3), (e) => e.name.split('&')[1]!), 2);
    assert.ok(summary.byOp.some((r) => r.key === 'MatMul'));
    assert.ok(summary.byNode.every((r) => r.detail.includes('outputs[0]')), "each node says its program's shapes");
    assert.ok(profile.hostKernels.some((k) => k.where === 'WebGpuExecutionProvider'), 'the host events name the provider');
  });
});
