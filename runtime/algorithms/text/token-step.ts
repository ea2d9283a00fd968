// How a text learner's update goes through memory: the one place that chooses between the
// one-graph gradient step (every activation kept, the fastest where it fits) and the segmented
// step of a pretrained model (lm/segmented-step.ts: blocks recomputed, the head over chunks of
// tokens), and that splits the update's rows into micro-batches, their gradients summed before
// the one optimiser step. The same choice serves the forward-only passes (pi_old, pi_ref).
//
// Exactness: every text loss here is a sum over tokens with weights the learner computed over the
// whole update (token-weights.ts: `inv_tokens` and the aggregation's divisors are fed), so the
// sum of the micro-batches' losses and gradients is the update's, whatever the split
// (test/runtime/algorithms/text/micro-batches.test.ts).
//
// `auto` (micro_batch, gradient_checkpointing): the estimate of lm/memory.ts against the memory
// free when the step is built, the model already loaded; what it chose is in hparams.
import * as os from 'node:os';
import { isPretrained } from '../../policies/pretrained.js';
import { graphWeights, type LanguageModel } from '../../policies/index.js';
import { GradientStep, type Session, type Compute, type Dim, type Feed, type Graph, type HostArray, type LossScaler, type StepResult, type Tensor, type WeightStore } from '../../tensor/index.js';
import { SegmentedLogProbs, SegmentedStep, type BuiltLoss, type LogitsSource, type SegmentedModel } from '../../lm/segmented-step.js';
import { ACTIVATION_SHARE, fitMemory, HEAD_TOKENS, KV_CACHE_COPIES, kvCacheBytes, type MemoryChoice, type MemorySettings } from '../../../hf/memory.js';
import type { GradientRun } from '../checked-step.js';
import { logProbSession, onGpu } from './log-prob-pass.js';

export type { MemoryChoice, MemorySettings };

/** A gradient run with its sessions to release. */
export interface TokenGradientRun extends GradientRun {
  readonly lossScaler: LossScaler | null;
  release(): Promise<void>;
}

/** A forward pass giving log pi(target) [B, T]. */
export interface LogProbRun {
  run(feeds: Readonly<Record<string, Feed>>): Promise<{ logp?: Float32Array }>;
  release(): Promise<void>;
}

/**
 * What fits (lm/memory.ts fitMemory) for `rows` rows of `length` tokens, the longest the learner
 * expects, in the memory free now that the model is loaded. A character-level model's update
 * is small: one graph, every row at once unless micro_batch says otherwise.
 */
export function chooseMemory(model: LanguageModel, settings: MemorySettings, rows: number, length: number, compute: Compute, available = os.freemem()): MemoryChoice {
  if (!isPretrained(model)) return { microBatch: settings.microBatch === 'auto' ? rows : settings.microBatch, checkpointing: false };
  return fitMemory(model.lm.config, settings, rows, length, available, canSegment(model, compute));
}

/** Recomputed blocks need a pretrained model, and float32 (the segments have no loss scale). */
function canSegment(model: LanguageModel, compute: Compute): boolean {
  return isPretrained(model) && compute.precision !== 'fp16';
}

function segmentedModel(model: LanguageModel, trainable: WeightStore = model.weights): SegmentedModel {
  if (!isPretrained(model)) throw new Error('segmented steps need a pretrained model');
  const lm = model.lm;
  return { config: lm.config, trainable, frozen: lm.frozen, ...(lm.lora ? { lora: { weights: lm.lora.weights } } : {}) };
}

/**
 * The learner's gradient step over the loss `buildLoss` builds from a model's logits, as
 * `choice` says: segmented, or the one graph (a GradientStep) in micro-batches. `selectors`:
 * the per-token feeds whose non-zero entries are the only tokens the loss reads.
 */
