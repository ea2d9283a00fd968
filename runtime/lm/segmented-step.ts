// A pretrained model's training step in segments, for batches whose one-graph step would not fit
// in memory: the whole-model graph (one forward and backward, onnxruntime keeping every
// activation and the [rows, positions, vocabulary] logits three times) is what made a standard
// GRPO batch of a 0.6B model need 428 GiB. Here, as TRL's micro-batches with gradient
// checkpointing and selective log-softmax, and Liger's chunked cross-entropy:
//
//   - rows go through in micro-batches of `microBatch`, their gradients summed before the one
//     optimiser step (the losses are sums over tokens with weights the learner computed over
//     the whole batch, so the sum over micro-batches is the whole batch's loss: exact);
//   - the forward keeps only each block's input [rows, positions, width]; the backward runs
//     each block again from it (one session for every block, its weights fed per block) and
//     differentiates it against the gradient flowing back (recomputed activations);
//   - the final norm, the head and the loss run over chunks of `headTokens` tokens, and only
//     over the tokens the loss reads (the learner names the feeds that say which: the mask, the
//     token weights): the vocabulary's logits exist for one chunk at a time, never for the batch.
//
// The embedding's lookup and its gradient (a scatter of rows) are plain JS loops over the tokens.
// The same pieces give log pi(target) at every position without a backward (SegmentedLogProbs),
// for pi_old and pi_ref. Results equal the one-graph step's up to float summation order
// (test/runtime/lm/segmented-step.test.ts: loss and gradients within 1e-5 relative).
import { Graph, grad, Session, type Compute, type Feed, type HostArray, type StepResult, type Tensor, type Weight, type WeightStore } from '../tensor/index.js';
import type { LmConfig } from '../../hf/config.js';
import { lmBuilder, type LoraWeights } from './model.js';
import { layerWeightNames, modelWeightNames } from '../../hf/weights.js';
import { f16Table } from '../../shared/float16.js';

/** What the segments read of a pretrained model (PretrainedLm has it). */
export interface SegmentedModel {
  readonly config: LmConfig;
  /** The weights gradients are taken for. */
  readonly trainable: WeightStore;
  /** The frozen base under LoRA; undefined with full fine-tuning. */
  readonly frozen: WeightStore | undefined;
  readonly lora?: { readonly weights: LoraWeights };
}

/** What a text learner's loss builder gives: a graph over the token batch whose logits come from `model.sequenceLogits`. */
export interface BuiltLoss {
  readonly graph: Graph;
  readonly loss: Tensor;
  readonly metrics: Readonly<Record<string, Tensor>>;
}

/** The language-model side a loss builder reads: only `sequenceLogits` (the head segment replaces it). */
export interface LogitsSource {
  sequenceLogits(g: Graph, tokens: Tensor): Tensor;
}

export interface SegmentOptions {
  /** Rows per forward and backward. */
  readonly microBatch: number;
  /** Tokens per chunk of the head (and of the vocabulary's logits). */
  readonly headTokens: number;
  readonly compute: Compute;
}

/** The graph input the head segment reads the last block's output from. */
const HIDDEN = 'hidden';
const ROW_POSITIONS = 'positions';
const ROW_MASK = 'attention_mask';

/**
 * The weights one block reads, in a fixed order: its own (layerWeightNames), then its LoRA
 * adapters'. Every block lists the same kinds in the same order, so block 0's names stand for
 * any block's in the shared block sessions.
 */
export function blockWeightNames(c: LmConfig, l: number, lora: LoraWeights | undefined): string[] {
  const names: string[] = [];
  const visit = (v: unknown): void => {
    if (typeof v === 'string') names.push(v);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) visit(x);
  };
  visit(layerWeightNames(c, l));
  const adapters = names.flatMap((name) => {
    const a = lora?.adapters.get(name);
    return a ? [a.a, a.b] : [];
  });
  return [...names, ...adapters];
}

/** The head's weights: the final norm's, and the head's (the embedding, tied). */
function headWeightNames(c: LmConfig): string[] {
  const n = modelWeightNames(c);
  return [n.finalNorm.weight, ...(n.finalNorm.bias ? [n.finalNorm.bias] : []), n.head ?? n.embed];
}

