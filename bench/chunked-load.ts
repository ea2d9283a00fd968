// npm run bench -- chunked-load: how long the chunked decoder's session (lm/chunked-decoder.ts)
// takes to build, and one chunk's run time, for a Qwen2-shaped model at reduced width (64, 4
// heads, 2 key/value heads, vocabulary 1000; seeded random weights baked as generate() bakes a
// frozen base) at 12 and 24 layers, K = 8, on the CPU provider: per graph optimisation level.
// Session set-up is host work (graph partitioning, shape inference, optimisers): it is about the
// same on any provider, so the CPU shows it. BENCH_CHUNKED_LAYERS=2,12 picks the depths,
// BENCH_CHUNKED_LEVELS=all,basic the levels.
import { parseLmConfig, type LmConfig } from '../hf/config.js';
import { ChunkedDecoder, type ChunkCache } from '../runtime/lm/chunked-decoder.js';
import { weightSpecs } from '../hf/weights.js';
import { WeightStore } from '../runtime/tensor/index.js';
import { Rng } from '../shared/random.js';
import { QWEN_05B } from './pretrained.js';

type Level = 'disabled' | 'basic' | 'extended' | 'all';
const STEPS = 8;
const BATCH = 8;
const PROMPT = 16;
const NEW_TOKENS = 32;

function config(layers: number): LmConfig {
  return parseLmConfig({ ...QWEN_05B, vocab_size: 1000, hidden_size: 64, num_hidden_layers: layers, num_attention_heads: 4, num_key_value_heads: 2, intermediate_size: 128 }, 'bench config');
}

function randomWeights(c: LmConfig): WeightStore {
  const rng = new Rng(7);
  const store = new WeightStore();
  for (const spec of weightSpecs(c)) {
    store.add(spec.name, spec.shape, (n) => Float32Array.from({ length: n }, () => (spec.role === 'norm' ? 1 : spec.role === 'bias' ? 0 : (rng.uniform() - 0.5) * 0.07)));
  }
  return store;
}

/** Seconds to build the session, and ms per chunk of a generate-style run (the prompt's chunk, then chunks to NEW_TOKENS; the fastest of 8 runs after one). */
export async function measureChunkedLoad(layers: number, cache: ChunkCache, level: Level): Promise<{ buildS: number; chunkMs: number }> {
  const c = config(layers);
  const base = randomWeights(c);
  const started = performance.now();
  const decoder = await ChunkedDecoder.create(c, { weights: new WeightStore(), frozen: base, graphOptimizationLevel: level, cache }, STEPS, 'greedy');
  const buildS = (performance.now() - started) / 1000;
  const rng = new Rng(3);
  const prompt = Int32Array.from({ length: BATCH * PROMPT }, () => Math.floor(rng.uniform() * c.vocab));
  try {
    const run = async () => {
      const state = decoder.begin(new Int32Array(BATCH));
      let input = prompt;
      let width = PROMPT;
      for (let made = 0; made < NEW_TOKENS; made += STEPS) {
        const chunk = await decoder.feed(state, input, width, { mode: 'greedy' });
        input = Int32Array.from({ length: BATCH }, (_, r) => chunk.tokens[r * STEPS + STEPS - 1]!);
        width = 1;
      }
    };
    await run();
    // The fastest of 8 runs: on a shared host the mean says more about the neighbours.
    let fastest = Infinity;
    for (let i = 0; i < 8; i++) {
      const t0 = performance.now();
      await run();
      fastest = Math.min(fastest, performance.now() - t0);
    }
    return { buildS, chunkMs: fastest / (NEW_TOKENS / STEPS) };
  } finally {
    await decoder.release();
  }
}

export async function benchChunkedLoad(): Promise<void> {
  const layers = (process.env.BENCH_CHUNKED_LAYERS ?? '12,24').split(',').map(Number);
  const levels = (process.env.BENCH_CHUNKED_LEVELS ?? 'all,disabled').split(',') as Level[];
  const caches = (process.env.BENCH_CHUNKED_CACHES ?? 'appended,fixed').split(',') as ChunkCache[];
  console.log(`\n  chunked decoder session build, K = ${STEPS}, Qwen2 shape at width 64, CPU provider (1 thread); a run: batch ${BATCH}, prompt ${PROMPT}, ${NEW_TOKENS} new tokens`);
  console.log('  (appended: the cache grown by a Concat per step; fixed: a cache of fixed capacity written in place)');
  console.log('  layers  cache     optimisation   built in s   ms a chunk');
  for (const l of layers) {
    for (const cache of caches) {
      for (const level of levels) {
        const { buildS, chunkMs } = await measureChunkedLoad(l, cache, level);
        console.log(`  ${String(l).padStart(6)}  ${cache.padEnd(9)} ${level.padEnd(12)} ${buildS.toFixed(1).padStart(11)} ${chunkMs.toFixed(1).padStart(12)}`);
      }
    }
  }
}