export async function tokenGradientRun(model: LanguageModel, buildLoss: (source: LanguageModel) => BuiltLoss, selectors: readonly string[], choice: MemoryChoice, compute: Compute, dimLimits: Readonly<Record<string, number>>): Promise<TokenGradientRun> {
  if (choice.checkpointing) {
    return SegmentedStep.create(segmentedModel(model), (source: LogitsSource) => buildLoss(asModel(model, source)), selectors, { microBatch: choice.microBatch, headTokens: HEAD_TOKENS, compute });
  }
  const loss = buildLoss(model);
  const step = await GradientStep.create(loss.graph, [{ loss: loss.loss, weights: model.weights.names, metrics: loss.metrics }], {
    weights: model.weights,
    fed: model.frozenWeights,
    compute,
    dimLimits,
    largeOps: true,
  });
  return new MicroBatchedRun(step, choice.microBatch);
}

/** log pi(target) for `weights` (the trainable ones: the policy's own, or pi_ref's copy), as `choice` says. */
export async function tokenLogProbRun(model: LanguageModel, T: Dim, buildLogProbs: (source: LanguageModel, T: Dim) => { graph: Graph; logProb: Tensor }, choice: MemoryChoice, compute: Compute, trainable: WeightStore = model.weights, bake?: WeightStore): Promise<LogProbRun> {
  if (choice.checkpointing) {
    return SegmentedLogProbs.create(segmentedModel(model, trainable), (source) => buildLogProbs(asModel(model, source), T), { microBatch: choice.microBatch, headTokens: HEAD_TOKENS, compute });
  }
  const session = await logProbSession(model, T, graphWeights(model, trainable), compute, undefined, bake ?? (onGpu(compute) ? model.frozenWeights : undefined));
  return new MicroBatchedLogProbs(session, choice.microBatch);
}

/**
 * Prompt tokens assumed before a completion when nothing says how long prompts are: a chat
 * prompt of a few sentences with the template's markers (the checker's estimate assumes the same).
 */
export const ASSUMED_PROMPT_TOKENS = 256;

/** The longest row the learner expects: a prompt and the longest completion, at most the model's context; a character-level model's rows are its fixed layout. */
export function expectedRowLength(model: LanguageModel, maxNewTokens: number | undefined): number {
  return Math.min(model.context, ASSUMED_PROMPT_TOKENS + (maxNewTokens ?? ASSUMED_PROMPT_TOKENS));
}

/** generation_batch: as given, or (auto) the most of `rows` whose key/value cache fits the share of free memory. */
export function chooseGenerationBatch(model: LanguageModel, setting: number | 'auto', rows: number, length: number, available = os.freemem()): number {
  if (setting !== 'auto') return setting;
  if (!isPretrained(model)) return rows;
  const perRow = KV_CACHE_COPIES * kvCacheBytes(model.lm.config, 1, length);
  return Math.max(1, Math.min(rows, Math.floor((available * ACTIVATION_SHARE) / perRow)));
}

/**
 * The process's peak resident memory so far (getrusage's maxrss), logged with each update of a
 * text learner as `memory/peak_rss_bytes`, beside the estimate the run was checked against.
 */
export function memoryMetrics(): Record<string, number> {
  return { 'memory/peak_rss_bytes': process.resourceUsage().maxRSS * 1024 };
}


/** The policy with its logits taken from `source` (the segmented head), for loss builders that read only sequenceLogits. */
function asModel(model: LanguageModel, source: LogitsSource): LanguageModel {
  return Object.create(model, { sequenceLogits: { value: (g: Graph, tokens: Tensor) => source.sequenceLogits(g, tokens) } }) as LanguageModel;
}

