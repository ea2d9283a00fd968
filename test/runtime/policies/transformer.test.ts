// The transformer policy (runtime/policies/transformer/, a GPT-2 of runtime/lm/): its training
// forward differentiates correctly (finite differences through the whole model and the masked
// cross-entropy), decoding with the key/value cache computes what the full forward pass
// computes (checked against the JS reference test/helpers/kv-sampler.ts), and the exported
// decoding graph, stepped by plain onnxruntime, gives the same logits.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import * as ort from 'onnxruntime-node';
import { makeTokenModel } from '../../../runtime/policies/index.js';
import { completeTexts, encodePrompts, sequenceWidth, textLayout, trainingRows } from '../../../runtime/policies/transformer/layout.js';
import { gpt2Dims } from '../../../hf/config.js';
import { DECODER_IO } from '../../../runtime/lm/decoder.js';
import { weightSpecs } from '../../../hf/weights.js';
import { addModelWeights, gpt2Name, sequenceLogits, storeName, type ModelShape } from '../../../runtime/policies/transformer/model.js';
import { PolicyFileError } from '../../../runtime/policies/policy-file.js';
import { OnnxTokenModel } from '../../../runtime/policies/transformer/onnx-token-model.js';
import { Rng } from '../../../shared/random.js';
import { Graph, Session, WeightStore } from '../../../runtime/tensor/index.js';
import { ModelProto } from '../../../runtime/tensor/onnx-schema.js';
import { CharTokenizer, EOS, PAD } from '../../../runtime/policies/transformer/char-tokenizer.js';
import { KvSampler } from '../../helpers/kv-sampler.js';
import { repoRoot } from '../../helpers/repo.js';
import { tempDir } from '../helpers.js';
import { checkGradients } from '../tensor/gradcheck.js';

const tokenizer = CharTokenizer.fromAlphabet('+0123456789=');
const tiny = { layers: 2, width: 8, heads: 2, context: 16 };

/** A policy whose weights are drawn from normal(0, 1), much larger than GPT-2's init, so that its outputs depend on the prompt. */
function policy(seed = 3) {
  const model = makeTokenModel({ kind: 'transformer', name: 'Tiny', params: tiny }, tokenizer, new Rng(seed));
  const rng = new Rng(seed + 100);
  for (const name of model.weights.names) {
    const data = model.weights.get(name).data;
    if (!name.endsWith('.scale')) for (let i = 0; i < data.length; i++) data[i] = rng.normal();
  }
  return model;
}

test('the masked next-token cross-entropy of the whole model matches finite differences for every weight', async () => {
  const m: ModelShape = { layers: 1, width: 4, heads: 2, context: 5, vocab: 6 };
  const shapes: Record<string, number[]> = {};
  const store = new WeightStore();
  addModelWeights(store, m, new Rng(1));
  for (const name of store.names) shapes[name] = [...store.get(name).shape];
  const tokens = [1, 3, 4, 5, 2, 1, 5, 3, 3, 4]; // [2, 5]
  const targets = [3, 4, 5, 2, 0, 5, 3, 3, 4, 2];
  const mask = [0, 1, 1, 1, 0, 0, 0, 1, 1, 1];
  await checkGradients({
    inputs: shapes,
    build: (g, w) => {
      const logits = sequenceLogits(g, w, m, g.const(tokens, { dtype: 'int64', shape: [2, 5] }));
      const logp = g.gatherLast(g.logSoftmax(logits), g.const(targets, { dtype: 'int64', shape: [2, 5] }));
      return g.neg(g.reduceSum(g.mul(logp, g.const(mask, { dtype: 'float64', shape: [2, 5] }))));
    },
    sample: (name, size, random) => Float64Array.from({ length: size }, () => (name.endsWith('.scale') ? 1 : 0) + 0.5 * (random() - 0.5)),
    points: 1,
  });
});