/** The pieces shared by the gradient step and the log-prob pass: weights by name, the block sessions' feeds, the embedding. */
class Segments {
  readonly blockNames: readonly (readonly string[])[];
  private readonly lookup: WeightStore[];

  constructor(readonly model: SegmentedModel) {
    const c = model.config;
    this.lookup = [model.trainable, ...(model.frozen ? [model.frozen] : [])];
    this.blockNames = Array.from({ length: c.layers }, (_, l) => blockWeightNames(c, l, model.lora?.weights));
  }

  private entry(name: string): Weight {
    for (const store of this.lookup) {
      const w = store.find(name);
      if (w) return w;
    }
    throw new Error(`segmented step: no weight '${name}' in the model's stores`);
  }

  /** A weight's values as fed: float32, or a base kept in half precision's float16 bits. */
  weight(name: string): Float32Array | Uint16Array {
    const w = this.entry(name);
    return w.half ?? w.data;
  }

  shape(name: string): readonly number[] {
    return this.entry(name).shape;
  }

  /** `name` as a param of `g` (w[name]: the param, or a half weight's cast up to float32); returns the param. */
  private declare(g: Graph, w: Record<string, Tensor>, name: string): Tensor {
    const entry = this.entry(name);
    const param = g.param(name, entry.shape, entry.half ? 'float16' : 'float32');
    w[name] = entry.half ? g.cast(param, 'float32') : param;
    return param;
  }

  /** A block graph over a fed stream: `hidden` [B, T, C] -> the block's output, block 0's weight names standing for block l's. */
  blockGraph(): { g: Graph; hidden: Tensor; out: Tensor; params: Tensor[] } {
    const c = this.model.config;
    const g = new Graph();
    const names = this.blockNames[0]!;
    const w: Record<string, Tensor> = {};
    const params = names.map((name) => this.declare(g, w, name));
    const hidden = g.input(HIDDEN, 'float32', ['B', 'T', c.width]);
    const positions = g.input(ROW_POSITIONS, 'int64', ['B', 'T']);
    const mask = g.input(ROW_MASK, 'float32', ['B', 'T', 'T']);
    // tokens: never read (the embedding is not part of a block).
    const stream = { x: hidden };
    lmBuilder(g, w, c, { tokens: positions, positions, mask }, { lora: this.model.lora?.weights }).block(0, stream);
    return { g, hidden, out: stream.x, params };
  }

  /** Block l's weights fed under block 0's names. */
  blockFeeds(l: number): Record<string, Feed> {
    const feeds: Record<string, Feed> = {};
    const own = this.blockNames[l]!;
    this.blockNames[0]!.forEach((name, i) => {
      const data = this.weight(own[i]!);
      feeds[name] = { data, dims: this.shape(own[i]!) as number[] };
    });
    return feeds;
  }

  /** A stand-in for the policy whose `sequenceLogits` is the head over a fed stream `hidden` [B, T, C]. */
  headSource(): LogitsSource {
    const c = this.model.config;
    return {
      sequenceLogits: (g: Graph, tokens: Tensor): Tensor => {
        const hidden = g.input(HIDDEN, 'float32', ['B', tokens.shape[1]!, c.width]);
        const w: Record<string, Tensor> = {};
        for (const name of headWeightNames(c)) this.declare(g, w, name);
        return lmBuilder(g, w, c, { tokens, positions: tokens }, {}).head({ x: hidden });
      },
    };
  }

  /** The head's weights as feeds (they are read live: the optimiser updates them in place). */
  headFeeds(): Record<string, Feed> {
    const feeds: Record<string, Feed> = {};
    for (const name of headWeightNames(this.model.config)) feeds[name] = { data: this.weight(name), dims: this.shape(name) as number[] };
    return feeds;
  }

