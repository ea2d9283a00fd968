// The chunked decoder written in fp16 (chunked-decoder.ts with `precision: 'fp16'`, the lowering of
// mixed-precision.ts): on the hf-tiny models, greedy chunks choose tokens that float32 ranks best
// or within a hair of it, and the log-probs the graph reports (float16 products) agree with a
// float32 scoring of the same tokens; the frozen base is baked as float16 where only products
// read it; the key/value cache crosses as float16, half its bytes a chunk, and on webgpu
// (lavapipe) gives the float32 cache's tokens and log-probs bit for bit; on webgpu no node falls
// back to the CPU that float32's session keeps on the device; and a GRPO run of a LoRA model
// with `precision: fp16` on webgpu samples through the fp16 chunked session and trains. The CPU provider computes float16 products in float32 from
// float16-rounded operands (mixed-precision.ts), so it is asked for fp16 explicitly here, as
// log-prob-sessions.test.ts does; a run on the CPU device never samples in fp16.
//
// Measured (16 rows, 16 new tokens, K = 4): greedy agrees with float32's chunks on 99.6-100% of
// positions on the CPU provider, 94.9-100% on lavapipe (one row diverging early changes all its
// later tokens); the worst chosen token's float32 log-prob is 3.7e-4 (CPU) and 1.3e-3 (lavapipe)
// below the best, where the best and second-best tokens of these models are 0.086 apart at the
// median and 0.011 at the 10th percentile; reported log-probs are within 6.6e-4 (CPU) and 4.4e-3
// (lavapipe) of float32's.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import * as ort from 'onnxruntime-node';
import type { Plan } from '../../../dsl/compile/plan.js';
import { CHUNK_IO, ChunkedDecoder } from '../../../runtime/lm/chunked-decoder.js';
import { LmDecoder, type CacheType } from '../../../runtime/lm/decoder.js';
import { chunkedDecoder, generateInChunks, logSoftmaxAt, type Completion, type GenerateOptions } from '../../../runtime/lm/generate.js';
import { openModelFolder } from '../../../runtime/lm/model-folder.js';
import { PretrainedLm } from '../../../runtime/lm/pretrained.js';
import { rolloutDevice } from '../../../runtime/lm/rollout-device.js';
import { ModelProto } from '../../../runtime/tensor/onnx-schema.js';
import { parsePlacements, summarize } from '../../../runtime/tensor/placement.js';
import { resetSessionTraffic, sessionTraffic, type ExecutionProvider, type Precision } from '../../../runtime/tensor/index.js';
import { train } from '../../../runtime/train.js';
import { Rng } from '../../../shared/random.js';
import { HF_TINY } from '../../helpers/pretrained.js';
import { webgpuOrSkip } from '../../helpers/webgpu.js';
import { makePlan, tempDir } from '../helpers.js';

/** Greedy agreement with float32's chunks, position by position: a broken lowering agrees on a few percent. */
const MIN_AGREEMENT = 0.85;
/** How far below float32's best a greedy fp16 token's float32 log-prob may be (measured up to 1.3e-3; choosing the second best would miss it 90% of the time). */
const CHOSEN_GAP = 1e-2;
/** How far a reported fp16 log-prob may be from float32's for the same token (measured up to 4.4e-3). */
const LOG_PROB_TOLERANCE = 2e-2;
const STEPS = 4;

const load = (family: string) => PretrainedLm.load(openModelFolder(path.join(HF_TINY, family)), family === 'qwen2' ? { lora: { adapterDir: path.join(HF_TINY, 'qwen2-lora') } } : {});

/** The decoder a LoRA run's rollouts decode with (PretrainedLm.sampleOn): the base baked, the adapters fed; the cache as `cacheType` where given. */
const rolloutDecoder = (lm: PretrainedLm, provider: ExecutionProvider, precision: Precision, cacheType?: CacheType) =>
  LmDecoder.forCompanions(lm.config, { weights: lm.trainable, frozen: lm.frozen, lora: lm.lora?.weights, providers: [provider], precision, ...(cacheType ? { cacheType } : {}) });

