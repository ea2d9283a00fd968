// Decoding K tokens per session run (lm/chunked-decoder.ts), the GPU path of generate(): greedy
// gives the one-step loop's tokens, token for token, on the hf-tiny models (CPU provider, and
// webgpu on lavapipe where it starts); sampled first tokens follow softmax(logits / T); a
// seeded run repeats; the CPU's generate() keeps the one-step loop.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CHUNK_STEPS, CHUNKED_DECODE_MIN_ROWS } from '../../../runtime/lm/chunked-decoder.js';
import { generate, generateInChunks, type GenerateOptions } from '../../../runtime/lm/generate.js';
import { openModelFolder } from '../../../runtime/lm/model-folder.js';
import { PretrainedLm } from '../../../runtime/lm/pretrained.js';
import { parsePlacements, summarize } from '../../../runtime/tensor/placement.js';
import type { ExecutionProvider } from '../../../runtime/tensor/session.js';
import { Rng } from '../../../shared/random.js';
import { HF_TINY } from '../../helpers/pretrained.js';
import { webgpuOrSkip } from '../../helpers/webgpu.js';

const load = (family: string, provider: ExecutionProvider = 'cpu') =>
  PretrainedLm.load(openModelFolder(path.join(HF_TINY, family)), { providers: [provider], ...(family === 'qwen2' ? { lora: { adapterDir: path.join(HF_TINY, 'qwen2-lora') } } : {}) });

/** `rows` prompts of 1 to 6 seeded ids below 400 (the fixtures' vocabulary): ragged, so rows are left-padded. */
function prompts(rows: number, seed: number): number[][] {
  const rng = new Rng(seed);
  return Array.from({ length: rows }, () => Array.from({ length: 1 + Math.floor(rng.uniform() * 6) }, () => Math.floor(rng.uniform() * 400)));
}

/** Stopping at a token the model writes often, so that rows end at different steps. */
const greedyOptions = (stopIds: number[]): GenerateOptions => ({ maxNewTokens: 11, greedy: true, stopIds, padId: 0 });