test('the KV-cache step gives the logits of the full forward pass at every position', async () => {
  const model = policy();
  const layout = textLayout(6, 4); // W 7, N 5: 11 tokens read
  const prompts = encodePrompts(tokenizer, ['12+34=', '5+6=', '99+9='], layout);
  const completions = new Int32Array(3 * 5).fill(PAD);
  completions.set([4, 7, EOS], 0);
  completions.set([3, 4, 5, 6, 7], 5);
  const rows = trainingRows(prompts, completions, 3, layout);
  const T = sequenceWidth(layout);
  const g = new Graph();
  const logits = model.sequenceLogits(g, g.input('tokens', 'int64', ['B', T]));
  const session = await Session.create(g, { logits }, { weights: model.weights });
  const full = (await session.run({ tokens: { data: rows.tokens, dims: [3, T] } })).logits!;
  await session.release();
  const m = { ...tiny, vocab: tokenizer.size };
  const sampler = new KvSampler(model.weights, m);
  const V = tokenizer.size;
  for (let t = 0; t < T; t++) {
    const step = sampler.step(Int32Array.from({ length: 3 }, (_, r) => Number(rows.tokens[r * T + t])), 3, t, T);
    for (let r = 0; r < 3; r++) {
      for (let v = 3; v < V; v++) {
        assert.ok(Math.abs(step[r * V + v]! - full[(r * T + t) * V + v]!) < 1e-4, `position ${t}, row ${r}, token ${v}: ${step[r * V + v]} vs ${full[(r * T + t) * V + v]}`);
      }
    }
  }
});

test('greedy sampling with the cache (onnxruntime\'s step and the JS one) writes the tokens that re-running the full forward pass writes', async () => {
  const model = policy(6); // a seed whose rows differ, one of them ending early
  const layout = textLayout(6, 5);
  const texts = ['12+34=', '5+6=', '99+99=', '0+0='];
  const prompts = encodePrompts(tokenizer, texts, layout);
  const N = layout.completionSlots;
  const cached = await model.generate(prompts, texts.length, layout.promptWidth, N, { temperature: 1, greedy: true });
  const inJs = await new KvSampler(model.weights, { ...tiny, vocab: tokenizer.size }).generate(prompts, texts.length, layout.promptWidth, N, { temperature: 1, greedy: true });
  // The reference: append the argmax of the full forward pass, one token at a time.
  const T = sequenceWidth(layout);
  const g = new Graph();
  const logits = model.sequenceLogits(g, g.input('tokens', 'int64', ['B', T]));
  const session = await Session.create(g, { logits }, { weights: model.weights });
  const V = tokenizer.size;
  const slots = new Int32Array(texts.length * N).fill(PAD);
  for (let k = 0; k < N; k++) {
    const { tokens } = trainingRows(prompts, slots, texts.length, layout);
    const out = (await session.run({ tokens: { data: tokens, dims: [texts.length, T] } })).logits!;
    for (let r = 0; r < texts.length; r++) {
      if (k > 0 && (slots[r * N + k - 1] === EOS || slots[r * N + k - 1] === PAD)) continue;
      const at = (r * T + layout.promptWidth - 1 + k) * V;
      let best = 0;
      for (let v = 1; v < V; v++) if (out[at + v]! > out[at + best]!) best = v;
      // The last slot holds only an EOS (sampling.ts): a completion that reaches it is cut.
      slots[r * N + k] = k === N - 1 && best !== EOS ? PAD : best;
    }
  }
  await session.release();
  assert.deepEqual([...cached], [...slots], 'onnxruntime stepping the decoding graph with its cache');
  assert.deepEqual([...inJs], [...slots], 'the JS step with its cache');
  assert.ok(new Set(cached).size > 3, `the completions should vary: ${[...cached]}`);
});

test('sampling draws from softmax(logits / temperature), never <pad> or <bos>, and stops each row at its <eos>', async () => {
  const model = policy(11);
  const layout = textLayout(6, 5);
  const prompts = encodePrompts(tokenizer, Array(200).fill('12+34='), layout);
  const N = layout.completionSlots;
  const slots = await model.generate(prompts, 200, layout.promptWidth, N, { temperature: 3, greedy: false, rng: new Rng(1) });
  let afterEnd = 0;
  for (let r = 0; r < 200; r++) {
    let ended = false;
    for (let k = 0; k < N; k++) {
      const token = slots[r * N + k]!;
      if (ended) afterEnd += token === PAD ? 0 : 1;
      else if (k === N - 1) assert.ok(token === EOS || token === PAD, `the last slot of row ${r} is ${token}`);
      else assert.ok(token >= EOS, `row ${r} slot ${k} is ${token}`);
      if (token === EOS) ended = true;
    }
  }
  assert.equal(afterEnd, 0);
  const firsts = new Set(Array.from({ length: 200 }, (_, r) => slots[r * N]));
  assert.ok(firsts.size > 5, 'a hot temperature spreads the first token');
  const texts = await completeTexts(model, tokenizer, ['1+1='], layout, { temperature: 1, greedy: true });
  assert.equal(texts.length, 1);
  assert.ok([...texts[0]!].length <= 5);
});

