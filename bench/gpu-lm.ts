// npm run bench -- gpu, its pretrained-model rows: a Qwen2.5-0.5B-shaped model (24 x 896, 14 heads,
// 2 key/value heads, a 4864-wide SwiGLU MLP, vocabulary 151936; seeded random weights, built as rlx
// builds a downloaded one) on webgpu, beside PyTorch eager fp32 (bench/peers/llama_block.py, on CUDA
// where torch has it) in the same run:
//
// - lora: a LoRA training step (rank 16 on q, k, v, o) at batch 8 x 256: forward, backward, Adam on
//   the adapters; the frozen base is baked into the session (GradientParts' `fed`), so only the
//   adapters cross per step; then the step under onnxruntime's profiler (gpu-profile.ts), fp32 and
//   fp16: kernel time by op type and by model part;
// - sampling: batch 64, a 16-token prompt and 32 new tokens (greedy) with the key/value cache, on
//   webgpu one token per session run (the cache crosses both ways every token), on webgpu K tokens
//   per run (lm/chunked-decoder.ts, what generate() uses on a GPU from 8 rows: the cache crosses
//   once per chunk; with its cache of fixed capacity, then with the cache grown by a Concat per
//   step that it replaced, whose session takes far longer to build), on the CPU (all cores) and
//   in PyTorch's generate-style loop with a cache. Each rlx row says how long its session took
//   to build; the chunked ones, their time per chunk. K is 8, 16 and 32 (32: the whole decode in
//   one run), in fp32 and fp16; at K = 8 only, what the chunked decoder replaced: the primitives'
//   RMSNorm and rotation (`unfused`) and the appended cache;
// - decode profile: the chunked decode at K = 8 under onnxruntime's profiler (gpu-profile.ts), fp32,
//   fp16 and unfused: kernel time per chunk by op type, and how much of each run the kernels
//   leave to copies and launches.
//
// BENCH_GPU_QUICK=1 shrinks the model to 2 x 64 (for a software adapter, where it checks that the
// rows run).
import * as os from 'node:os';
import { parseLmConfig, type LmConfig } from '../hf/config.js';
import { ChunkedDecoder, type ChunkedDecoderOptions } from '../runtime/lm/chunked-decoder.js';
import { LmDecoder } from '../runtime/lm/decoder.js';
import { weightSpecs } from '../hf/weights.js';
import { Rng } from '../shared/random.js';
import { WeightStore, type Precision } from '../runtime/tensor/index.js';
import type { ExecutionProvider } from '../runtime/tensor/session.js';
import { QWEN_05B, TorchPeer } from './pretrained.js';
import { type StepCost, formatCost, measure } from './gpu-measure.js';
import { BENCH_LORA, lmTrainingStep } from './lm-training-step.js';
import { PROFILE_WARMUPS, PROFILED_STEPS, profileLines, profileStep } from './gpu-profile.js';

/** The same architecture, small enough for lavapipe. */
const QWEN_TINY = { ...QWEN_05B, vocab_size: 1000, hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, intermediate_size: 128 };

/** A sampling row's batch, prompt length and new tokens. */
interface SampleShape {
  readonly batch: number;
  readonly prompt: number;
  readonly newTokens: number;
}

export interface LmRowsOptions {
  readonly quick: boolean;
  readonly webgpu: boolean;
  /** The python3 that imports torch, or why there is none. */
  readonly python: string | { missing: string };
  readonly seconds: number;
  /** webgpu runs on a software adapter (lavapipe): its figures say nothing of a GPU's. */
  readonly software: boolean;
}

function shapes(quick: boolean) {
  return {
    config: parseLmConfig(quick ? QWEN_TINY : QWEN_05B, 'bench config'),
    train: quick ? { batch: 2, width: 16 } : { batch: 8, width: 256 },
    sample: quick ? { batch: 4, prompt: 4, newTokens: 8 } : { batch: 64, prompt: 16, newTokens: 32 },
    /**
     * Decode steps per run of the chunked rows (each divides newTokens: no step wasted; at 32 the
     * whole decode is one run). The appended cache's row (the layout before the fixed cache) only
     * at the first: its session would take minutes to build at 16 (chunked-cache.ts).
     */
    chunkSteps: quick ? [8, 4] : [8, 16, 32],
  };
}

