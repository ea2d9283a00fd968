// A pretrained language model at a realistic shape, Qwen2.5-0.5B's (24 layers x 896, 14 heads,
// 2 key/value heads of 64, a 4864-wide SwiGLU MLP, q/k/v biases, RMSNorm, rope theta 1e6, tied
// embeddings) with a 32k vocabulary and seeded random weights, built as rlx builds a downloaded
// one: an LmConfig from parseLmConfig and a WeightStore laid out by weightSpecs. Three cases, each
// beside a plain-PyTorch model of the same shapes (bench/peers/llama_block.py, eager, the same
// threads), interleaved run by run (torch, rlx, torch, rlx), medians printed with their ratio:
//
// 1. sampling with the key/value cache: batch 8, a 16-token prompt, 64 new tokens (greedy);
// 2. a LoRA training step: rank 16 on q, k, v, o; batch 4 x 128 tokens; forward, backward, Adam;
// 3. a full fine-tuning step, same batch (weights, gradients and Adam's moments: ~8 GB in float32).
//
// Beside each, the floor: the linear layers' matrix products alone (lm-floor.ts). The issue's
// targets (#29): sampling and LoRA at least PyTorch's tokens/s, full fine-tuning at least 0.8x.
// Figures only, never asserted. Without python3 and torch the peer is skipped, and said so.
// PyTorch must run on OpenBLAS, not the reference BLAS Debian's torch gets by default (bench/peers/README.md).
// RLX_BENCH_THREADS sets the threads of both (default 2); RLX_BENCH_CASES picks cases (sample,lora,full).
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseLmConfig, type LmConfig } from '../hf/config.js';
import { LmDecoder } from '../runtime/lm/decoder.js';
import { weightSpecs } from '../hf/weights.js';
import { Rng } from '../shared/random.js';
import { WeightStore } from '../runtime/tensor/index.js';
import { seededRandom } from '../test/helpers/random.js';
import { lmLinearFloor } from './lm-floor.js';
import { BENCH_LORA, lmTrainingStep } from './lm-training-step.js';
import { median, report } from './stats.js';

const PEERS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bench/peers');
const THREADS = Number(process.env.RLX_BENCH_THREADS ?? 2);

/** Qwen2.5-0.5B's config.json (vocabulary 151,936): the shape issue 33's GPU targets name. */
export const QWEN_05B = {
  model_type: 'qwen2',
  vocab_size: 151_936,
  hidden_size: 896,
  num_hidden_layers: 24,
  num_attention_heads: 14,
  num_key_value_heads: 2,
  intermediate_size: 4864,
  max_position_embeddings: 32_768,
  rms_norm_eps: 1e-6,
  rope_theta: 1_000_000,
  tie_word_embeddings: true,
  torch_dtype: 'float32',
};
/** The same, with a 32k vocabulary (this bench's CPU cases). */
const QWEN_05B_SHAPE = { ...QWEN_05B, vocab_size: 32_000 };

const SAMPLE = { batch: 8, prompt: 16, newTokens: 64, runs: 3 };
const TRAIN = { batch: 4, width: 128 };

type CaseName = 'sample' | 'lora' | 'full';
interface Case {
  readonly name: CaseName;
  readonly title: string;
  readonly runs: number;
  /** Tokens one run processes (sampling: the new tokens; training: every position of the batch). */
  readonly tokens: number;
  /** Builds rlx's run; returns it and its release. */
  build(): Promise<{ run: () => Promise<void>; release: () => Promise<void>; parts?: () => [string, string][] }>;
}