  /** The residual stream's start for rows [r0, r0 + m) of `tokens` [B, T]: the embeddings' rows (and GPT-2's position table's). */
  embed(tokens: BigInt64Array, positions: BigInt64Array | undefined, r0: number, m: number, T: number): Float32Array {
    const c = this.model.config;
    const C = c.width;
    const names = modelWeightNames(c);
    const table = this.weight(names.embed);
    const positionTable = names.positionTable ? this.weight(names.positionTable) : undefined;
    const x = new Float32Array(m * T * C);
    const words = new Uint32Array(x.buffer);
    const widen = f16Table();
    for (let i = 0; i < m * T; i++) {
      const id = Number(tokens[r0 * T + i]!);
      // A base kept in half precision: its float16 rows widened exactly, as the graphs' cast does.
      if (table instanceof Uint16Array) for (let k = 0; k < C; k++) words[i * C + k] = widen[table[id * C + k]!]!;
      else x.set(table.subarray(id * C, (id + 1) * C), i * C);
      if (positionTable) {
        const p = Number(positions![r0 * T + i]!);
        for (let k = 0; k < C; k++) x[i * C + k]! += positionTable instanceof Uint16Array ? halfValue(widen, positionTable[p * C + k]!) : positionTable[p * C + k]!;
      }
    }
    return x;
  }
}

/** The rows [r0, r0 + m) of a [B, ...] feed: a view, no copy (rows are contiguous). */
function rowsOf(feed: Feed, B: number, r0: number, m: number): { data: HostArray; dims: number[] } {
  const { data, dims } = asDims(feed);
  if (dims[0] !== B) throw new Error(`segmented step: a row feed of dims [${dims.join(', ')}] in a batch of ${B} rows`);
  const per = data.length / B;
  return { data: data.subarray(r0 * per, (r0 + m) * per) as HostArray, dims: [m, ...dims.slice(1)] };
}

function asDims(feed: Feed): { data: HostArray; dims: readonly number[] } {
  if (ArrayBuffer.isView(feed)) return { data: feed as HostArray, dims: [(feed as HostArray).length] };
  return feed as { data: HostArray; dims: readonly number[] };
}

/** `values` [B, T] at the flat token indices `at` (into rows [r0, ...) of the batch), as [1, n]. */
function gatherTokens(values: HostArray, at: Int32Array, from: number, n: number, base: number): HostArray {
  const out = new (values.constructor as new (n: number) => HostArray)(n);
  for (let i = 0; i < n; i++) out[i] = values[base + at[from + i]!]!;
  return out;
}

/** The inputs of a head session that hold one value per token ([B, T]); the others (scalars) are passed as they are. */
function perTokenInputs(session: Session): Set<string> {
  const names = new Set<string>();
  for (const io of session.model.inputs) {
    if (io.isParam || io.name === HIDDEN) continue;
    if (io.shape.length === 2 && io.shape[0] === 'B') names.add(io.name);
    else if (io.shape.length !== 0) throw new Error(`segmented step: the loss reads '${io.name}' of shape [${io.shape.join(', ')}]; a head chunk takes per-token [B, T] inputs and scalars only`);
  }
  return names;
}

/** The head's feeds for tokens `at[from, from + n)` of rows starting at r0. */
function headChunkFeeds(feeds: Readonly<Record<string, Feed>>, perToken: ReadonlySet<string>, at: Int32Array, from: number, n: number, base: number, hidden: Float32Array, C: number): Record<string, Feed> {
  const out: Record<string, Feed> = {};
  for (const [name, feed] of Object.entries(feeds)) {
    if (perToken.has(name)) out[name] = { data: gatherTokens(asDims(feed).data, at, from, n, base), dims: [1, n] };
    else if (!(name === ROW_POSITIONS || name === ROW_MASK)) out[name] = feed;
  }
  const x = new Float32Array(n * C);
  for (let i = 0; i < n; i++) x.set(hidden.subarray(at[from + i]! * C, (at[from + i]! + 1) * C), i * C);
  out[HIDDEN] = { data: x, dims: [1, n, C] };
  return out;
}

/** Flat token indices (r * T + t, within the micro-batch) where any of `selectors` is non-zero; all tokens where none is fed. */
function selectedTokens(feeds: Readonly<Record<string, Feed>>, selectors: readonly string[], B: number, r0: number, m: number, T: number): Int32Array {
  const present = selectors.map((name) => feeds[name]).filter((f): f is Feed => f !== undefined).map((f) => rowsOf(f, B, r0, m).data);
  if (present.length === 0) return Int32Array.from({ length: m * T }, (_, i) => i);
  const at: number[] = [];
  for (let i = 0; i < m * T; i++) if (present.some((values) => values[i] !== 0)) at.push(i);
  return Int32Array.from(at);
}