/** `rows` prompts of 1 to 6 seeded ids below 400 (the fixtures' vocabulary). */
function prompts(rows: number, seed: number): number[][] {
  const rng = new Rng(seed);
  return Array.from({ length: rows }, () => Array.from({ length: 1 + Math.floor(rng.uniform() * 6) }, () => Math.floor(rng.uniform() * 400)));
}

/** Along each completion, float32's one-step (CPU) log-prob of its token and of the best token. */
async function scoreInFp32(lm: PretrainedLm, rows: readonly (readonly number[])[], completions: readonly Completion[]): Promise<{ chosen: number; best: number }[][]> {
  const decoder = await lm.decoder();
  const V = lm.config.vocab;
  const out: { chosen: number; best: number }[][] = [];
  for (const [r, prompt] of rows.entries()) {
    const state = decoder.begin(new Int32Array(1));
    let logits = await decoder.feed(state, Int32Array.from(prompt), prompt.length);
    const row: { chosen: number; best: number }[] = [];
    for (const id of completions[r]!.ids) {
      let best = -Infinity;
      for (let v = 0; v < V; v++) best = Math.max(best, logSoftmaxAt(logits, 0, V, v));
      row.push({ chosen: logSoftmaxAt(logits, 0, V, id), best });
      logits = await decoder.feed(state, Int32Array.of(id), 1);
    }
    out.push(row);
  }
  return out;
}

/** fp16 chunks against fp32 chunks and a float32 scoring, greedy and sampled; the figures for the diagnostic. */
async function compareWithFp32(lm: PretrainedLm, provider: ExecutionProvider): Promise<string> {
  const [full, half] = [rolloutDecoder(lm, provider, 'fp32'), rolloutDecoder(lm, provider, 'fp16')];
  try {
    const rows = prompts(16, 1);
    const greedy = { maxNewTokens: 16, greedy: true, stopIds: [], padId: 0 } as const;
    const expected = await generateInChunks(full, rows, greedy, STEPS);
    const got = await generateInChunks(half, rows, greedy, STEPS);
    // Written in float16: its log-probs are not float32's, bit for bit.
    assert.ok(got.some((c, r) => c.logProbs.some((lp, i) => c.ids[i] === expected[r]!.ids[i] && lp !== expected[r]!.logProbs[i])), 'the fp16 session computes in float16');
    const positions = got.flatMap((c, r) => c.ids.map((id, i) => id === expected[r]!.ids[i]));
    const agreement = positions.filter(Boolean).length / positions.length;
    assert.ok(agreement >= MIN_AGREEMENT, `greedy fp16 agrees with fp32 on ${(agreement * 100).toFixed(1)}% of positions`);
    let worstGap = 0;
    let worstLogProb = 0;
    (await scoreInFp32(lm, rows, got)).forEach((row, r) =>
      row.forEach(({ chosen, best }, i) => {
        worstGap = Math.max(worstGap, best - chosen);
        worstLogProb = Math.max(worstLogProb, Math.abs(chosen - got[r]!.logProbs[i]!));
      }),
    );
    assert.ok(worstGap <= CHOSEN_GAP, `a greedy fp16 token is ${worstGap} below float32's best`);
    assert.ok(worstLogProb <= LOG_PROB_TOLERANCE, `a greedy fp16 log-prob is ${worstLogProb} from float32's`);
    const sampled = await generateInChunks(half, rows, { maxNewTokens: 16, greedy: false, temperature: 1, rng: new Rng(7), stopIds: [], padId: 0 }, STEPS);
    let worstSampled = 0;
    (await scoreInFp32(lm, rows, sampled)).forEach((row, r) => row.forEach(({ chosen }, i) => (worstSampled = Math.max(worstSampled, Math.abs(chosen - sampled[r]!.logProbs[i]!)))));
    assert.ok(sampled.every((c) => c.ids.every((id) => id >= 0 && id < lm.config.vocab)));
    assert.ok(worstSampled <= LOG_PROB_TOLERANCE, `a sampled fp16 log-prob is ${worstSampled} from float32's`);
    return `greedy agreement ${(agreement * 100).toFixed(1)}%, worst chosen gap ${worstGap.toExponential(1)}, worst log-prob difference greedy ${worstLogProb.toExponential(1)} sampled ${worstSampled.toExponential(1)}`;
  } finally {
    await full.release();
    await half.release();
  }
}