test('the exported decoding graph, stepped by onnxruntime with past keys and values, gives the JS reference\'s logits', async () => {
  const model = policy(5);
  const bytes = model.exportOnnx({ format: 'rlx-policy' });
  const session = await ort.InferenceSession.create(bytes);
  const meta = JSON.parse((ModelProto.decode(bytes) as unknown as { doc_string: string }).doc_string);
  assert.deepEqual(meta.tokenizer, tokenizer.toJSON(), 'the vocabulary travels with the model');
  assert.deepEqual(meta.model, { ...tiny, vocab: tokenizer.size });
  assert.deepEqual(meta.inputs, model.onnxInterface.inputs);
  assert.deepEqual(session.inputNames.slice(0, 3), [DECODER_IO.tokens, DECODER_IO.positions, DECODER_IO.mask]);
  const m = { ...tiny, vocab: tokenizer.size };
  const [H, D] = [m.heads, m.width / m.heads];
  const sampler = new KvSampler(model.weights, m);
  const sequence = [[1, 4, 12, 5, 13], [0, 1, 9, 12, 10]]; // two rows, five positions
  const feeds: Record<string, ort.Tensor> = {};
  for (let l = 0; l < m.layers; l++) {
    feeds[DECODER_IO.pastKey(l)] = new ort.Tensor('float32', new Float32Array(0), [2, H, 0, D]);
    feeds[DECODER_IO.pastValue(l)] = new ort.Tensor('float32', new Float32Array(0), [2, H, 0, D]);
  }
  for (let t = 0; t < 5; t++) {
    feeds[DECODER_IO.tokens] = new ort.Tensor('int64', BigInt64Array.from(sequence.map((row) => BigInt(row[t]!))), [2, 1]);
    feeds[DECODER_IO.positions] = new ort.Tensor('int64', BigInt64Array.from([BigInt(t), BigInt(t)]), [2, 1]);
    feeds[DECODER_IO.mask] = new ort.Tensor('float32', new Float32Array(2 * (t + 1)), [2, 1, t + 1]);
    const out = await session.run(feeds);
    const expected = sampler.step(Int32Array.from(sequence.map((row) => row[t]!)), 2, t, 5);
    const got = out[DECODER_IO.logits]!.data as Float32Array;
    for (let i = 0; i < got.length; i++) if (expected[i]! > -1e8) assert.ok(Math.abs(got[i]! - expected[i]!) < 1e-4, `position ${t}: ${got[i]} vs ${expected[i]}`);
    for (let l = 0; l < m.layers; l++) {
      feeds[DECODER_IO.pastKey(l)] = out[DECODER_IO.presentKey(l)]!;
      feeds[DECODER_IO.pastValue(l)] = out[DECODER_IO.presentValue(l)]!;
      assert.deepEqual(out[DECODER_IO.presentKey(l)]!.dims, [2, H, t + 1, D]);
    }
  }
  await session.release();
});

test('the exported model, loaded as rlx eval loads it, writes the completions the policy writes', async () => {
  const model = policy(6);
  const file = `${tempDir()}/policy.onnx`;
  fs.writeFileSync(file, model.exportOnnx({ format: 'rlx-policy' }));
  const loaded = await OnnxTokenModel.load(file);
  const layout = textLayout(6, 5);
  const texts = ['12+34=', '5+6=', '99+99=', '0+0='];
  const prompts = encodePrompts(tokenizer, texts, layout);
  const options = { temperature: 1, greedy: false, rng: new Rng(4) };
  const fromFile = await loaded.generate(prompts, texts.length, layout.promptWidth, layout.completionSlots, options);
  const live = await model.generate(prompts, texts.length, layout.promptWidth, layout.completionSlots, { ...options, rng: new Rng(4) });
  assert.deepEqual([...fromFile], [...live]);
  await Promise.all([loaded.release(), model.release()]);
});