/** The rows [r0, r0 + m) of every feed of the batch's B rows (a view: rows are contiguous); other feeds as they are. */
export function rowSlice(feeds: Readonly<Record<string, Feed>>, B: number, r0: number, m: number): Record<string, Feed> {
  const out: Record<string, Feed> = {};
  for (const [name, feed] of Object.entries(feeds)) {
    if (ArrayBuffer.isView(feed) || feed.dims[0] !== B || feed.dims.length === 0) {
      out[name] = feed;
      continue;
    }
    const per = feed.data.length / B;
    out[name] = { data: feed.data.subarray(r0 * per, (r0 + m) * per) as HostArray, dims: [m, ...feed.dims.slice(1)] };
  }
  return out;
}

/** The batch's rows: the `tokens` feed's first dim. */
export function batchRows(feeds: Readonly<Record<string, Feed>>): number {
  const tokens = feeds.tokens;
  if (!tokens || ArrayBuffer.isView(tokens)) throw new Error('a token batch needs a `tokens` feed with dims');
  return tokens.dims[0]!;
}

/**
 * A one-graph gradient step over micro-batches of rows: the losses, metrics and gradients of
 * the micro-batches summed. With every row in one micro-batch it is the step itself, untouched.
 * `metricCombinations`: by metric, whether it is a mean over rows (a learner module's g.mean), averaged
 * by the micro-batches' rows instead of summed; absent: every metric is a sum (the built-ins').
 */
export class MicroBatchedRun implements TokenGradientRun {
  private sums: Float32Array[] = [];
  private readonly metrics: Float64Array;

  constructor(
    private readonly step: GradientStep,
    readonly microBatch: number,
    private readonly metricCombinations?: readonly ('sum' | 'mean')[],
  ) {
    this.metrics = new Float64Array(step.metricNames.length);
  }

  get metricNames(): readonly string[] {
    return this.step.metricNames;
  }

  get lossScaler() {
    return this.step.lossScaler;
  }

  async run(feeds: Readonly<Record<string, Feed>>): Promise<StepResult> {
    const B = batchRows(feeds);
    if (B <= this.microBatch) return this.step.run(feeds);
    let loss = 0;
    let gradScale: number | undefined;
    this.metrics.fill(0);
    for (let r0 = 0; r0 < B; r0 += this.microBatch) {
      const out = await this.step.run(rowSlice(feeds, B, r0, Math.min(this.microBatch, B - r0)));
      if (r0 === 0) this.sums = out.grads.map((g, i) => (this.sums[i]?.length === g.length ? this.sums[i]! : new Float32Array(g.length)).fill(0));
      out.grads.forEach((g, i) => {
        const sum = this.sums[i]!;
        for (let k = 0; k < sum.length; k++) sum[k]! += g[k]!;
      });
      loss += out.loss;
      const share = Math.min(this.microBatch, B - r0) / B;
      for (let k = 0; k < this.metrics.length; k++) this.metrics[k]! += this.metricCombinations?.[k] === 'mean' ? share * out.metrics[k]! : out.metrics[k]!;
      gradScale = out.gradScale;
    }
    return { loss, grads: this.sums, metrics: this.metrics, ...(gradScale !== undefined ? { gradScale } : {}) };
  }

  release(): Promise<void> {
    return this.step.release();
  }
}

/** A log-prob session over micro-batches of rows, their log-probabilities placed in one [B, T] array. */
export class MicroBatchedLogProbs implements LogProbRun {
  constructor(
    private readonly session: Session,
    readonly microBatch: number,
  ) {}

  async run(feeds: Readonly<Record<string, Feed>>): Promise<{ logp?: Float32Array }> {
    const B = batchRows(feeds);
    if (B <= this.microBatch) return this.session.run(feeds);
    let logp: Float32Array | undefined;
    for (let r0 = 0; r0 < B; r0 += this.microBatch) {
      const part = (await this.session.run(rowSlice(feeds, B, r0, Math.min(this.microBatch, B - r0)))).logp!;
      logp ??= new Float32Array((part.length / Math.min(this.microBatch, B - r0)) * B);
      logp.set(part, (r0 * logp.length) / B);
    }
    return { logp: logp! };
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