interface Initializer { readonly data_type: number; readonly raw_data: Uint8Array }
interface NodeProto { readonly op_type: string; readonly input: string[]; readonly output: string[] }
const FLOAT16 = 10;
const FLOAT32 = 1;

describe('the chunked decoder in fp16', () => {
  for (const family of ['qwen2', 'llama', 'gpt2']) {
    it(`chooses float32's best tokens and reports float32's log-probs within tolerance (${family}, CPU provider asked for fp16)`, async (t) => {
      const lm = load(family);
      try {
        t.diagnostic(await compareWithFp32(lm, 'cpu'));
      } finally {
        await lm.release();
      }
    });
  }

  it('bakes the frozen base as float16 where only products read it (half its bytes); fp32 stays float32', async () => {
    const lm = load('qwen2');
    const initializers = async (precision?: Precision) => {
      const decoder = LmDecoder.forCompanions(lm.config, { weights: lm.trainable, frozen: lm.frozen, lora: lm.lora?.weights, ...(precision ? { precision } : {}) });
      try {
        const chunked = await decoder.companion('bytes', (options) => ChunkedDecoder.create(lm.config, options, STEPS, 'sample'));
        const model = ModelProto.decode((chunked as unknown as { session: { model: { bytes: Uint8Array } } }).session.model.bytes) as unknown as { graph: { initializer: Initializer[]; node: NodeProto[] } };
        const bytes = (type: number) => model.graph.initializer.filter((i) => i.data_type === type).reduce((a, i) => a + i.raw_data.length, 0);
        // What each step's cumulative softmax sums: the float32 Softmax's output, never a float16 cast.
        const producer = new Map(model.graph.node.map((n) => [n.output[0]!, n]));
        const summed = model.graph.node.filter((n) => n.op_type === 'CumSum').map((n) => producer.get(n.input[0]!)!.op_type);
        return { precision: chunked.precision, half: bytes(FLOAT16), single: bytes(FLOAT32), summed };
      } finally {
        await decoder.release();
      }
    };
    try {
      const [byDefault, full, half] = [await initializers(), await initializers('fp32'), await initializers('fp16')];
      assert.deepEqual(byDefault, full);
      assert.equal(full.precision, 'fp32');
      assert.equal(full.half, 0);
      // 448,912 bytes of float32 base: 344,064 of product weights baked in 172,032 of float16, the embedding and norms as they were.
      assert.ok(half.half > 0.3 * full.single, `${half.half} bytes baked as float16`);
      assert.equal(half.half * 2 + half.single, full.single, 'each weight baked as float16 takes half its float32 bytes');
      assert.deepEqual(half.summed, Array(STEPS).fill('Softmax'), 'each step draws from a float32 cumulative softmax');
    } finally {
      await lm.release();
    }
  });

  it('is chosen for a LoRA run on a GPU with precision fp16, never on the CPU', () => {
    const lora = { device: 'webgpu', lora: true, parameters: 5e8, tokenStatistics: false } as const;
    assert.deepEqual([rolloutDevice({ ...lora, precision: 'fp16' }).precision, rolloutDevice({ ...lora, precision: 'fp16' }).reason.startsWith('chunked decoding in fp16')], ['fp16', true]);
    assert.equal(rolloutDevice(lora).precision, 'fp32');
    assert.equal(rolloutDevice({ ...lora, precision: 'fp32' }).precision, 'fp32');
    for (const cpu of [{ device: 'cpu' }, { parameters: 1000 }, { tokenStatistics: true }, { lora: false }] as const) {
      const chosen = rolloutDevice({ ...lora, ...cpu, precision: 'fp16' });
      assert.deepEqual([chosen.provider, chosen.precision], ['cpu', 'fp32'], JSON.stringify(cpu));
    }
  });

  it('on webgpu (lavapipe): chooses float32\'s best tokens, log-probs within tolerance', async (t) => {
    const skip = await webgpuOrSkip();
    if (skip) return t.skip(skip);
    const lm = load('qwen2');
    try {
      t.diagnostic(await compareWithFp32(lm, 'webgpu'));
    } finally {
      await lm.release();
    }
  });

  it('feeds and fetches the key/value cache as float16 (fp32: float32 as before): half the cache\'s bytes a chunk', async (t) => {
    // docs/gpu.md's case: 16 rows of 6-token prompts, 32 new tokens, K = 8 (four runs). The
    // bytes do not depend on the provider; lavapipe is used where it starts, as the doc says.
    const provider: ExecutionProvider = (await webgpuOrSkip()) ? 'cpu' : 'webgpu';
    const lm = load('qwen2');
    const K = 8;
    const rows = Array.from({ length: 16 }, (_, r) => Array.from({ length: 6 }, (_, i) => (r * 31 + i * 7) % 400));
    const traffic = async (precision: Precision, cacheType?: CacheType) => {
      const decoder = rolloutDecoder(lm, provider, precision, cacheType);
      try {
        const chunked = await chunkedDecoder(decoder, 'greedy', K);
        resetSessionTraffic();
        await generateInChunks(decoder, rows, { maxNewTokens: 32, greedy: true, stopIds: [], padId: 0 }, K);
        const { runs, hostToDeviceBytes, deviceToHostBytes } = resetSessionTraffic();
        const held = Object.values(chunked.begin(new Int32Array(1)).cache)[0]!.data;
        return { cacheType: chunked.cacheType, held: held.constructor.name, runs, hostToDeviceBytes, deviceToHostBytes };
      } finally {
        await decoder.release();
      }
    };
    try {
      const [full, halfWithFloatCache, half] = [await traffic('fp32'), await traffic('fp16', 'float32'), await traffic('fp16')];
      assert.deepEqual([full.cacheType, full.held, halfWithFloatCache.cacheType, half.cacheType, half.held], ['float32', 'Float32Array', 'float32', 'float16', 'Uint16Array']);
      assert.deepEqual(halfWithFloatCache, full, 'a float32 cache moves what fp32 moves');
      // The cache's positions fed (P) and fetched (P + width) by each run: width 6 + K - 1, then K.
      const { layers, kvHeads, headDim } = lm.config;
      let fed = 0;
      let fetched = 0;
      for (let run = 0, P = 0; run < 4; run++) {
        fed += P;
        P += (run === 0 ? 6 : 1) + K - 1;
        fetched += P;
      }
      const float32Bytes = (positions: number) => positions * rows.length * layers * 2 * kvHeads * headDim * 4;
      assert.equal(half.runs, 4);
      assert.equal(full.hostToDeviceBytes - half.hostToDeviceBytes, float32Bytes(fed) / 2, 'the cache fed in half its float32 bytes');
      assert.equal(full.deviceToHostBytes - half.deviceToHostBytes, float32Bytes(fetched) / 2, 'the cache fetched in half its float32 bytes');
      const total = (x: typeof full) => x.hostToDeviceBytes + x.deviceToHostBytes;
      t.diagnostic(`${provider}: float32 cache ${full.hostToDeviceBytes} bytes in, ${full.deviceToHostBytes} out; float16 cache ${half.hostToDeviceBytes} in, ${half.deviceToHostBytes} out (${((100 * total(half)) / total(full)).toFixed(0)}% of the bytes)`);
    } finally {
      await lm.release();
    }
  });

  it('a decode state keeps its cache\'s type: the one-step decoder refuses a float16 cache, a chunked decoder one of the other type', async () => {
    const lm = load('gpt2');
    const half = rolloutDecoder(lm, 'cpu', 'fp16');
    try {
      const oneStep = await lm.decoder();
      const chunked = await chunkedDecoder(half, 'greedy', STEPS);
      await assert.rejects(oneStep.feed(chunked.begin(new Int32Array(1)), Int32Array.of(1), 1), /cache is float16 .*begin the batch with LmDecoder\.begin/);
      await assert.rejects(chunked.feed(oneStep.begin(new Int32Array(1)), Int32Array.of(1), 1, { mode: 'greedy' }), /feeds its key\/value cache as float16, the state's is float32/);
    } finally {
      await half.release();
      await lm.release();
    }
  });

  it('on webgpu (lavapipe): the float16 cache gives the float32 cache\'s tokens and log-probs bit for bit, greedy and sampled', async (t) => {
    // Every read of the cache in the graph is a product's float16 cast: casting it once at the
    // output instead changes no bit on WebGPU (on the CPU provider it moves log-probs by up to 9.7e-4).
    const skip = await webgpuOrSkip();
    if (skip) return t.skip(skip);
    const rows = prompts(16, 2);
    const runs: [string, () => GenerateOptions][] = [
      ['greedy', () => ({ maxNewTokens: 16, greedy: true, stopIds: [], padId: 0 })],
      ['sampled', () => ({ maxNewTokens: 16, greedy: false, temperature: 1, rng: new Rng(7), stopIds: [], padId: 0 })],
    ];
    for (const family of ['qwen2', 'llama', 'gpt2']) {
      const lm = load(family);
      const [floatCache, halfCache] = [rolloutDecoder(lm, 'webgpu', 'fp16', 'float32'), rolloutDecoder(lm, 'webgpu', 'fp16')];
      try {
        for (const [name, options] of runs) {
          const expected = await generateInChunks(floatCache, rows, options(), STEPS);
          const got = await generateInChunks(halfCache, rows, options(), STEPS);
          assert.deepEqual(got, expected, `${family} ${name}`);
        }
        assert.deepEqual([(await chunkedDecoder(floatCache, 'greedy', STEPS)).cacheType, (await chunkedDecoder(halfCache, 'greedy', STEPS)).cacheType], ['float32', 'float16']);
      } finally {
        await floatCache.release();
        await halfCache.release();
        await lm.release();
      }
    }
  });

  it('on webgpu (lavapipe): leaves no more nodes to the CPU than the fp32 session does, its float16 cache\'s casts on the GPU', async (t) => {
    const skip = await webgpuOrSkip();
    if (skip) return t.skip(skip);
    // A child process per session: onnxruntime writes its placement log to stderr from native code.
    const module = (file: string) => JSON.stringify(new URL(file, import.meta.url).href);
    const placement = (precision: Precision, mode: string, cacheType?: CacheType) => {
      const script = `
        const { ChunkedDecoder } = await import(${module('../../../runtime/lm/chunked-decoder.js')});
        const { LmDecoder } = await import(${module('../../../runtime/lm/decoder.js')});
        const { openModelFolder } = await import(${module('../../../runtime/lm/model-folder.js')});
        const { PretrainedLm } = await import(${module('../../../runtime/lm/pretrained.js')});
        const lm = PretrainedLm.load(openModelFolder(${JSON.stringify(path.join(HF_TINY, 'qwen2'))}), { lora: { adapterDir: ${JSON.stringify(path.join(HF_TINY, 'qwen2-lora'))} } });
        const decoder = LmDecoder.forCompanions(lm.config, { weights: lm.trainable, frozen: lm.frozen, lora: lm.lora.weights, providers: ['webgpu'], precision: '${precision}'${cacheType ? `, cacheType: '${cacheType}'` : ''} });
        await decoder.companion('placement', (options) => ChunkedDecoder.create(decoder.config, options, 4, '${mode}'));
        await decoder.release();
        await lm.release();`;
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 180_000, maxBuffer: 64 << 20, env: { ...process.env, RLX_ORT_PLACEMENT: '1' } });
      assert.equal(run.status, 0, run.stderr.slice(-2000));
      const found = parsePlacements(run.stderr).map(summarize);
      return found[found.length - 1]!;
    };
    const ops = (nodes: readonly { op: string }[]) => nodes.map((n) => n.op).sort();
    for (const mode of ['greedy', 'sample']) {
      const [full, floatCache, half] = [placement('fp32', mode), placement('fp16', mode, 'float32'), placement('fp16', mode)];
      t.diagnostic(`${mode}: fp32 ${full.onDevice} nodes on the GPU, ${full.fallbacks.length} on the CPU, ${full.copies} copies; fp16 with a float32 cache ${floatCache.onDevice}, ${floatCache.fallbacks.length}, ${floatCache.copies}; fp16 (float16 cache) ${half.onDevice}, ${half.fallbacks.length}, ${half.copies}`);
      for (const [name, made] of [['fp16', half], ['fp16 with a float32 cache', floatCache]] as const) {
        assert.deepEqual(ops(made.fallbacks), ops(full.fallbacks), `${mode}: the same ops on the CPU in ${name} as in fp32`);
        assert.ok(made.copies <= full.copies, `${mode}: ${made.copies} host<->GPU copies a run in ${name}, ${full.copies} in fp32`);
      }
      // The float16 cache's casts in run on the GPU: 2 layers x (keys, values). (Casts out are in
      // both: the decode steps' fused attention writes the cache in float16, a float32 cache is cast up.)
      assert.ok(half.onDevice >= floatCache.onDevice + 2 * 2, `${mode}: ${half.onDevice} nodes on the GPU with the float16 cache, ${floatCache.onDevice} without`);
    }
  });

  it('on webgpu (lavapipe): a GRPO run of a LoRA model with precision fp16 samples through the fp16 chunked session and trains', async (t) => {
    const skip = await webgpuOrSkip();
    if (skip) return t.skip(skip);
    const plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 4 }, algorithm: 'GRPO', algorithmParams: { prompts_per_update: 2, group_size: 4, max_new_tokens: 4, learning_rate: 1e-2 }, budget: 8 });
    plan.policy = { name: 'Base', kind: 'pretrained', params: { model: path.join(HF_TINY, 'qwen2'), lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] } } as Plan['policy']['params'] };
    const logs: string[] = [];
    // Sessions that chose tokens in the graph, and whether their model computes in float16.
    const chunkedRuns: boolean[] = [];
    const proto = (ort.InferenceSession as unknown as { prototype: { run: (this: { outputNames: readonly string[] }, feeds: Record<string, unknown>, ...rest: unknown[]) => unknown } }).prototype;
    const run = proto.run;
    const create = ChunkedDecoder.create;
    const precisions: Precision[] = [];
    proto.run = function (feeds, ...rest) {
      if (this.outputNames.includes(CHUNK_IO.chosen)) chunkedRuns.push(CHUNK_IO.uniforms in feeds);
      return run.call(this, feeds, ...rest);
    };
    ChunkedDecoder.create = async (...args) => {
      const made = await create.apply(ChunkedDecoder, args);
      precisions.push(made.precision);
      return made;
    };
    try {
      const result = await train({ ...plan, precision: 'fp16' }, { out: tempDir(), device: { provider: 'webgpu', reason: 'asked for' }, gpuSamplingMinParameters: 0, log: (m) => logs.push(m) });
      assert.equal(result.status, 'finished');
      assert.equal(result.step, 8);
      assert.ok(chunkedRuns.some((sampled) => sampled), 'GRPO sampled through the chunked session');
      assert.ok(precisions.length > 0 && precisions.every((p) => p === 'fp16'), `chunked sessions built in ${precisions.join(', ')}`);
      assert.equal(logs.filter((m) => m.startsWith('rollouts on webgpu (chunked decoding in fp16')).length, 1, logs.join('\n'));
      const metrics = fs.readFileSync(path.join(result.runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; values?: Record<string, unknown> });
      const losses = metrics.flatMap((e) => (e.type === 'metrics' ? Object.entries(e.values ?? {}).filter(([k]) => /loss/.test(k)).map(([, v]) => v) : []));
      assert.ok(losses.length > 0 && losses.every((v) => typeof v === 'number' && Number.isFinite(v)), `losses ${JSON.stringify(losses.slice(0, 5))}`);
      const hparams = metrics.find((e) => e.type === 'hparams')?.values ?? {};
      assert.deepEqual([hparams.rollout_device, hparams.rollout_precision], ['webgpu', 'fp16'], 'the run records where and in what its rollouts were sampled');
    } finally {
      proto.run = run;
      ChunkedDecoder.create = create;
    }
  });
});
