// The model families against what transformers computes from the same checkpoints
// (test/fixtures/hf-tiny/reference.json): logits, greedy ids, a completion's log-probability,
// one SFT step's loss and gradient norms, and logits with a PEFT LoRA adapter.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { readLmConfig, type LmConfig } from '../../../hf/config.js';
import { LmDecoder } from '../../../runtime/lm/decoder.js';
import { generate } from '../../../runtime/lm/generate.js';
import { loadLmWeights, LmWeightsError } from '../../../runtime/lm/load.js';
import { loraAdapters, loraScale } from '../../../hf/lora.js';
import { loraWeights } from '../../../runtime/lm/lora-weights.js';
import { causalLm, type LoraWeights } from '../../../runtime/lm/model.js';
import { loadAdapter } from '../../../runtime/lm/peft.js';
import { attentionMask, leftPad, rowPositions } from '../../../runtime/lm/rows.js';
import { Graph, GradientSession, Session, WeightStore } from '../../../runtime/tensor/index.js';
import { Rng } from '../../../shared/random.js';
import { repoRoot } from '../../helpers/repo.js';

const FIXTURES = path.join(repoRoot(), 'test/fixtures/hf-tiny');
interface FamilyReference {
  input_ids: number[];
  logits: number[];
  completion_logprob_sum: number;
  greedy_ids: number[];
  sft_loss: number;
  grad_norms: Record<string, number>;
  lora_logits?: number[];
}
const reference = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'reference.json'), 'utf8')) as Record<string, FamilyReference> & { chat: { ids: number[] } };
const promptIds = reference.chat.ids;
const FAMILIES = ['qwen2', 'llama', 'gpt2'] as const;

function load(family: string): { config: LmConfig; weights: WeightStore } {
  const config = readLmConfig(path.join(FIXTURES, family));
  return { config, weights: loadLmWeights(path.join(FIXTURES, family), config) };
}

/** Logits [T, V] of one row through the training graph (no cache). */
async function sequenceLogits(config: LmConfig, weights: WeightStore, ids: readonly number[], lora?: LoraWeights): Promise<Float32Array> {
  const T = ids.length;
  const g = new Graph();
  const inputs = { tokens: g.input('tokens', 'int64', ['B', T]), positions: g.input('positions', 'int64', ['B', T]), mask: g.input('mask', 'float32', ['B', T, T]) };
  const { logits } = causalLm(g, weights.declare(g), config, inputs, { lora });
  const session = await Session.create(g, { logits }, { weights });
  const rows = leftPad([ids], 0);
  const out = await session.run({
    tokens: { data: BigInt64Array.from(ids, (t) => BigInt(t)), dims: [1, T] },
    positions: { data: rowPositions(rows.starts, 0, T), dims: [1, T] },
    mask: { data: attentionMask(rows.starts, 0, T), dims: [1, T, T] },
  });
  await session.release();
  return out.logits!;
}

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  assert.equal(a.length, b.length);
  let most = 0;
  for (let i = 0; i < a.length; i++) most = Math.max(most, Math.abs(a[i]! - b[i]!));
  return most;
};