export async function benchPretrained(): Promise<void> {
  const config = parseLmConfig(QWEN_05B_SHAPE, 'bench config');
  const params = weightSpecs(config).reduce((n, s) => n + s.shape.reduce((a, b) => a * b, 1), 0);
  console.log(`\npretrained: Qwen2.5-0.5B's shape, vocabulary ${config.vocab}: ${(params / 1e6).toFixed(0)}M parameters, ${THREADS} threads; ${Math.round(os.freemem() / 2 ** 20)} MiB free`);
  const base = randomWeights(config);
  const python = torchPython();
  if (typeof python !== 'string') console.log(`  PyTorch peer skipped: ${python.missing}`);
  const wanted = (process.env.RLX_BENCH_CASES ?? 'sample,lora,full').split(',');
  const cases: Case[] = [
    { name: 'sample', title: `sampling, KV cache (batch ${SAMPLE.batch}, prompt ${SAMPLE.prompt}, ${SAMPLE.newTokens} new tokens)`, runs: SAMPLE.runs, tokens: SAMPLE.batch * SAMPLE.newTokens, build: () => sampler(config, base) },
    { name: 'lora', title: `LoRA step (rank ${BENCH_LORA.rank} on q,k,v,o; batch ${TRAIN.batch} x ${TRAIN.width})`, runs: 3, tokens: TRAIN.batch * TRAIN.width, build: () => trainingStep(config, base, true) },
    { name: 'full', title: `full fine-tuning step (batch ${TRAIN.batch} x ${TRAIN.width})`, runs: 2, tokens: TRAIN.batch * TRAIN.width, build: () => trainingStep(config, base, false) },
  ];
  for (const c of cases.filter((c) => wanted.includes(c.name))) {
    const rows: [string, string][] = [];
    const peer = typeof python === 'string' ? await TorchPeer.start(python, c.name, config).catch((e: Error) => (rows.push(['PyTorch', `failed: ${e.message.split('\n').slice(-3).join(' ')}`]), null)) : null;
    const ours = await c.build();
    await ours.run(); // warm-up (the peer warmed up before saying ready)
    const [rlxMs, torchMs]: number[][] = [[], []];
    for (let i = 0; i < c.runs; i++) {
      if (peer) torchMs.push(await peer.runOnce());
      const start = performance.now();
      await ours.run();
      rlxMs.push(performance.now() - start);
    }
    await ours.release();
    await peer?.stop();
    const floorMs = await floor(config, c.name);
    const rate = (ms: number) => `${((c.tokens * 1000) / ms).toFixed(1)} tokens/s (${(ms / 1000).toFixed(2)} s per run; runs ${rlxMs.length})`;
    rows.unshift(['rlx', rate(median(rlxMs))]);
    if (peer) {
      rows.push(['PyTorch eager', rate(median(torchMs))]);
      rows.push(['rlx / PyTorch (tokens/s)', `${(median(torchMs) / median(rlxMs)).toFixed(2)}x`]);
    }
    rows.push(['floor: linear products alone', `${((c.tokens * 1000) / floorMs).toFixed(1)} tokens/s (${(floorMs / 1000).toFixed(2)} s)`]);
    rows.push(['rlx / floor (time)', `${(median(rlxMs) / floorMs).toFixed(2)}x`]);
    rows.push(...(ours.parts?.() ?? []));
    report(`pretrained: ${c.title}`, rows);
  }
}

/** Every weight of the model, seeded: norms at 1, biases at 0, the rest normal(0, 0.02) as transformers initialises them. */
function randomWeights(c: LmConfig): WeightStore {
  const store = new WeightStore();
  const random = seededRandom(29);
  // A cheap approximate normal (sum of uniforms): 0.5B draws of Box-Muller would take long.
  const gaussian = () => (random() + random() + random() + random() - 2) * Math.sqrt(3);
  for (const spec of weightSpecs(c)) {
    const fill = spec.role === 'norm' ? () => 1 : spec.role === 'bias' || spec.role === 'normBias' ? () => 0 : () => 0.02 * gaussian();
    store.add(spec.name, spec.shape, (n) => {
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = fill();
      return out;
    });
  }
  return store;
}

/** Greedy sampling with the cache: the prompt at once, then one token per row per step. */
async function sampler(c: LmConfig, weights: WeightStore) {
  const decoder = await LmDecoder.create(c, { weights, threads: THREADS });
  const { batch, prompt, newTokens } = SAMPLE;
  const random = seededRandom(3);
  const prompts = { rows: batch, width: prompt, ids: Int32Array.from({ length: batch * prompt }, () => Math.floor(random() * c.vocab)), starts: new Int32Array(batch) };
  const next = new Int32Array(batch);
  const argmaxRows = (logits: Float32Array) => {
    for (let r = 0; r < batch; r++) {
      let best = 0;
      for (let v = 1; v < c.vocab; v++) if (logits[r * c.vocab + v]! > logits[r * c.vocab + best]!) best = v;
      next[r] = best;
    }
  };
  return {
    async run() {
      let { state, logits } = await decoder.prefill(prompts);
      for (let i = 1; i < newTokens; i++) {
        argmaxRows(logits);
        logits = await decoder.feed(state, next, 1);
      }
      argmaxRows(logits);
    },
    release: () => decoder.release(),
  };
}

