// npm run bench -- lm-scale: pretrained models at the batch sizes papers use (issue 41's targets).
// A model folder of Qwen2.5-0.5B's shape (and 1.5B's) with random bf16 weights is written once to
// the temporary folder (lm-scale-folder.ts); each phase of an update then runs in its own process
// (lm-scale-phase.ts) for its peak resident memory, beside the estimate `rlx check --memory`
// prints (lm/memory.ts) for the same shape:
//
//   grpo-0.5b   GRPO + LoRA, 16 prompts x 8 completions, 256 new tokens (target: peak <= 8 GiB)
//   sft-0.5b    SFT + LoRA, batch 64 of the same length
//   full-0.5b   GRPO's step with every weight trained (gradients and Adam's moments of 494M)
//   grpo-1.5b   GRPO + LoRA, 8 x 4 x 256 on Qwen2.5-1.5B's shape (target: <= 16 GiB)
//   long-0.5b   GRPO + LoRA, 2 x 4 completions of 4096 tokens
//
// Sampling runs every row to the end; the passes and the step run their first micro-batches (a
// phase's peak is one micro-batch's) and their time is multiplied out to the update's rows. On
// 2 cores a whole update at the first shape takes most of an hour: the extrapolated figure says
// how long. Figures only, never asserted. RLX_LM_SCALE_SHAPES picks shapes (comma-separated),
// RLX_LM_SCALE_QUICK=1 shrinks every shape (rows / 8, tokens / 4) for a quick look.
import { spawn } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseLmConfig } from '../hf/config.js';
import { estimateMemory, fittedShape, formatBytes, type MemoryShape } from '../hf/memory.js';
import { loraAdapters } from '../hf/lora.js';
import { parameterCount } from '../hf/config.js';
import { QWEN25_05B, QWEN25_15B, scaleModelFolder } from './lm-scale-folder.js';
import type { PhaseRequest, PhaseResult } from './lm-scale-phase.js';
import { report } from './stats.js';
import { TorchPeer, torchPython } from './pretrained.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const THREADS = Number(process.env.RLX_BENCH_THREADS ?? 2);
const QUICK = process.env.RLX_LM_SCALE_QUICK === '1';
const GIB = 2 ** 30;

interface Shape {
  readonly name: string;
  readonly title: string;
  readonly config: Record<string, unknown>;
  readonly learner: 'GRPO' | 'SFT';
  readonly lora: boolean;
  readonly rows: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly phases: readonly PhaseRequest['phase'][];
  /** The peak this shape must stay under, where the issue names one. */
  readonly target?: number;
}

const SHAPES: Shape[] = [
  { name: 'grpo-0.5b', title: 'GRPO + LoRA, 16 x 8 completions of 256 tokens, Qwen2.5-0.5B shape', config: QWEN25_05B, learner: 'GRPO', lora: true, rows: 128, promptTokens: 128, completionTokens: 256, phases: ['load', 'sample', 'passes', 'step'], target: 8 * GIB },
  { name: 'sft-0.5b', title: 'SFT + LoRA, batch 64 of 384 tokens, Qwen2.5-0.5B shape', config: QWEN25_05B, learner: 'SFT', lora: true, rows: 64, promptTokens: 128, completionTokens: 256, phases: ['step'] },
  { name: 'full-0.5b', title: 'GRPO step, every weight trained, 16 x 8 x 256, Qwen2.5-0.5B shape', config: QWEN25_05B, learner: 'GRPO', lora: false, rows: 128, promptTokens: 128, completionTokens: 256, phases: ['step'] },
  { name: 'grpo-1.5b', title: 'GRPO + LoRA, 8 x 4 completions of 256 tokens, Qwen2.5-1.5B shape', config: QWEN25_15B, learner: 'GRPO', lora: true, rows: 32, promptTokens: 128, completionTokens: 256, phases: ['sample', 'passes', 'step'], target: 16 * GIB },
  { name: 'long-0.5b', title: 'GRPO + LoRA, 2 x 4 completions of 4096 tokens, Qwen2.5-0.5B shape', config: QWEN25_05B, learner: 'GRPO', lora: true, rows: 8, promptTokens: 128, completionTokens: 4096, phases: ['sample', 'step'] },
];

