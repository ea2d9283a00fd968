// One gradient step of any learner, checked: run the gradient session, check that its loss and
// metrics are finite, clip the gradients to their global norm and take the optimiser's step,
// check that the gradients' norm was finite; and, once per update, that the weights still are.
// A NaN or an infinity there ruins the weights for good, and every later update with them,
// so the step stops the run at once with a DivergedError naming the learner and its step: a
// NonFiniteError, to which the trainer adds the steps trained and the last good checkpoint
// (every checkpoint it kept was written before the step, and no later one is).
//
// Non-finite observations and rewards are caught earlier, where they come from (stepper.ts);
// what reaches this step is the update itself diverging, or a weight that is not finite.
//
// Why the weights are scanned once per update (DQN and SAC: once per iterate()), not after
// every step: a step with a finite gradient norm and a finite learning rate moves each weight
// by a bounded amount, so finite weights stay finite; and a scan (1.5-3 ns a weight, ~0.5 ms
// for SAC's 200k, on 2 loaded cores) after each of SAC's steps would cost several percent. The
// trainer writes checkpoints only between iterate() calls, after the scan.
import type { Feed, GradientHandover, LossScaler, StepResult, WeightStore } from '../tensor/index.js';
import { NonFiniteError } from './stepper.js';

/** A learner's update diverged: a loss, a gradient or a weight is no longer finite. */
export class DivergedError extends NonFiniteError {
  override name = 'DivergedError';
}

/** What computes a step's loss, metrics and gradients: a GradientStep, or any session alike. */
export interface GradientRun {
  /** The metrics' names, in the order of StepResult.metrics. */
  readonly metricNames: readonly string[];
  /** A float16 step's loss scale (GradientStep's): told after each step whether its gradients were finite. */
  readonly lossScaler?: LossScaler | null;
  run(feeds: Readonly<Record<string, Feed>>): Promise<StepResult>;
}

/** The optimiser's step (Adam's): updates its weights in place, returns the gradients' global norm before clipping. */
export interface GradientOptimizer {
  step(grads: readonly Float32Array[], lr?: number, options?: { readonly maxGradNorm?: number; readonly gradScale?: number; readonly handover?: GradientHandover }): number;
}

/** Weights by name, as a WeightStore holds them; the arrays are the ones the optimiser updates. */
export type CheckedWeights = Pick<WeightStore, 'names' | 'values'>;

export interface CheckedStepOptions {
  /** The learner, as errors name it ("PPO"). */
  readonly learner: string;
  /** Where the learner is, for errors, read only when one is thrown ("update 3, epoch 2, gradient step 5 of 8"). */
  readonly at: () => string;
  /** What the user may change when it diverges ("try a smaller learning_rate or max_grad_norm"). */
  readonly advice: string;
  /** The weights the optimiser updates. */
  readonly weights: CheckedWeights;
  readonly optimizer: GradientOptimizer;
  /** Clip the gradients' global L2 norm to this before the step; null or absent: no clipping. */
  readonly maxGradNorm?: number | null;
  /**
   * The optimiser's gradients out of the session's (a loss that reads more weights than the
   * optimiser trains gives every weight's); the session's, as they are, by default.
   */
  readonly pick?: (grads: readonly Float32Array[]) => readonly Float32Array[];
}

/** One checked step's numbers, valid until the next step (the arrays are the session's; `grads` only until the optimiser's step where they were handed over to it). */
export interface CheckedResult extends StepResult {
  /** The gradients' global L2 norm before clipping (not finite in a skipped step). */
  readonly gradNorm: number;
  /** A float16 step whose gradients overflowed: the optimiser did not step, and the loss scale halved. */
  readonly skipped: boolean;
}

export class CheckedStep {
  private readonly names: readonly string[];
  private readonly arrays: readonly Float32Array[];
  private readonly clip: { readonly maxGradNorm?: number };
  /** Whether a step moved the weights since they were last scanned. */
  private moved = false;
  /** Reused: a step allocates nothing of its own (PPO takes hundreds per update). */
  private readonly result: { -readonly [K in keyof CheckedResult]: CheckedResult[K] } = { loss: 0, grads: [], metrics: new Float64Array(0), gradNorm: 0, skipped: false };