for (const family of FAMILIES) {
  test(`${family}: logits equal transformers' within 1e-4`, async () => {
    const { config, weights } = load(family);
    const ref = reference[family]!;
    const logits = await sequenceLogits(config, weights, ref.input_ids);
    assert.ok(maxAbsDiff(logits, ref.logits) < 1e-4, `max |difference| ${maxAbsDiff(logits, ref.logits)}`);
  });

  test(`${family}: greedy decoding with the key/value cache writes transformers' ids, alone or batched beside a shorter prompt`, async () => {
    const { config, weights } = load(family);
    const decoder = await LmDecoder.create(config, { weights });
    const options = { maxNewTokens: 12, greedy: true, stopIds: [], padId: 0 };
    const [alone] = await generate(decoder, [promptIds], options);
    assert.deepEqual(alone!.ids, reference[family]!.greedy_ids);
    const shorter = promptIds.slice(7);
    const [first, second] = await generate(decoder, [promptIds, shorter], options);
    const [shorterAlone] = await generate(decoder, [shorter], options);
    assert.deepEqual(first!.ids, alone!.ids);
    assert.deepEqual(second!.ids, shorterAlone!.ids);
    assert.ok(maxAbsDiff(first!.logProbs, alone!.logProbs) < 1e-5);
    await decoder.release();
  });

  test(`${family}: the completion's log-probability, fed through the cache, equals transformers' within 1e-3`, async () => {
    const { config, weights } = load(family);
    const decoder = await LmDecoder.create(config, { weights });
    const completion = reference[family]!.input_ids.slice(promptIds.length);
    const state = decoder.begin(new Int32Array(1));
    let logits = await decoder.feed(state, Int32Array.from(promptIds), promptIds.length);
    let sum = 0;
    for (const token of completion) {
      let most = -Infinity;
      for (const v of logits) most = Math.max(most, v);
      let total = 0;
      for (const v of logits) total += Math.exp(v - most);
      sum += logits[token]! - most - Math.log(total);
      logits = await decoder.feed(state, Int32Array.of(token), 1);
    }
    assert.ok(Math.abs(sum - reference[family]!.completion_logprob_sum) < 1e-3, `${sum} vs ${reference[family]!.completion_logprob_sum}`);
    await decoder.release();
  });

  test(`${family}: one SFT step's loss and every gradient norm equal transformers'`, async () => {
    const { config, weights } = load(family);
    const ref = reference[family]!;
    const ids = ref.input_ids;
    const T = ids.length;
    const g = new Graph();
    const inputs = { tokens: g.input('tokens', 'int64', ['B', T]), positions: g.input('positions', 'int64', ['B', T]), mask: g.input('mask', 'float32', ['B', T, T]) };
    const targets = g.input('targets', 'int64', ['B', T]);
    const learn = g.input('learn', 'float32', ['B', T]);
    const { logits } = causalLm(g, weights.declare(g), config, inputs);
    const logProbs = g.gatherLast(g.logSoftmax(logits), targets);
    const loss = g.div(g.neg(g.sum(g.mul(logProbs, learn))), g.sum(learn));
    const session = await GradientSession.create(g, { loss, weights });
    // The prompt is masked, as the fixture's labels are (-100): learn the completion's tokens.
    const target = new BigInt64Array(T);
    const mask = new Float32Array(T);
    for (let t = 0; t < T - 1; t++) {
      target[t] = BigInt(ids[t + 1]!);
      if (t >= promptIds.length - 1) mask[t] = 1;
    }
    const rows = leftPad([ids], 0);
    const out = await session.run({
      tokens: { data: BigInt64Array.from(ids, (t) => BigInt(t)), dims: [1, T] },
      positions: { data: rowPositions(rows.starts, 0, T), dims: [1, T] },
      mask: { data: attentionMask(rows.starts, 0, T), dims: [1, T, T] },
      targets: { data: target, dims: [1, T] },
      learn: { data: mask, dims: [1, T] },
    });
    if (family === 'gpt2') {
      // The fixture took GPT-2's step in train mode, where its config's dropout (0.1) is on, so
      // its loss and gradients are of a random sub-network. rlx fine-tunes without dropout (as
      // TRL's trainers do by default): check the loss against the one the reference's own
      // eval-mode logits give.
      let expected = 0;
      const V = config.vocab;
      for (let t = promptIds.length - 1; t < T - 1; t++) {
        const row = ref.logits.slice(t * V, (t + 1) * V);
        const most = Math.max(...row);
        expected -= row[ids[t + 1]!]! - most - Math.log(row.reduce((s, v) => s + Math.exp(v - most), 0));
      }
      expected /= T - promptIds.length;
      assert.ok(Math.abs(out.loss - expected) < 1e-5, `${out.loss} vs ${expected}`);
      return;
    }
    assert.ok(Math.abs(out.loss - ref.sft_loss) < 1e-5, `loss ${out.loss} vs ${ref.sft_loss}`);
    assert.deepEqual([...session.names].sort(), Object.keys(ref.grad_norms).sort());
    session.names.forEach((name, i) => {
      const norm = Math.sqrt(out.grads[i]!.reduce((s, v) => s + v * v, 0));
      const expected = ref.grad_norms[name]!;
      assert.ok(Math.abs(norm - expected) <= 1e-3 * expected, `${name}: ${norm} vs ${expected}`);
    });
  });
}