/** Every weight, seeded: norms at 1, biases at 0, the rest uniform with the 0.02 standard deviation transformers initialises with (a cheap generator: 494M values). */
function randomWeights(c: LmConfig): WeightStore {
  const store = new WeightStore();
  let state = 0x9e3779b9;
  const scale = 0.02 * Math.sqrt(3) * 2 ** -31;
  for (const spec of weightSpecs(c)) {
    store.add(spec.name, spec.shape, (n) => {
      const out = new Float32Array(n);
      if (spec.role === 'norm') out.fill(1);
      else if (spec.role === 'linear' || spec.role === 'embedding') {
        for (let i = 0; i < n; i++) {
          state ^= state << 13;
          state ^= state >>> 17;
          state ^= state << 5;
          out[i] = state * scale; // state is a signed 32-bit integer: uniform in [-0.02 sqrt 3, 0.02 sqrt 3)
        }
      }
      return out;
    });
  }
  return store;
}

const parameters = (c: LmConfig) => weightSpecs(c).reduce((n, s) => n + s.shape.reduce((a, b) => a * b, 1), 0);

/** The LoRA row: rlx on webgpu (base baked) and PyTorch with the same LoRA. */
export async function loraRow(options: LmRowsOptions, base = lmBenchBase(options.quick)): Promise<void> {
  const { config, train } = shapes(options.quick);
  const tokens = train.batch * train.width;
  console.log(`\n  LoRA training step (rank ${BENCH_LORA.rank} on q,k,v,o; Adam on the adapters), ${options.quick ? 'a 2 x 64 Qwen2-shaped model (quick)' : "Qwen2.5-0.5B's shape (24 x 896, vocabulary 151936)"}: ${(parameters(config) / 1e6).toFixed(options.quick ? 2 : 0)}M frozen parameters, batch ${train.batch} x ${train.width}`);
  console.log('  who                       tokens/s   step ms   kernel ms   optimiser ms   host->device MB   device->host MB');
  let rlx = NaN;
  let half = NaN;
  if (!options.webgpu) console.log('  rlx webgpu: -, webgpu does not start here');
  else {
    // fp32, then precision fp16 (docs/gpu.md#precision: float16 products, the base folded to float16 in the session).
    for (const precision of ['fp32', 'fp16'] as const) {
      const who = precision === 'fp32' ? 'rlx webgpu' : 'rlx webgpu fp16';
      try {
        const cost = await loraStep(config, base, train, 'webgpu', options.seconds, precision);
        if (precision === 'fp32') rlx = cost.perSecond * tokens;
        else half = cost.perSecond * tokens;
        console.log(`  ${who.padEnd(22)} ${formatCost(cost, tokens)}`);
      } catch (e) {
        console.log(`  ${who}: failed: ${oneLine(e)}`);
      }
    }
  }
  const torch = await torchRate(options, ['lora', '1', '1', ...llamaArgs(config), String(train.batch), String(train.width), '1'], options.seconds);
  if (typeof torch === 'string') console.log(`  PyTorch: ${torch}`);
  else {
    const rate = torch.perSecond * tokens;
    console.log(`  ${`PyTorch (${torch.device})`.padEnd(22)} ${cellOf(rate)} ${(1000 / torch.perSecond).toFixed(1).padStart(9)}`);
    console.log(`  rlx webgpu / PyTorch ${torch.device}: ${(rlx / rate).toFixed(3)}x; rlx webgpu fp16 / PyTorch: ${(half / rate).toFixed(3)}x`);
  }
  if (options.webgpu) await loraProfile(config, base, train, options.software);
}

