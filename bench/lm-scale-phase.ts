// One phase of a GRPO (or SFT) update at a real model's shape, in its own process so that its
// peak resident memory (getrusage's maxrss) is the phase's alone: `node out/bench/lm-scale-phase.js
// '<json>'` prints one JSON line. Run by lm-scale.ts, which says what the phases are.
//
//   load      the model folder read (bf16 -> float32), nothing else: the floor of every phase
//   sample    rows completions of maxNewTokens sampled (temperature 1), generation_batch auto
//   passes    pi_old's log-probability pass over the update's rows (pi_ref's is the same)
//   step      the GRPO (or SFT) gradient step over `microBatches` micro-batches, and one Adam step
//             (full fine-tuning's GRPO with its KL reference copy held)
//
// `passes` and `step` run only the first micro-batches of the update (their peak is one
// micro-batch's) and report the time per row, which lm-scale.ts multiplies out to the update.
import * as os from 'node:os';
import { buildGrpoLoss, GRPO_LOSS_TOKENS } from '../runtime/algorithms/text/policy-gradient-loss.js';
import { buildSftLoss, SFT_LOSS_TOKENS } from '../runtime/algorithms/sft/loss.js';
import { buildLogProbs } from '../runtime/algorithms/text/tokens.js';
import { chooseGenerationBatch, chooseMemory, tokenGradientRun, tokenLogProbRun } from '../runtime/algorithms/text/token-step.js';
import { PretrainedPolicy } from '../runtime/policies/pretrained.js';
import { Adam, type Compute, type Feed } from '../runtime/tensor/index.js';
import { Rng } from '../shared/random.js';

export interface PhaseRequest {
  readonly phase: 'load' | 'sample' | 'passes' | 'step';
  readonly folder: string;
  readonly learner: 'GRPO' | 'SFT';
  readonly lora: boolean;
  /** The update's rows (prompts x group size, or SFT's batch) and each row's tokens. */
  readonly rows: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** passes and step: how many micro-batches to run. */
  readonly microBatches: number;
  readonly threads: number;
  /** micro_batch and gradient_checkpointing; auto by default. */
  readonly settings?: { readonly microBatch: number | 'auto'; readonly checkpointing: boolean | 'auto' };
  /** Steps to run after a first, unmeasured one (the time is their median); default: one step, measured. */
  readonly repeats?: number;
}

export interface PhaseResult {
  readonly phase: string;
  readonly peakRssBytes: number;
  readonly loadMs: number;
  readonly ms: number;
  /** Rows the phase went through (passes, step: its micro-batches' rows). */
  readonly rowsRun: number;
  readonly microBatch?: number;
  readonly checkpointing?: boolean;
  readonly generationBatch?: number;
  readonly newTokens?: number;
}