export async function benchLmScale(): Promise<void> {
  const wanted = (process.env.RLX_LM_SCALE_SHAPES ?? [...SHAPES.map((s) => s.name), 'speed'].join(',')).split(',');
  if (wanted.includes('speed')) await speed();
  const free = os.freemem();
  console.log(`\nlm-scale: ${THREADS} threads, ${formatBytes(free)} free${QUICK ? '; QUICK: rows / 8, tokens / 4' : ''}`);
  for (const full of SHAPES.filter((s) => wanted.includes(s.name))) {
    const shape = QUICK ? { ...full, rows: Math.max(2, full.rows / 8), promptTokens: full.promptTokens / 4, completionTokens: full.completionTokens / 4 } : full;
    const folder = scaleModelFolder(path.join(os.tmpdir(), `rlx-lm-scale-${shape.config === QWEN25_15B ? '1.5b' : '0.5b'}`), shape.config);
    const config = parseLmConfig(shape.config, 'bench config');
    const T = shape.promptTokens + shape.completionTokens;
    const trainable = shape.lora ? loraAdapters(config, { rank: 16, alpha: 32, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] }).reduce((n, a) => n + a.a.shape[0] * a.a.shape[1] + a.b.shape[0] * a.b.shape[1], 0) : parameterCount(config);
    const unfitted: MemoryShape = { trainableParameters: trainable, sampleRows: shape.learner === 'GRPO' ? shape.rows : 0, sequenceLength: T, trainRows: shape.rows, referenceCopy: !shape.lora && shape.learner === 'GRPO' };
    const estimate = estimateMemory(config, { ...unfitted, ...fittedShape(config, unfitted, free) });
    const results: PhaseResult[] = [];
    for (const phase of shape.phases) {
      const microBatches = phase === 'step' ? 2 : 1;
      results.push(await runPhase({ phase, folder, learner: shape.learner, lora: shape.lora, rows: shape.rows, promptTokens: shape.promptTokens, completionTokens: shape.completionTokens, microBatches, threads: THREADS }));
    }
    const peak = Math.max(...results.map((r) => r.peakRssBytes));
    const rows: [string, string][] = results.map((r) => [r.phase, phaseLine(r, shape.rows)]);
    const passes = results.find((r) => r.phase === 'passes');
    const step = results.find((r) => r.phase === 'step');
    const sample = results.find((r) => r.phase === 'sample');
    if (step) {
      // One pass for pi_ref (kl_coef > 0, GRPO's default iterations 1 needs no pi_old pass).
      const updateMs = (sample?.ms ?? 0) + (passes ? (passes.ms * shape.rows) / passes.rowsRun : 0) + (step.ms * shape.rows) / step.rowsRun;
      rows.push(['one update (extrapolated)', `${(updateMs / 60_000).toFixed(1)} min: ${sample ? 'sampling measured whole, ' : ''}${passes ? "pi_ref's pass and " : ''}the step at ${(shape.rows / step.rowsRun).toFixed(1)}x their measured micro-batches`]);
      rows.push(['step tokens/s', `${((step.rowsRun * T * 1000) / step.ms).toFixed(1)}`]);
    }
    rows.push(['peak RSS (largest phase)', `${formatBytes(peak)}${shape.target ? ` (target <= ${formatBytes(shape.target)}: ${peak <= shape.target ? 'met' : 'NOT met'})` : ''}`]);
    rows.push(['estimate (rlx check --memory)', `${formatBytes(estimate.total)}${estimate.microBatch !== undefined ? ` at micro_batch ${estimate.microBatch}${estimate.checkpointing ? ', recomputed' : ''}` : ''}; estimate / peak ${(estimate.total / peak).toFixed(2)}`]);
    report(`lm-scale ${shape.name}: ${shape.title}${QUICK ? ' (QUICK)' : ''}`, rows);
  }
}

/**
 * No slowdown where the update fits today: the LoRA step (SFT's cross-entropy over every position
 * but the first) at Qwen2.5-0.5B's shape, 4 x 128 tokens (the `pretrained` bench's batch), in one
 * graph, in micro-batches of 2 rows, and with recomputed blocks in micro-batches of 2; beside
 * each, PyTorch eager with the same micro-batches and checkpointing (bench/peers/llama_block.py).
 * rlx's runs each in a fresh process (the median of 3 steps after a first), alternated with the
 * peer's, two rounds; the better round counts.
 */