  /** `session` null: the learner computes its gradients itself and hands them to update(). */
  constructor(
    private readonly session: GradientRun | null,
    private readonly options: CheckedStepOptions,
  ) {
    this.names = options.weights.names;
    this.arrays = options.weights.values;
    this.clip = options.maxGradNorm !== undefined && options.maxGradNorm !== null ? { maxGradNorm: options.maxGradNorm } : {};
  }

  /** Runs the session on `feeds` and takes the checked step; `lr` absent: the optimiser's own rate. */
  async step(feeds: Readonly<Record<string, Feed>>, lr?: number): Promise<CheckedResult> {
    if (this.session === null) throw new Error(`${this.options.learner}: this checked step has no gradient session; call update()`);
    const ran = await this.session.run(feeds);
    const result = this.result;
    result.gradNorm = this.update(ran, lr, this.session.metricNames);
    result.skipped = ran.gradScale !== undefined && !Number.isFinite(result.gradNorm);
    result.loss = ran.loss;
    result.grads = ran.grads;
    result.metrics = ran.metrics;
    return result;
  }

  /**
   * The step on gradients computed elsewhere: checks the metrics (named `metricNames`) and the
   * loss, clips and steps, checks the norm; returns the norm before clipping.
   */
  update(result: StepResult, lr?: number, metricNames: readonly string[] = []): number {
    const { metrics, loss } = result;
    // The metrics first: they name the part of the loss that went wrong.
    for (let k = 0; k < metrics.length; k++) {
      if (!Number.isFinite(metrics[k])) this.diverged(`losses/${metricNames[k] ?? `metric ${k}`} is ${metrics[k]}`);
    }
    // In float16 a product past 65504 is an infinity the loss scale cannot prevent (it scales only the backward pass).
    if (!Number.isFinite(loss)) this.diverged(`the loss is ${loss}${result.gradScale !== undefined ? ' (with precision fp16: a float16 product may have overflowed; precision fp32 may train)' : ''}`);
    const grads = this.options.pick ? this.options.pick(result.grads) : result.grads;
    this.moved = true;
    if (result.gradScale !== undefined) {
      // A float16 step (loss-scale.ts): gradients that overflowed skip the step and halve the scale.
      const norm = this.options.optimizer.step(grads, lr, { ...this.clip, gradScale: result.gradScale, handover: result.handover });
      const scaler = this.session?.lossScaler;
      if (scaler?.update(Number.isFinite(norm)) && scaler.exhausted) {
        this.diverged(`the gradient's norm is ${norm} at the smallest loss scale (${scaler.scale}): it overflows float16 however small the scale; precision fp32 may train`);
      }
      return norm;
    }
    const norm = this.options.optimizer.step(grads, lr, result.handover ? { ...this.clip, handover: result.handover } : this.clip);
    if (!Number.isFinite(norm)) this.diverged(`the gradient's norm is ${norm}`);
    return norm;
  }

  /**
   * precision fp16's metrics for an update's event: `charts/loss_scale` (the scale now) and
   * `charts/skipped_steps` (steps skipped for overflow since the learner began); none in fp32.
   */
  precisionMetrics(): Record<string, number> {
    const scaler = this.session?.lossScaler;
    return scaler ? { 'charts/loss_scale': scaler.scale, 'charts/skipped_steps': scaler.skipped } : {};
  }

  /**
   * Throws when a weight is not finite: call it once an update's steps are taken, at the latest
   * before the learner returns to the trainer (which may checkpoint). Scans only after a step;
   * `at` says where the learner is when that is not what options.at says.
   */
  checkWeights(at: () => string = this.options.at): void {
    if (!this.moved) return;
    const { arrays } = this;
    for (let w = 0; w < arrays.length; w++) {
      const a = arrays[w]!;
      // A sum is finite exactly when every term is: float32 terms cannot overflow a float64 sum.
      let sum = 0;
      for (let i = 0; i < a.length; i++) sum += a[i]!;
      if (!Number.isFinite(sum)) {
        const i = a.findIndex((x) => !Number.isFinite(x));
        this.diverged(`weight ${this.names[w]}[${i}] is ${a[i]}`, at);
      }
    }
    this.moved = false;
  }

  private diverged(what: string, at: () => string = this.options.at): never {
    const { learner, advice } = this.options;
    throw new DivergedError(`${learner}'s update diverged: ${what} (${at()}); ${advice}`);
  }
}