/** Where the LoRA step's onnxruntime run spends its kernel time (onnxruntime's profiler, as the `profile` table): by op type and model part, fp32 and fp16, no optimiser. */
async function loraProfile(c: LmConfig, base: WeightStore, train: { batch: number; width: number }, software: boolean): Promise<void> {
  console.log(`\n  LoRA step profile (onnxruntime's profiler; ${PROFILE_WARMUPS} warm-up + ${PROFILED_STEPS} profiled steps, no optimiser; % kernel: of the kernels' summed time, % step: of the run's wall time)`);
  if (software) console.log('  webgpu runs on a software adapter here: these figures show what the profile holds, not where a GPU spends its time');
  for (const precision of ['fp32', 'fp16'] as const) {
    console.log(`\n  rlx webgpu ${precision}`);
    try {
      const create = async () => {
        const rng = new Rng(5);
        const { step, feeds, parts } = await lmTrainingStep(c, base, {
          ...train,
          lora: true,
          compute: { providers: ['webgpu'], threads: false, opThreads: os.availableParallelism(), precision },
          random: { adapterA: rng, adapterB: () => rng.uniform(), tokens: () => rng.uniform() },
        });
        return { run: () => step.run(feeds), release: () => step.release(), parts };
      };
      const { summaries, partOf } = await profileStep(create);
      for (const summary of summaries) for (const line of profileLines(summary, 'webgpu', partOf)) console.log(line);
    } catch (e) {
      console.log(`    failed: ${oneLine(e)}`);
    }
  }
}

/** The sampling row: greedy decoding with the cache on webgpu (base baked), on the CPU (all cores, base fed from the host's arrays), and PyTorch's loop. */
export async function samplingRow(options: LmRowsOptions, base = lmBenchBase(options.quick)): Promise<void> {
  const { config, sample } = shapes(options.quick);
  const tokens = sample.batch * sample.newTokens;
  const threads = os.availableParallelism();
  console.log(`\n  sampling with the key/value cache, greedy, batch ${sample.batch}, prompt ${sample.prompt}, ${sample.newTokens} new tokens (tokens/s counts new tokens), ${options.quick ? 'the 2 x 64 model (quick)' : "Qwen2.5-0.5B's shape"}`);
  console.log("  (the CPU's feeds are the host's arrays, not copies: its MB say what a GPU fed so would move)");
  console.log('  who                       tokens/s    run ms   kernel ms   optimiser ms   host->device MB   device->host MB');
  const rates: Record<string, number> = {};
  const providers: [ExecutionProvider, string][] = [['webgpu', 'rlx webgpu'], ['cpu', `rlx cpu (${threads} threads)`]];
  for (const [provider, who] of providers) {
    if (provider === 'webgpu' && !options.webgpu) {
      console.log('  rlx webgpu: -, webgpu does not start here');
      continue;
    }
    try {
      // The CPU at the full shape takes ~10 s or more a run: one run, after none to warm up.
      const runs = provider === 'cpu' && !options.quick ? { warmups: 0, minRuns: 1, seconds: 0 } : { warmups: 1, minRuns: 3, seconds: options.seconds };
      const { cost, createMs } = await sampling(config, base, sample, provider, threads, runs);
      rates[provider] = cost.perSecond * tokens;
      console.log(`  ${who.padEnd(22)} ${formatCost(cost, tokens)}  (session built in ${(createMs / 1000).toFixed(1)} s${runs.minRuns === 1 ? '; one run, no warm-up' : ''})`);
    } catch (e) {
      console.log(`  ${who}: failed: ${oneLine(e)}`);
    }
  }
  const torch = await torchRate(options, ['sample', String(threads), '1', ...llamaArgs(config), String(sample.batch), String(sample.prompt), String(sample.newTokens)], options.seconds);
  if (typeof torch === 'string') console.log(`  PyTorch: ${torch}`);
  else {
    const rate = torch.perSecond * tokens;
    rates.torch = rate;
    console.log(`  ${`PyTorch (${torch.device})`.padEnd(22)} ${cellOf(rate)} ${(1000 / torch.perSecond).toFixed(1).padStart(9)}`);
  }
  // Each K in fp32 and in fp16 (the rollouts of a LoRA run with precision fp16: float16 products,
  // the base baked as float16, the cache crossing as float16), as generate() decodes; then, at the
  // first K, what it replaced, in the same run: fp16 with its cache crossing as float32, the
  // primitives' RMSNorm and rotation instead of onnxruntime's fused kernels, and last the cache
  // grown by a Concat per step, whose session takes far longer to build (chunked-cache.ts). A run
  // cut short keeps what matters most.
  const chunkSteps = shapes(options.quick).chunkSteps;
  const runs = [
    ...chunkSteps.flatMap((steps) => CHUNK_VARIANTS.filter((v) => !v.firstKOnly).map((variant) => ({ steps, variant }))),
    ...CHUNK_VARIANTS.filter((v) => v.firstKOnly).map((variant) => ({ steps: chunkSteps[0]!, variant })),
  ];
  for (const { steps, variant } of options.webgpu ? runs : []) {
    const who = variant.label(steps);
    try {
      const { cost, createMs, modelBytes } = await chunkedSampling(config, base, sample, steps, variant.options, { warmups: 1, minRuns: 3, seconds: options.seconds });
      rates[chunkedKey(steps, variant.name)] = cost.perSecond * tokens;
      const chunks = Math.ceil(sample.newTokens / steps);
      console.log(`  ${who.padEnd(22)} ${formatCost(cost, tokens)}  (session built in ${(createMs / 1000).toFixed(1)} s; ${(cost.stepMs / chunks).toFixed(1)} ms a chunk; model ${(modelBytes / 1e6).toFixed(1)} MB)`);
    } catch (e) {
      console.log(`  ${who}: failed: ${oneLine(e)}`);
    }
  }
  const ratio = (a: string, b: string) => (rates[a] !== undefined && rates[b] !== undefined ? (rates[a]! / rates[b]!).toFixed(3) : '-');
  console.log(`  rlx webgpu / rlx cpu: ${ratio('webgpu', 'cpu')}x; rlx webgpu / PyTorch: ${ratio('webgpu', 'torch')}x`);
  for (const steps of chunkSteps) {
    const key = chunkedKey(steps, 'fp32');
    const half = chunkedKey(steps, 'fp16');
    const replaced = steps === chunkSteps[0] ? `; / unfused: ${ratio(key, chunkedKey(steps, 'unfused'))}x; / its appended cache: ${ratio(key, chunkedKey(steps, 'appended'))}x` : '';
    console.log(`  rlx webgpu, ${steps} per run / rlx cpu: ${ratio(key, 'cpu')}x; / rlx webgpu one per run: ${ratio(key, 'webgpu')}x; / PyTorch: ${ratio(key, 'torch')}x${replaced}`);
    const halfCache = steps === chunkSteps[0] ? `; / its float32 cache: ${ratio(half, chunkedKey(steps, 'fp16-float32-cache'))}x` : '';
    console.log(`  fp16, ${steps} per run / fp32: ${ratio(half, key)}x; / PyTorch: ${ratio(half, 'torch')}x${halfCache}`);
  }
  if (options.webgpu) await decodeProfile(config, base, sample, chunkSteps[0]!, options.software);
}