async function speed(): Promise<void> {
  const folder = scaleModelFolder(path.join(os.tmpdir(), 'rlx-lm-scale-0.5b'), QWEN25_05B);
  const base = { phase: 'step' as const, folder, learner: 'SFT' as const, lora: true, rows: 4, promptTokens: 1, completionTokens: 127, microBatches: 4, threads: THREADS, repeats: 3 };
  const config = parseLmConfig(QWEN25_05B, 'bench config');
  const variants = [
    { label: 'one graph, 4 rows (as before micro-batches)', settings: { microBatch: 4, checkpointing: false }, peer: [0, 0] },
    { label: 'micro-batches of 2 rows', settings: { microBatch: 2, checkpointing: false }, peer: [2, 0] },
    { label: 'recomputed blocks, micro-batches of 2', settings: { microBatch: 2, checkpointing: true }, peer: [2, 1] },
  ] as const;
  const python = torchPython();
  if (typeof python !== 'string') console.log(`  PyTorch peer skipped: ${python.missing}`);
  const times: number[][] = variants.map(() => []);
  const peerTimes: number[][] = variants.map(() => []);
  const peaks: number[] = variants.map(() => 0);
  const tokens = base.rows * (base.promptTokens + base.completionTokens);
  for (let round = 0; round < 2; round++) {
    for (const [i, v] of variants.entries()) {
      if (typeof python === 'string') {
        const c = config;
        const { peer } = await TorchPeer.startWith(python, ['lora', THREADS, 1, c.layers, c.width, c.heads, c.kvHeads, c.headDim, c.mlpWidth, c.vocab, base.rows, tokens / base.rows, 1, 'cpu', v.peer[0], v.peer[1]].map(String));
        const runs = [await peer.runOnce(), await peer.runOnce(), await peer.runOnce()].sort((a, b) => a - b);
        peerTimes[i]!.push(runs[1]!);
        await peer.stop();
      }
      const r = await runPhase({ ...base, settings: v.settings });
      times[i]!.push(r.ms);
      peaks[i] = Math.max(peaks[i]!, r.peakRssBytes);
    }
  }
  const best = times.map((t) => Math.min(...t));
  const rows: [string, string][] = [];
  variants.forEach((v, i) => {
    rows.push([`rlx, ${v.label}`, `${((tokens * 1000) / best[i]!).toFixed(1)} tokens/s (${(best[i]! / 1000).toFixed(2)} s a step), ${(best[0]! / best[i]!).toFixed(2)}x the one graph's tokens/s, peak ${formatBytes(peaks[i]!)}`]);
    if (peerTimes[i]!.length > 0) {
      const peer = Math.min(...peerTimes[i]!);
      rows.push([`PyTorch eager, the same`, `${((tokens * 1000) / peer).toFixed(1)} tokens/s; rlx / PyTorch (tokens/s) ${(peer / best[i]!).toFixed(2)}x`]);
    }
  });
  report('lm-scale speed: LoRA step, Qwen2.5-0.5B shape, 4 x 128 tokens', rows);
}

function phaseLine(r: PhaseResult, updateRows: number): string {
  const memory = `peak ${formatBytes(r.peakRssBytes)}`;
  if (r.phase === 'load') return `${memory}; loaded in ${(r.loadMs / 1000).toFixed(1)} s`;
  if (r.phase === 'sample') return `${memory}; ${r.rowsRun} rows, ${r.newTokens} new tokens in ${(r.ms / 1000).toFixed(1)} s (${((r.newTokens! * 1000) / r.ms).toFixed(1)} tokens/s), generation_batch ${r.generationBatch}`;
  const choice = `micro_batch ${r.microBatch}${r.checkpointing ? ', blocks recomputed' : ', one graph'}`;
  return `${memory}; ${r.rowsRun} of ${updateRows} rows in ${(r.ms / 1000).toFixed(1)} s (${choice})`;
}

/** Runs one phase in a child process and reads its one JSON line. */
function runPhase(request: PhaseRequest): Promise<PhaseResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(HERE, 'lm-scale-phase.js'), JSON.stringify(request)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`lm-scale phase ${request.phase} exited ${code}: ${out.slice(-500)}`));
      else resolve(JSON.parse(line) as PhaseResult);
    });
  });
}