function sessionOptions(compute: Compute) {
  // No memory arena: a segment's tensors differ in size from run to run (rows, chunks), and an
  // arena per session keeps its largest ever; freed, they go back to the system at once.
  return { providers: compute.providers, intraOpNumThreads: compute.opThreads, memoryArena: false } as const;
}

/**
 * The gradient step in segments: a GradientRun (../algorithms/checked-step.ts) giving the loss,
 * the metrics and the gradient of every trainable weight (in the store's order) for the whole
 * batch fed, as one GradientStep over the whole graph would.
 */
export class SegmentedStep {
  readonly lossScaler = null;
  private readonly grads: Float32Array[];
  private readonly index: ReadonlyMap<string, number>;
  private readonly metrics: Float64Array;

  private constructor(
    private readonly segments: Segments,
    private readonly blockForward: Session,
    private readonly blockBackward: Session,
    /** Block 0's weight names that train, with their output in blockBackward. */
    private readonly blockTrained: readonly { readonly slot: number; readonly output: string }[],
    private readonly head: Session,
    private readonly headTrained: readonly { readonly name: string; readonly output: string }[],
    private readonly perToken: ReadonlySet<string>,
    readonly metricNames: readonly string[],
    private readonly selectors: readonly string[],
    private readonly options: SegmentOptions,
  ) {
    const names = segments.model.trainable.names;
    this.index = new Map(names.map((name, i) => [name, i]));
    this.grads = segments.model.trainable.values.map((v) => new Float32Array(v.length));
    this.metrics = new Float64Array(metricNames.length);
  }

  /**
   * `buildLoss` builds the learner's loss over the token batch from a model's logits (it is
   * called once, on a stand-in whose logits are the head over a fed stream); `selectors`: the
   * per-token feeds whose non-zero entries are the only tokens the loss reads (the mask, the
   * token weights), so that no other token's logits are computed.
   */
  static async create(model: SegmentedModel, buildLoss: (source: LogitsSource) => BuiltLoss, selectors: readonly string[], options: SegmentOptions): Promise<SegmentedStep> {
    const segments = new Segments(model);
    const c = model.config;
    // LoRA adapts the same modules in every block, so block 0's trainable weights stand for each block's.
    const trains = (l: number) => segments.blockNames[l]!.map((name) => model.trainable.has(name));
    const pattern = trains(0);
    for (let l = 1; l < c.layers; l++) {
      if (trains(l).some((t, i) => t !== pattern[i])) throw new Error(`segmented step: block ${l} trains other weights than block 0; every block must train the same ones`);
    }
    const forward = segments.blockGraph();
    const blockForward = await Session.create(forward.g, { hidden_out: forward.out }, sessionOptions(options.compute));

    const backward = segments.blockGraph();
    const trainedSlots = pattern.flatMap((t, i) => (t ? [i] : []));
    const seed = backward.g.input('grad_out', 'float32', ['B', 'T', c.width]);
    const blockGrads = grad(backward.out, [backward.hidden, ...trainedSlots.map((i) => backward.params[i]!)], { seed });
    const blockOutputs: Record<string, Tensor> = { grad_in: blockGrads[0]! };
    const blockTrained = trainedSlots.map((slot, k) => {
      blockOutputs[`d${k}`] = blockGrads[k + 1]!;
      return { slot, output: `d${k}` };
    });
    const blockBackward = await Session.create(backward.g, blockOutputs, sessionOptions(options.compute));

    const built = buildLoss(segments.headSource());
    const g = built.graph;
    const hidden = g.byName(HIDDEN)!;
    const headParams = headWeightNames(c).filter((name) => model.trainable.has(name));
    const metricNames = Object.keys(built.metrics);
    const packed = g.concat([built.loss, ...Object.values(built.metrics)].map((x) => g.unsqueeze(x, [0])), 0);
    const headGrads = grad(built.loss, [hidden, ...headParams.map((name) => g.byName(name)!)]);
    const headOutputs: Record<string, Tensor> = { packed, grad_hidden: headGrads[0]! };
    const headTrained = headParams.map((name, k) => {
      headOutputs[`d${k}`] = headGrads[k + 1]!;
      return { name, output: `d${k}` };
    });
    const head = await Session.create(g, headOutputs, sessionOptions(options.compute));
    return new SegmentedStep(segments, blockForward, blockBackward, blockTrained, head, headTrained, perTokenInputs(head), metricNames, selectors, options);
  }