/**
 * Where a chunked decode's runs spend their time (onnxruntime's profiler, as the `profile` table):
 * kernel time by op type per chunk, fp32, fp16 and unfused, and what the kernels leave of each run
 * (copies of the cache each way, launches, waiting).
 */
async function decodeProfile(c: LmConfig, base: WeightStore, s: SampleShape, steps: number, software: boolean): Promise<void> {
  const chunks = Math.ceil(s.newTokens / steps);
  const runs = chunks === 1 ? "1 run: the prompt's chunk" : `${chunks} runs: the prompt's chunk, then ${chunks - 1} of one token`;
  console.log(`\n  decode profile: a chunked decode (${steps} per run, ${runs}) under onnxruntime's profiler, per run (${PROFILE_WARMUPS} decode to warm up, ${PROFILED_STEPS} profiled)`);
  if (software) console.log('  webgpu runs on a software adapter here: these figures show what the profile holds, not where a GPU spends its time');
  for (const variant of CHUNK_VARIANTS.filter((v) => v.name === 'fp32' || v.name === 'fp16' || v.name === 'unfused')) {
    console.log(`\n  ${variant.label(steps)}`);
    try {
      const create = async () => {
        const decoder = await ChunkedDecoder.create(c, { weights: new WeightStore(), frozen: base, providers: ['webgpu'], ...variant.options }, steps, 'greedy');
        const prompt = benchPrompt(c, s);
        return { run: () => decodeOnce(decoder, prompt, s, steps), release: () => decoder.release() };
      };
      const { summaries } = await profileStep(create, undefined, chunks);
      for (const summary of summaries) for (const line of profileLines(summary, 'webgpu', undefined, 'chunk')) console.log(line);
    } catch (e) {
      console.log(`    failed: ${oneLine(e)}`);
    }
  }
}