describe('chunked decoding', () => {
  for (const family of ['qwen2', 'llama', 'gpt2']) {
    it(`greedy in chunks writes the one-step loop's tokens (${family}, CPU provider)`, async () => {
      const lm = load(family);
      try {
        const decoder = await lm.decoder();
        const rows = prompts(9, 1);
        const oneStep = await generate(decoder, rows, greedyOptions([]));
        // A stop id some rows write, to end rows mid-chunk.
        const stop = oneStep[0]!.ids[2]!;
        const withStop = await generate(decoder, rows, greedyOptions([stop]));
        for (const steps of [1, 4, 16]) {
          for (const [options, expected] of [[greedyOptions([]), oneStep], [greedyOptions([stop]), withStop]] as const) {
            const chunked = await generateInChunks(decoder, rows, options, steps);
            assert.deepEqual(chunked.map((c) => c.ids), expected.map((c) => c.ids), `K = ${steps}`);
            assert.deepEqual(chunked.map((c) => c.finish), expected.map((c) => c.finish));
            chunked.forEach((c, r) => c.logProbs.forEach((lp, i) => assert.ok(Math.abs(lp - expected[r]!.logProbs[i]!) < 1e-4, `row ${r} token ${i}: ${lp} vs ${expected[r]!.logProbs[i]}`)));
          }
        }
        assert.ok(withStop.some((c) => c.finish === 'stop') && withStop.some((c) => c.finish === 'length'), 'some rows stop, some run to the end');
      } finally {
        await lm.release();
      }
    });
  }

  it('sampled first tokens follow softmax(logits / T) (chi-square over the likely tokens)', async () => {
    const lm = load('llama');
    try {
      const decoder = await lm.decoder();
      const prompt = [5, 17, 42];
      const T = 0.05; // sharp enough that a wrong temperature or an off-by-one token shows
      const { logits } = await decoder.prefill({ rows: 1, width: 3, ids: Int32Array.from(prompt), starts: new Int32Array(1) });
      const most = Math.max(...logits);
      const weights = Array.from(logits, (l) => Math.exp((l - most) / T));
      const total = weights.reduce((a, b) => a + b, 0);
      const p = weights.map((w) => w / total);
      const n = 4000;
      const counts = new Array<number>(p.length).fill(0);
      const drawn = await generateInChunks(decoder, Array.from({ length: n }, () => prompt), { maxNewTokens: 1, greedy: false, temperature: T, rng: new Rng(11), stopIds: [], padId: 0 }, 4);
      for (const c of drawn) counts[c.ids[0]!]!++;
      // Bins: each token expected at least 20 times, the rest pooled.
      const likely = p.map((q, k) => k).filter((k) => p[k]! * n >= 20);
      assert.ok(likely.length >= 3, `the distribution at T = ${T} has ${likely.length} likely tokens`);
      const bins = [...likely.map((k) => ({ observed: counts[k]!, expected: p[k]! * n }))];
      const restP = 1 - likely.reduce((a, k) => a + p[k]!, 0);
      const restCount = n - likely.reduce((a, k) => a + counts[k]!, 0);
      if (restP * n >= 5) bins.push({ observed: restCount, expected: restP * n });
      else assert.ok(restCount <= 10, `${restCount} draws of tokens expected ${(restP * n).toFixed(2)} times`);
      const chi2 = bins.reduce((a, b) => a + (b.observed - b.expected) ** 2 / b.expected, 0);
      const df = bins.length - 1;
      // Mean df, standard deviation sqrt(2 df): six deviations above is a failure, not chance.
      assert.ok(chi2 < df + 6 * Math.sqrt(2 * df), `chi-square ${chi2.toFixed(1)} over ${df} degrees of freedom`);
      const again = await generateInChunks(decoder, Array.from({ length: n }, () => prompt), { maxNewTokens: 1, greedy: false, temperature: T, rng: new Rng(11), stopIds: [], padId: 0 }, 4);
      assert.deepEqual(again, drawn, 'the same seed draws the same tokens');
    } finally {
      await lm.release();
    }
  });

  it("generate() on the CPU keeps the one-step loop at any batch (its results stay the CPU's, bit for bit)", async () => {
    const lm = load('gpt2');
    try {
      const decoder = await lm.decoder();
      await generate(decoder, prompts(CHUNKED_DECODE_MIN_ROWS * 2, 3), { maxNewTokens: 3, greedy: false, temperature: 1, rng: new Rng(1), stopIds: [], padId: 0 });
      assert.equal((decoder as unknown as { companions: Map<string, unknown> }).companions.size, 0, 'no chunked session was built');
    } finally {
      await lm.release();
    }
  });

  it('greedy on webgpu, in chunks from 8 rows, writes the CPU one-step tokens', async (t) => {
    const skip = await webgpuOrSkip();
    if (skip) return t.skip(skip);
    const rows = prompts(CHUNKED_DECODE_MIN_ROWS, 5);
    const options = { maxNewTokens: 20, greedy: true } as const;
    const cpu = load('qwen2');
    const gpu = load('qwen2', 'webgpu');
    try {
      const started = Date.now();
      const gpuDecoder = await gpu.decoder();
      const expected = await cpu.generate(rows, options);
      const got = await gpu.generate(rows, options);
      t.diagnostic(`webgpu: the one-step session and the chunked one (K = ${CHUNK_STEPS}) built and run in ${Date.now() - started} ms`);
      assert.equal((gpuDecoder as unknown as { companions: Map<string, unknown> }).companions.size, 1, 'generate() on webgpu decoded in chunks');
      assert.deepEqual(got.map((c) => c.ids), expected.map((c) => c.ids));
      got.forEach((c, r) => c.logProbs.forEach((lp, i) => assert.ok(Math.abs(lp - expected[r]!.logProbs[i]!) < 1e-3, `row ${r} token ${i}`)));
      // Sampling runs there too: tokens inside the vocabulary, each with its log-prob.
      const sampled = await gpu.generate(rows, { maxNewTokens: 5, greedy: false, temperature: 1, rng: new Rng(2) });
      for (const c of sampled) {
        assert.ok(c.ids.every((id) => Number.isInteger(id) && id >= 0 && id < 400));
        assert.ok(c.logProbs.every((lp) => Number.isFinite(lp) && lp <= 0));
      }
    } finally {
      await cpu.release();
      await gpu.release();
    }
  });
  it("leaves no node of the chunked session to the CPU on webgpu, nor more copies than the appended cache's", async (t) => {
    const skip = await webgpuOrSkip();
    if (skip) return t.skip(skip);
    // A child process per session: onnxruntime writes its placement log to stderr from native code.
    const module = (file: string) => JSON.stringify(new URL(file, import.meta.url).href);
    const placement = (cache: string, mode: string) => {
      const script = `
        const { ChunkedDecoder } = await import(${module('../../../runtime/lm/chunked-decoder.js')});
        const { openModelFolder } = await import(${module('../../../runtime/lm/model-folder.js')});
        const { PretrainedLm } = await import(${module('../../../runtime/lm/pretrained.js')});
        const lm = PretrainedLm.load(openModelFolder(${JSON.stringify(path.join(HF_TINY, 'qwen2'))}), { providers: ['webgpu'], lora: { adapterDir: ${JSON.stringify(path.join(HF_TINY, 'qwen2-lora'))} } });
        const decoder = await lm.decoder();
        // The session generate() builds (the base baked, the adapters fed), with the cache laid out as asked.
        await decoder.companion('placement', (options) => ChunkedDecoder.create(decoder.config, { ...options, cache: '${cache}' }, 4, '${mode}'));
        await lm.release();`;
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 180_000, maxBuffer: 64 << 20, env: { ...process.env, RLX_ORT_PLACEMENT: '1' } });
      assert.equal(run.status, 0, run.stderr.slice(-2000));
      const found = parsePlacements(run.stderr).map(summarize);
      return found[found.length - 1]!;
    };
    for (const mode of ['greedy', 'sample']) {
      const fixed = placement('fixed', mode);
      const appended = placement('appended', mode);
      // The positions are int64 (the model's interface), which WebGPU has few kernels for: the
      // appended cache's Slices of them run on the CPU (as shape nodes), and the fixed cache's
      // Gathers of the later steps' positions too, fused by onnxruntime into one Split. Any
      // other op on the CPU (the cache's Gather, Where, Greater) would be a new fallback.
      assert.deepEqual(fixed.fallbacks.filter((n) => !(n.op === 'Split' && n.name.includes('GatherSliceToSplitFusion'))).map((n) => n.op), [], `${mode}: no op without a WebGPU kernel`);
      assert.ok(fixed.onDevice > 100, `${mode}: ${fixed.onDevice} nodes on the GPU`);
      assert.ok(fixed.copies <= appended.copies, `${mode}: ${fixed.copies} host<->GPU copies a run, the appended cache ${appended.copies}`);
    }
  });
});