  async run(feeds: Readonly<Record<string, Feed>>): Promise<StepResult> {
    const { segments, grads, metrics } = this;
    const c = segments.model.config;
    const C = c.width;
    const tokens = asDims(feeds.tokens!);
    const [B, T] = tokens.dims as [number, number];
    for (const g of grads) g.fill(0);
    metrics.fill(0);
    let loss = 0;
    const positions = feeds[ROW_POSITIONS] ? (asDims(feeds[ROW_POSITIONS]).data as BigInt64Array) : undefined;
    for (let r0 = 0; r0 < B; r0 += this.options.microBatch) {
      const m = Math.min(this.options.microBatch, B - r0);
      const rowFeeds = { [ROW_POSITIONS]: rowsOf(feeds[ROW_POSITIONS]!, B, r0, m), [ROW_MASK]: rowsOf(feeds[ROW_MASK]!, B, r0, m) };
      // Forward: each block's input kept, nothing else.
      const inputs: Float32Array[] = [];
      let x: Float32Array = segments.embed(tokens.data as BigInt64Array, positions, r0, m, T);
      for (let l = 0; l < c.layers; l++) {
        inputs.push(x);
        x = (await this.blockForward.run({ [HIDDEN]: { data: x, dims: [m, T, C] }, ...rowFeeds, ...segments.blockFeeds(l) })).hidden_out!;
      }
      // The head over the tokens the loss reads, a chunk at a time; its gradient scattered back into the stream's.
      let dx: Float32Array = new Float32Array(m * T * C);
      const at = selectedTokens(feeds, this.selectors, B, r0, m, T);
      const headWeights = segments.headFeeds();
      for (let from = 0; from < at.length; from += this.options.headTokens) {
        const n = Math.min(this.options.headTokens, at.length - from);
        const out = await this.head.run({ ...headChunkFeeds(feeds, this.perToken, at, from, n, r0 * T, x, C), ...headWeights });
        const packed = out.packed!;
        loss += packed[0]!;
        for (let k = 0; k < metrics.length; k++) metrics[k]! += packed[k + 1]!;
        const dh = out.grad_hidden!;
        for (let i = 0; i < n; i++) {
          const o = at[from + i]! * C;
          for (let k = 0; k < C; k++) dx[o + k]! += dh[i * C + k]!;
        }
        for (const t of this.headTrained) addInto(grads[this.index.get(t.name)!]!, out[t.output]!);
      }
      // Backward: each block run again from its input and differentiated against the stream's gradient.
      for (let l = c.layers - 1; l >= 0; l--) {
        const out = await this.blockBackward.run({ [HIDDEN]: { data: inputs[l]!, dims: [m, T, C] }, grad_out: { data: dx, dims: [m, T, C] }, ...rowFeeds, ...segments.blockFeeds(l) });
        inputs[l] = EMPTY; // its memory may go
        for (const t of this.blockTrained) addInto(grads[this.index.get(segments.blockNames[l]![t.slot]!)!]!, out[t.output]!);
        dx = out.grad_in!;
      }
      this.embeddingGradients(tokens.data as BigInt64Array, positions, r0, m, T, dx);
    }
    return { loss, grads, metrics };
  }