/** One LoRA step's cost on `provider`. */
async function loraStep(c: LmConfig, base: WeightStore, train: { batch: number; width: number }, provider: ExecutionProvider, seconds: number, precision: Precision = 'fp32'): Promise<StepCost> {
  // One stream for every draw, adapters first, then the tokens.
  const rng = new Rng(5);
  const { step, adam, feeds } = await lmTrainingStep(c, base, {
    ...train,
    lora: true,
    compute: { providers: [provider], threads: false, opThreads: os.availableParallelism(), precision },
    random: { adapterA: rng, adapterB: () => rng.uniform(), tokens: () => rng.uniform() },
  });
  try {
    return await measure(async (timeOptimiser) => {
      const out = await step.run(feeds);
      // fp16's gradients carry the loss scale: Adam divides it out (a skipped step costs the same to measure).
      timeOptimiser(() => adam.step(out.grads, undefined, out.gradScale !== undefined ? { gradScale: out.gradScale } : {}));
    }, { warmups: 1, minRuns: 3, seconds });
  } finally {
    await step.release();
  }
}

/** One decoding run's cost: the prompt at once, then one token per row per step, greedy; and how long its session took to build. */
async function sampling(c: LmConfig, base: WeightStore, s: SampleShape, provider: ExecutionProvider, threads: number, runs: { warmups: number; minRuns: number; seconds: number }): Promise<{ cost: StepCost; createMs: number }> {
  // On a GPU the base is baked (resident on the device); on the CPU a feed is the host's array itself.
  const started = performance.now();
  const decoder = await LmDecoder.create(c, provider === 'cpu' ? { weights: base, threads } : { weights: new WeightStore(), frozen: base, providers: [provider] });
  const createMs = performance.now() - started;
  const rng = new Rng(3);
  const prompts = { rows: s.batch, width: s.prompt, ids: Int32Array.from({ length: s.batch * s.prompt }, () => Math.floor(rng.uniform() * c.vocab)), starts: new Int32Array(s.batch) };
  const next = new Int32Array(s.batch);
  const argmaxRows = (logits: Float32Array) => {
    for (let r = 0; r < s.batch; r++) {
      let best = 0;
      const row = r * c.vocab;
      for (let v = 1; v < c.vocab; v++) if (logits[row + v]! > logits[row + best]!) best = v;
      next[r] = best;
    }
  };
  try {
    const cost = await measure(async () => {
      let { state, logits } = await decoder.prefill(prompts);
      for (let i = 1; i < s.newTokens; i++) {
        argmaxRows(logits);
        logits = await decoder.feed(state, next, 1);
      }
      argmaxRows(logits);
    }, runs);
    return { cost, createMs };
  } finally {
    await decoder.release();
  }
}

/** A chunked decoder the sampling table times: what it changes of generate()'s (ChunkedDecoderOptions), and whether only at the first K. */
interface ChunkVariant {
  readonly name: string;
  readonly label: (k: number) => string;
  readonly options: Pick<ChunkedDecoderOptions, 'cache' | 'precision' | 'fusedOps' | 'cacheType'>;
  readonly firstKOnly?: boolean;
}