test('a token model exported before the policy became lm/\'s GPT-2 (one token, one position per step) writes what it wrote then', async () => {
  const fixtures = path.join(repoRoot(), 'test', 'runtime', 'policies', 'fixtures');
  const expected = JSON.parse(fs.readFileSync(path.join(fixtures, 'legacy-token-model.json'), 'utf8')) as { prompts: string[]; greedy: number[]; sampled: number[] };
  const loaded = await OnnxTokenModel.load(path.join(fixtures, 'legacy-token-model.onnx'));
  const layout = textLayout(6, 5);
  const prompts = encodePrompts(loaded.tokenizer, expected.prompts, layout);
  const write = (options: { temperature: number; greedy: boolean; rng?: Rng }) => loaded.generate(prompts, expected.prompts.length, layout.promptWidth, layout.completionSlots, options);
  assert.deepEqual([...(await write({ temperature: 1, greedy: true }))], expected.greedy);
  assert.deepEqual([...(await write({ temperature: 1, greedy: false, rng: new Rng(9) }))], expected.sampled);
  await loaded.release();
});

test('a token model whose metadata gives dimensions no GPT-2 has is refused naming the file', async () => {
  const model = policy(5);
  const proto = ModelProto.decode(model.exportOnnx({ format: 'rlx-policy' })) as unknown as { doc_string: string };
  const meta = JSON.parse(proto.doc_string);
  proto.doc_string = JSON.stringify({ ...meta, model: { ...meta.model, heads: 3 } });
  const file = `${tempDir()}/policy.onnx`;
  fs.writeFileSync(file, ModelProto.encode(proto as never).finish());
  await assert.rejects(OnnxTokenModel.load(file), (e: Error) => e instanceof PolicyFileError && e.message.startsWith(file) && /n_head.*--checkpoint/.test(e.message));
});

test('the policy\'s weights are GPT-2\'s, one to one, under the names its checkpoints have always used', () => {
  const m: ModelShape = { ...tiny, vocab: tokenizer.size };
  const store = new WeightStore();
  addModelWeights(store, m, new Rng(1));
  const specs = weightSpecs(gpt2Dims(m));
  assert.deepEqual(store.names.map(gpt2Name), specs.map((s) => s.name));
  assert.deepEqual(specs.map((s) => storeName(s.name)), store.names);
  assert.deepEqual(store.names.slice(0, 6), ['wte', 'wpe', 'h.0.ln1.scale', 'h.0.ln1.bias', 'h.0.attn.qkv.weight', 'h.0.attn.qkv.bias']);
  for (const s of specs) assert.deepEqual(store.get(storeName(s.name)).shape, s.shape, s.name);
  // GPT-2's initialisation: the residual projections at 0.02 / sqrt(2 layers), scales 1, biases 0.
  const std = (name: string) => Math.sqrt(store.get(name).data.reduce((a, x) => a + x * x, 0) / store.get(name).data.length);
  assert.ok(Math.abs(std('h.0.mlp.up.weight') - 0.02) < 0.003, `${std('h.0.mlp.up.weight')}`);
  assert.ok(Math.abs(std('h.0.mlp.down.weight') - 0.01) < 0.002, `${std('h.0.mlp.down.weight')}`);
  assert.ok(store.get('lnf.scale').data.every((x) => x === 1) && store.get('h.1.attn.out.bias').data.every((x) => x === 0));
});

test('a layout that does not fit the context, and an mlp asked for a token model, are errors that say what to change', async () => {
  assert.throws(
    () => makeTokenModel({ kind: 'mlp', name: 'Net', params: { hidden: [8], activation: 'tanh', shared_trunk: false } }, tokenizer, new Rng(1)),
    /cannot be; use a transformer policy/,
  );
  assert.throws(() => makeTokenModel({ kind: 'transformer', name: 'T', params: { ...tiny, width: 9 } }, tokenizer, new Rng(1)), /width.*multiple of heads/);
  const model = policy();
  const layout = textLayout(12, 8);
  await assert.rejects(model.generate(encodePrompts(tokenizer, ['1+1='], layout), 1, layout.promptWidth, layout.completionSlots, { temperature: 1, greedy: true }), /context of 16 tokens/);
});