  /** The embedding's (and GPT-2's position table's) gradient where they train: the stream's gradient summed into each token's row. */
  private embeddingGradients(tokens: BigInt64Array, positions: BigInt64Array | undefined, r0: number, m: number, T: number, dx: Float32Array): void {
    const names = modelWeightNames(this.segments.model.config);
    const C = this.segments.model.config.width;
    const scatter = (name: string, ids: BigInt64Array) => {
      const slot = this.index.get(name);
      if (slot === undefined) return;
      const g = this.grads[slot]!;
      for (let i = 0; i < m * T; i++) {
        const row = Number(ids[r0 * T + i]!) * C;
        for (let k = 0; k < C; k++) g[row + k]! += dx[i * C + k]!;
      }
    };
    scatter(names.embed, tokens);
    if (names.positionTable && positions) scatter(names.positionTable, positions);
  }

  async release(): Promise<void> {
    await this.blockForward.release();
    await this.blockBackward.release();
    await this.head.release();
  }
}

const EMPTY = new Float32Array(0);

function addInto(sum: Float32Array, part: Float32Array): void {
  for (let i = 0; i < sum.length; i++) sum[i]! += part[i]!;
}

/**
 * log pi(target) at every position [B, T], in segments: micro-batches of rows through the
 * blocks (no backward, so nothing kept), the head over chunks of tokens. For pi_old and pi_ref
 * where the one-graph pass's logits would not fit. `weights`: the stores to read, trainable
 * first (pi_ref's copy of them), as SegmentedModel's.
 */
export class SegmentedLogProbs {
  private constructor(
    private readonly segments: Segments,
    private readonly blockForward: Session,
    private readonly head: Session,
    private readonly perToken: ReadonlySet<string>,
    private readonly options: SegmentOptions,
  ) {}

  static async create(model: SegmentedModel, buildLogProbs: (source: LogitsSource) => { graph: Graph; logProb: Tensor }, options: SegmentOptions): Promise<SegmentedLogProbs> {
    const segments = new Segments(model);
    const forward = segments.blockGraph();
    const blockForward = await Session.create(forward.g, { hidden_out: forward.out }, sessionOptions(options.compute));
    const built = buildLogProbs(segments.headSource());
    const head = await Session.create(built.graph, { logp: built.logProb }, sessionOptions(options.compute));
    return new SegmentedLogProbs(segments, blockForward, head, perTokenInputs(head), options);
  }

  async run(feeds: Readonly<Record<string, Feed>>): Promise<{ logp: Float32Array }> {
    const { segments } = this;
    const c = segments.model.config;
    const C = c.width;
    const tokens = asDims(feeds.tokens!);
    const [B, T] = tokens.dims as [number, number];
    const logp = new Float32Array(B * T);
    const positions = feeds[ROW_POSITIONS] ? (asDims(feeds[ROW_POSITIONS]).data as BigInt64Array) : undefined;
    const headWeights = segments.headFeeds();
    for (let r0 = 0; r0 < B; r0 += this.options.microBatch) {
      const m = Math.min(this.options.microBatch, B - r0);
      const rowFeeds = { [ROW_POSITIONS]: rowsOf(feeds[ROW_POSITIONS]!, B, r0, m), [ROW_MASK]: rowsOf(feeds[ROW_MASK]!, B, r0, m) };
      let x: Float32Array = segments.embed(tokens.data as BigInt64Array, positions, r0, m, T);
      for (let l = 0; l < c.layers; l++) x = (await this.blockForward.run({ [HIDDEN]: { data: x, dims: [m, T, C] }, ...rowFeeds, ...segments.blockFeeds(l) })).hidden_out!;
      const at = Int32Array.from({ length: m * T }, (_, i) => i);
      for (let from = 0; from < at.length; from += this.options.headTokens) {
        const n = Math.min(this.options.headTokens, at.length - from);
        const out = await this.head.run({ ...headChunkFeeds(feeds, this.perToken, at, from, n, r0 * T, x, C), ...headWeights });
        logp.set(out.logp!, r0 * T + from);
      }
    }
    return { logp };
  }

  async release(): Promise<void> {
    await this.blockForward.release();
    await this.head.release();
  }
}

const widened = new Float32Array(1);
const widenedBits = new Uint32Array(widened.buffer);

/** One float16 value as a number, through the widening table. */
function halfValue(table: Uint32Array, bits: number): number {
  widenedBits[0] = table[bits]!;
  return widened[0]!;
}