const CHUNK_VARIANTS: readonly ChunkVariant[] = [
  { name: 'fp32', label: (k) => `rlx webgpu, ${k} per run`, options: {} },
  { name: 'fp16', label: (k) => `fp16, ${k} per run`, options: { precision: 'fp16' } },
  { name: 'fp16-float32-cache', label: (k) => `fp16, ${k}, float32 cache`, options: { precision: 'fp16', cacheType: 'float32' }, firstKOnly: true },
  { name: 'unfused', label: (k) => `${k} per run, unfused`, options: { fusedOps: false }, firstKOnly: true },
  { name: 'appended', label: (k) => `${k} per run, appended`, options: { cache: 'appended', fusedOps: false }, firstKOnly: true },
];

/** A chunked row's key in samplingRow's rates. */
const chunkedKey = (steps: number, variant: string) => `chunked${steps}${variant}`;

/**
 * The same decoding, greedy, `steps` tokens per session run (the base baked) as `variant` changes
 * it; how long its session took to build, and its model's bytes (fp16 bakes the product weights
 * as float16).
 */
async function chunkedSampling(c: LmConfig, base: WeightStore, s: SampleShape, steps: number, variant: ChunkVariant['options'], runs: { warmups: number; minRuns: number; seconds: number }): Promise<{ cost: StepCost; createMs: number; modelBytes: number }> {
  const started = performance.now();
  const decoder = await ChunkedDecoder.create(c, { weights: new WeightStore(), frozen: base, providers: ['webgpu'], ...variant }, steps, 'greedy');
  const createMs = performance.now() - started;
  const prompt = benchPrompt(c, s);
  try {
    const cost = await measure(() => decodeOnce(decoder, prompt, s, steps), runs);
    return { cost, createMs, modelBytes: decoder.modelBytes };
  } finally {
    await decoder.release();
  }
}

/** The sampling rows' prompts: [batch, prompt] seeded random tokens. */
function benchPrompt(c: LmConfig, s: SampleShape): Int32Array {
  const rng = new Rng(3);
  return Int32Array.from({ length: s.batch * s.prompt }, () => Math.floor(rng.uniform() * c.vocab));
}

/** One greedy decode of `s.newTokens` tokens after `prompt`, `steps` per run. */
async function decodeOnce(decoder: ChunkedDecoder, prompt: Int32Array, s: SampleShape, steps: number): Promise<void> {
  const state = decoder.begin(new Int32Array(s.batch));
  let input = prompt;
  let width = s.prompt;
  for (let made = 0; made < s.newTokens; made += steps) {
    const chunk = await decoder.feed(state, input, width, { mode: 'greedy' });
    input = Int32Array.from({ length: s.batch }, (_, r) => chunk.tokens[r * steps + steps - 1]!);
    width = 1;
  }
}

const llamaArgs = (c: LmConfig) => [c.layers, c.width, c.heads, c.kvHeads, c.headDim, c.mlpWidth, c.vocab].map(String);

/** llama_block.py's runs per second over about `seconds` (at least 3, after its warm-up), on CUDA where torch has it; or why it did not run. */
async function torchRate(options: LmRowsOptions, args: readonly string[], seconds: number): Promise<{ perSecond: number; device: string } | string> {
  if (typeof options.python !== 'string') return `-, ${options.python.missing}`;
  let started: { peer: TorchPeer; device: string };
  try {
    started = await TorchPeer.startWith(options.python, [...args, 'auto']);
  } catch (e) {
    return `failed: ${oneLine(e)}`;
  }
  const { peer, device } = started;
  try {
    let total = 0;
    let n = 0;
    while (total < seconds * 1000 || n < 3) {
      total += await peer.runOnce();
      n++;
    }
    return { perSecond: (n * 1000) / total, device: device === 'cuda' ? 'cuda' : `${device}, no CUDA` };
  } catch (e) {
    return `failed: ${oneLine(e)}`;
  } finally {
    await peer.stop();
  }
}

function cellOf(x: number): string {
  return (Number.isNaN(x) ? '-' : x >= 1e4 ? Math.round(x).toLocaleString('en') : x.toFixed(1)).padStart(10);
}

function oneLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n').filter((l) => l.trim()).slice(-3).join(' ').slice(0, 400);
}

/** The rows' frozen base: random weights at the Qwen shape (the 2 x 64 one when quick). */
export function lmBenchBase(quick: boolean): WeightStore {
  return randomWeights(shapes(quick).config);
}