const LORA = { rank: 16, alpha: 32, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj'] };

async function runPhase(r: PhaseRequest): Promise<PhaseResult> {
  const started = performance.now();
  const policy = PretrainedPolicy.load({ folder: r.folder, ...(r.lora ? { lora: LORA } : {}) }, new Rng(7));
  const loadMs = performance.now() - started;
  const compute: Compute = { providers: ['cpu'], opThreads: r.threads };
  const T = r.promptTokens + r.completionTokens;
  const base = { phase: r.phase, loadMs, peakRssBytes: 0 };
  if (r.phase === 'load') return { ...base, ms: 0, rowsRun: 0, peakRssBytes: peak() };
  if (r.phase === 'sample') {
    const rng = new Rng(3);
    const prompts = Array.from({ length: r.rows }, () => Array.from({ length: r.promptTokens }, () => rng.int(100_000)));
    policy.generationRows = chooseGenerationBatch(policy, 'auto', r.rows, T);
    // Random weights rarely write an EOS, so nearly every row runs to maxNewTokens.
    const start = performance.now();
    const completions = await policy.complete(prompts, { maxNewTokens: r.completionTokens, greedy: false, temperature: 1, rng });
    const ms = performance.now() - start;
    return { ...base, ms, rowsRun: r.rows, generationBatch: policy.generationRows, newTokens: completions.reduce((n, c) => n + c.length, 0), peakRssBytes: peak() };
  }
  const choice = chooseMemory(policy, r.settings ?? { microBatch: 'auto', checkpointing: 'auto' }, r.rows, T, compute);
  const rows = Math.min(r.rows, choice.microBatch * r.microBatches);
  const feeds = batch(policy, rows, r.promptTokens, r.completionTokens);
  if (r.phase === 'passes') {
    const pass = await tokenLogProbRun(policy, 'T', buildLogProbs, choice, compute);
    const start = performance.now();
    await pass.run(feeds);
    const ms = performance.now() - start;
    await pass.release();
    return { ...base, ms, rowsRun: rows, ...choice, peakRssBytes: peak() };
  }
  const grpo = r.learner === 'GRPO';
  // Full fine-tuning's GRPO holds pi_ref as a copy of every weight (log-prob-sessions.ts) for
  // the whole update: the step's peak is measured with it held, as a run's would be.
  const reference = grpo && !r.lora ? policy.weights.clone() : undefined;
  const step = await tokenGradientRun(policy, (source) => (grpo ? buildGrpoLoss(source, 'T', { oldFed: false, referenceFed: true }) : buildSftLoss(source, 'T')), grpo ? GRPO_LOSS_TOKENS : SFT_LOSS_TOKENS, choice, compute, { B: r.rows });
  const adam = new Adam(policy.weights, { eps: 1e-8 });
  const once = async () => {
    const start = performance.now();
    const out = await step.run(feeds);
    adam.step(out.grads, 1e-5, { maxGradNorm: 1 });
    return performance.now() - start;
  };
  let ms = await once();
  if (r.repeats) {
    const times = [];
    for (let i = 0; i < r.repeats; i++) times.push(await once());
    ms = times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  }
  await step.release();
  const peakRssBytes = peak();
  void reference; // held to here
  return { ...base, ms, rowsRun: rows, ...choice, peakRssBytes };
}

/** A GRPO-shaped batch of `rows` rows: a prompt, then a completion whose tokens are learned, advantages +-1 by row. */
function batch(policy: PretrainedPolicy, rows: number, prompt: number, completion: number): Record<string, Feed> {
  const rng = new Rng(5);
  const T = prompt + completion;
  const tokens = BigInt64Array.from({ length: rows * T }, () => BigInt(rng.int(100_000)));
  const targets = BigInt64Array.from({ length: rows * T }, () => BigInt(rng.int(100_000)));
  const mask = new Float32Array(rows * T);
  const advantages = new Float32Array(rows * T);
  for (let r = 0; r < rows; r++) for (let t = prompt - 1; t < T - 1; t++) {
    mask[r * T + t] = 1;
    advantages[r * T + t] = r % 2 ? 1 : -1;
  }
  const count = rows * completion;
  return {
    tokens: { data: tokens, dims: [rows, T] },
    targets: { data: targets, dims: [rows, T] },
    mask: { data: mask, dims: [rows, T] },
    advantages: { data: advantages, dims: [rows, T] },
    ref_logp: { data: new Float32Array(rows * T).fill(-12), dims: [rows, T] },
    token_weight: { data: mask.map((m) => m / count), dims: [rows, T] },
    inv_tokens: Float32Array.of(1 / count),
    ratio_low: Float32Array.of(0.8),
    ratio_high: Float32Array.of(1.2),
    kl_coef: Float32Array.of(0.04),
    ent_coef: Float32Array.of(0),
    inv_temperature: Float32Array.of(1),
    ...policy.rowFeeds(new Int32Array(rows), T),
  };
}

function peak(): number {
  return process.resourceUsage().maxRSS * 1024;
}

const request = JSON.parse(process.argv[2]!) as PhaseRequest;
const result = await runPhase(request);
process.stdout.write(JSON.stringify({ ...result, freeAtEnd: os.freemem() }) + '\n');