for (const family of ['qwen2', 'llama'] as const) {
  test(`${family}: logits with the fixture's PEFT LoRA adapter equal transformers' within 1e-4`, async () => {
    const { config, weights } = load(family);
    const { settings, adapters } = loadAdapter(path.join(FIXTURES, `${family}-lora`), config, weights);
    assert.deepEqual([settings.rank, settings.alpha, adapters.length], [4, 8, 2 * config.layers]);
    const logits = await sequenceLogits(config, weights, reference[family]!.input_ids, loraWeights(adapters, settings));
    assert.ok(maxAbsDiff(logits, reference[family]!.lora_logits!) < 1e-4);
    // and the adapter matters: without it the logits are the base model's
    assert.ok(maxAbsDiff(logits, reference[family]!.logits) > 1e-3);
  });
}

test('gpt2: a LoRA adapter on the fused c_attn gives the logits of its merged weights W + s A B', async () => {
  const { config, weights } = load('gpt2');
  const settings = { rank: 3, alpha: 6, targets: ['c_attn'] };
  const adapters = loraAdapters(config, settings);
  const rng = new Rng(2);
  const merged = weights.clone();
  for (const adapter of adapters) {
    const [inDim, r] = adapter.a.shape;
    const outDim = adapter.b.shape[1];
    const a = Float32Array.from({ length: inDim * r }, () => 0.3 * rng.normal());
    const b = Float32Array.from({ length: r * outDim }, () => 0.3 * rng.normal()); // not PEFT's zeros: the adapter must matter
    weights.add(adapter.a.name, adapter.a.shape, a);
    weights.add(adapter.b.name, adapter.b.shape, b);
    const w = merged.get(adapter.base).data;
    const s = loraScale(settings);
    for (let i = 0; i < inDim; i++) for (let o = 0; o < outDim; o++) {
      let ab = 0;
      for (let k = 0; k < r; k++) ab += a[i * r + k]! * b[k * outDim + o]!;
      w[i * outDim + o]! += s * ab;
    }
  }
  const ids = reference.gpt2!.input_ids;
  const adapted = await sequenceLogits(config, weights, ids, loraWeights(adapters, settings));
  const expected = await sequenceLogits(config, merged, ids);
  assert.ok(maxAbsDiff(adapted, expected) < 1e-4, `max |difference| ${maxAbsDiff(adapted, expected)}`);
  assert.ok(maxAbsDiff(adapted, reference.gpt2!.logits) > 1e-3, 'the adapter changes the logits');
});

test('a checkpoint whose weights disagree with its config.json is refused naming the tensor and both shapes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-lm-'));
  try {
    for (const file of fs.readdirSync(path.join(FIXTURES, 'qwen2'))) fs.copyFileSync(path.join(FIXTURES, 'qwen2', file), path.join(dir, file));
    const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ ...config, intermediate_size: 128 }));
    assert.throws(
      () => loadLmWeights(dir, readLmConfig(dir)),
      (err: unknown) => err instanceof LmWeightsError && /"model\.layers\.0\.mlp\.gate_proj\.weight" is \[160, 64\], but config\.json implies \[128, 64\]/.test((err as Error).message),
    );
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ ...config, model_type: 'llama', tie_word_embeddings: false }));
    assert.throws(() => loadLmWeights(dir, readLmConfig(dir)), /no tensor "lm_head\.weight", which a llama model with this config\.json has/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
