// One gradient step's computation for any algorithm: the loss, the gradient of every weight,
// and the step's scalar metrics, from one set of feeds (a minibatch).
//
// The loss is given as parts over disjoint weight sets (an actor's term and a critic's
// term, say); each part is its own model, and with `compute.threads` the parts after the
// first run on worker threads at the same time as the first (gradient-parts.ts says why and
// when that pays). A loss over shared weights is one part. Each part also outputs its loss
// and its metrics packed into one vector: an output costs ~3 us in onnxruntime's bindings.
import type { Compute } from './compute.js';
import type { GradientHandover } from './gradient-handover.js';
import { optimizerThreadsFor } from './optimizer-threads.js';
import { GradientParts, LOSS_SCALE, type GradientPart, type ThreadStats } from './gradient-parts.js';
import { LossScaler } from './loss-scale.js';
import type { Graph } from './graph.js';
import type { WeightStore } from './weights.js';
import type { Feed } from './session.js';
import type { Tensor } from './tensor.js';

export interface StepPart {
  /** The part's scalar loss; the step's loss is the sum of the parts. */
  readonly loss: Tensor;
  /** The weights this part differentiates: every weight of the store in exactly one part, or frozen. */
  readonly weights: readonly string[];
  /** Scalar metrics computed with this part's model, by name (unique across parts). */
  readonly metrics?: Readonly<Record<string, Tensor>>;
}

export interface GradientStepOptions {
  /** The weights, fed at each run; the optimiser updates them in place. */
  readonly weights: WeightStore;
  readonly compute: Compute;
  /** The largest size of each symbolic input dim (needed with threads), e.g. { B: 256 }. */
  readonly dimLimits?: Readonly<Record<string, number>>;
  /** Weights of the store this step does not train: no part lists them, their gradient is zero. */
  readonly frozen?: readonly string[];
  /** Weights the graph reads but never trains, outside `weights`: fed on the CPU, baked on a GPU (GradientParts' `fed`). */
  readonly fed?: WeightStore;
  /** The step's ops are large (a transformer's): onnxruntime splits each across compute.opThreads threads. */
  readonly largeOps?: boolean;
  /** GradientParts' gradientPieces (a step of one part): by default as many as Adam on `weights` has threads. */
  readonly gradientPieces?: number;
}

/** One step's numbers; the arrays are valid until the next run. */
export interface StepResult {
  readonly loss: number;
  /** d loss / d weight for every weight of the store, in the store's order. */
  readonly grads: Float32Array[];
  /** The metrics, in the order of `GradientStep.metricNames`. */
  readonly metrics: Float64Array;
  /** The factor the gradients carry (a float16 step's loss scale): the optimiser divides by it (Adam's gradScale); absent: 1. */
  readonly gradScale?: number;
  /** The buffers `grads` are views of, lent to the optimiser until the next run (Adam's handover; gradient-handover.ts). */
  readonly handover?: GradientHandover;
}

export class GradientStep {
  private readonly result: { loss: number; grads: Float32Array[]; metrics: Float64Array; gradScale?: number; handover?: GradientHandover };

  private constructor(
    private readonly parts: GradientParts,
    /** A float16 step's loss scale (compute.precision fp16); null in float32. */
    readonly lossScaler: LossScaler | null,
    /** Every metric's name, in the order of StepResult.metrics. */
    readonly metricNames: readonly string[],
    /** Per part: its output, and the index in metricNames of each value after its loss. */
    private readonly layout: readonly { readonly output: string; readonly slots: readonly number[] }[],
  ) {
    this.result = { loss: 0, grads: [], metrics: new Float64Array(metricNames.length) };
  }

  static async create(graph: Graph, parts: readonly StepPart[], options: GradientStepOptions): Promise<GradientStep> {
    const metricNames = parts.flatMap((p) => Object.keys(p.metrics ?? {}));
    const duplicate = metricNames.find((name, i) => metricNames.indexOf(name) !== i);
    if (duplicate) throw new Error(`GradientStep: metric '${duplicate}' is computed by two parts`);
    const layout = parts.map((p, i) => ({ output: `part${i}`, slots: Object.keys(p.metrics ?? {}).map((m) => metricNames.indexOf(m)) }));
    const gradientParts = parts.map((p, i): GradientPart => {
      const scalars = [p.loss, ...Object.values(p.metrics ?? {})].map((x) => graph.unsqueeze(x, [0]));
      return { loss: p.loss, weights: p.weights, extras: { [layout[i]!.output]: graph.concat(scalars, 0) } };
    });
    const compiled = await GradientParts.create(graph, gradientParts, {
      weights: options.weights,
      providers: options.compute.providers,
      threads: options.compute.threads,
      dimLimits: options.dimLimits,
      frozen: options.frozen,
      fed: options.fed,
      intraOpThreads: options.largeOps ? options.compute.opThreads : 1,
      precision: options.compute.precision,
      // As many pieces as Adam on these weights has threads: its workers copy them in (gradient-handover.ts).
      gradientPieces: options.gradientPieces ?? optimizerThreadsFor(options.weights.size),
    });
    return new GradientStep(compiled, options.compute.precision === 'fp16' ? new LossScaler() : null, metricNames, layout);
  }

  /** Whether the parts run on worker threads. */
  get threaded(): boolean {
    return this.parts.threaded;
  }

  /** How the worker threads' parts were computed (the bench prints it). */
  get threadStats(): ThreadStats {
    return this.parts.threadStats;
  }

  /**
   * Readies sleeping worker threads for the run() that follows a pause (a rollout): call it
   * a few hundred microseconds before, e.g. before a value pass.
   */
  wake(): void {
    this.parts.wake();
  }

  async run(feeds: Readonly<Record<string, Feed>>): Promise<StepResult> {
    // A copy with the scale (a learner may change its feeds object between runs): microseconds against a transformer's step.
    const { grads, extras, handover } = await this.parts.run(this.lossScaler ? { ...feeds, [LOSS_SCALE]: this.lossScaler.feed } : feeds);
    const result = this.result;
    result.handover = handover;
    if (this.lossScaler) result.gradScale = this.lossScaler.scale;
    result.loss = 0;
    for (const { output, slots } of this.layout) {
      const vector = extras[output]!;
      result.loss += vector[0]!;
      for (let k = 0; k < slots.length; k++) result.metrics[slots[k]!] = vector[k + 1]!;
    }
    result.grads = grads;
    return result;
  }

  release(): Promise<void> {
    return this.parts.release();
  }
}