/** One Adam step on the mean next-token cross-entropy of a batch, on LoRA adapters (base fed, frozen) or on every weight. */
async function trainingStep(c: LmConfig, base: WeightStore, lora: boolean) {
  const { step, adam, feeds } = await lmTrainingStep(c, base, {
    ...TRAIN,
    lora,
    compute: { providers: ['cpu'], threads: false, opThreads: THREADS },
    random: { adapterA: new Rng(5), adapterB: seededRandom(6), tokens: seededRandom(7) },
  });
  // Where a step's time goes: the graph (forward and backward, with the gradients' copies out)
  // against Adam on the host, each a median over the timed runs (the warm-up left out).
  const [graphMs, adamMs]: number[][] = [[], []];
  return {
    async run() {
      const start = performance.now();
      const out = await step.run(feeds);
      const ran = performance.now();
      adam.step(out.grads);
      graphMs.push(ran - start);
      adamMs.push(performance.now() - ran);
    },
    release: () => step.release(),
    parts: (): [string, string][] => [
      ['rlx part: forward + backward', `${(median(graphMs.slice(1)) / 1000).toFixed(2)} s`],
      ['rlx part: Adam', `${(median(adamMs.slice(1)) / 1000).toFixed(2)} s`],
    ],
  };
}

/** Median milliseconds of the case's linear products alone (3 runs after one). */
async function floor(c: LmConfig, name: CaseName): Promise<number> {
  const session = await lmLinearFloor(c, name, THREADS);
  const once = async () => {
    const start = performance.now();
    if (name === 'sample') {
      await session.run(SAMPLE.batch * SAMPLE.prompt);
      for (let i = 1; i < SAMPLE.newTokens; i++) await session.run(SAMPLE.batch);
    } else await session.run(TRAIN.batch * TRAIN.width);
    return performance.now() - start;
  };
  await once();
  const ms = [await once(), await once(), await once()];
  await session.release();
  return median(ms);
}

/** The python3 that imports torch (PEER_PY, else python3, else Debian's /usr/bin/python3: pyenv's may shadow it), or why none. */
export function torchPython(): string | { missing: string } {
  const candidates = process.env.PEER_PY ? [process.env.PEER_PY] : ['python3', '/usr/bin/python3'];
  const problems: string[] = [];
  for (const candidate of candidates) {
    const probe = spawnSync(candidate, ['-c', 'import torch'], { encoding: 'utf8' });
    if (!probe.error && probe.status === 0) return candidate;
    problems.push(probe.error ? `${candidate} not found` : `${candidate}: ${probe.stderr.trim().split('\n').pop()}`);
  }
  return { missing: `no python3 here imports torch (${problems.join('; ')}); install Debian's python3-torch python3-numpy (bench/peers/README.md)` };
}

/** bench/peers/llama_block.py running one case: it builds the model and warms up, then runs once per request. */
export class TorchPeer {
  private pending = '';
  private waiting: ((line: string) => void) | null = null;
  private readonly lines: string[] = [];
  private stderr = '';

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (this.pending + chunk).split('\n');
      this.pending = lines.pop()!;
      this.lines.push(...lines);
      this.deliver();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-4000)));
    child.on('close', (code) => {
      this.lines.push(`exit ${code}`);
      this.deliver();
    });
  }

  static async start(python: string, name: CaseName, c: LmConfig): Promise<TorchPeer> {
    const isTraining = name !== 'sample';
    const args = [name, THREADS, 1, c.layers, c.width, c.heads, c.kvHeads, c.headDim, c.mlpWidth, c.vocab, isTraining ? TRAIN.batch : SAMPLE.batch, isTraining ? TRAIN.width : SAMPLE.prompt, SAMPLE.newTokens].map(String);
    return (await TorchPeer.startWith(python, args)).peer;
  }

  /** llama_block.py with these arguments (its usage line); `device` is the one its ready line names (cpu without one). */
  static async startWith(python: string, args: readonly string[]): Promise<{ peer: TorchPeer; device: string }> {
    const peer = new TorchPeer(spawn(python, ['llama_block.py', ...args], { cwd: PEERS, env: { ...process.env, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' } }));
    const ready = JSON.parse(await peer.expect('ready')) as { device?: string };
    return { peer, device: ready.device ?? 'cpu' };
  }

  async runOnce(): Promise<number> {
    this.child.stdin.write('run\n');
    return (JSON.parse(await this.expect('ms')) as { ms: number }).ms;
  }

  async stop(): Promise<void> {
    this.child.stdin.end();
    await new Promise<void>((resolve) => (this.child.exitCode !== null ? resolve() : this.child.once('close', () => resolve())));
  }

  private async expect(key: string): Promise<string> {
    const line = await new Promise<string>((resolve) => {
      this.waiting = resolve;
      this.deliver();
    });
    if (!line.startsWith(`{"${key}"`)) throw new Error(`llama_block.py: expected ${key}, got '${line}'\n${this.stderr}`);
    return line;
  }

  private deliver(): void {
    if (this.waiting && this.lines.length > 0) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve(this.lines.shift()!);
    }
  }
}
