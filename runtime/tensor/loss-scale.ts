// Dynamic loss scaling for float16 gradient steps, as torch.cuda.amp.GradScaler does it: the
// backward pass starts from `scale` instead of 1 (GradientParts' `lossScale` input), so that small
// gradients do not vanish in float16; the optimiser divides the gradients by the scale again
// (Adam's `gradScale`). A step whose gradients are not finite overflowed float16: it is skipped
// (the weights and Adam's moments stay as they were) and the scale halves; after `growthInterval`
// finite steps in a row the scale doubles, to find the largest scale that does not overflow.

/** GradScaler's defaults: 2^16 to start, x0.5 on overflow, x2 after 2000 good steps. */
export const LOSS_SCALE_DEFAULTS = { initScale: 2 ** 16, growthFactor: 2, backoffFactor: 0.5, growthInterval: 2000 } as const;

/** Below this the scale is not halved further: a step that overflows at 2^-24 overflows in float32 too. */
const MIN_SCALE = 2 ** -24;

/** A loss scale's checkpointed state. */
export interface LossScaleState {
  readonly scale: number;
  /** Finite steps since the scale last changed. */
  readonly goodSteps: number;
}

export interface LossScalerOptions {
  readonly initScale?: number;
  readonly growthFactor?: number;
  readonly backoffFactor?: number;
  readonly growthInterval?: number;
}

export class LossScaler {
  private current: number;
  private good = 0;
  /** Steps skipped because their gradients were not finite, since the scaler was made. */
  skipped = 0;
  private readonly growthFactor: number;
  private readonly backoffFactor: number;
  private readonly growthInterval: number;
  /** The feed of the graph's scale input: one float32, rewritten when the scale changes. */
  readonly feed = new Float32Array(1);

  constructor(options: LossScalerOptions = {}) {
    const o = { ...LOSS_SCALE_DEFAULTS, ...options };
    if (!(o.initScale > 0) || !(o.growthFactor > 1) || !(o.backoffFactor > 0 && o.backoffFactor < 1) || !(Number.isInteger(o.growthInterval) && o.growthInterval >= 1)) {
      throw new Error(`LossScaler: invalid options ${JSON.stringify(options)}`);
    }
    this.current = o.initScale;
    this.growthFactor = o.growthFactor;
    this.backoffFactor = o.backoffFactor;
    this.growthInterval = o.growthInterval;
    this.feed[0] = this.current;
  }

  /** What the loss is multiplied by in the backward pass, and the gradients carry. */
  get scale(): number {
    return this.current;
  }

  /** Whether the scale is as small as it goes: a step that overflows here overflows for a reason scaling cannot fix. */
  get exhausted(): boolean {
    return this.current <= MIN_SCALE;
  }

  /** After a step: `finite` whether its gradients were (the step was taken); returns whether it was skipped. */
  update(finite: boolean): boolean {
    if (finite) {
      this.good += 1;
      if (this.good >= this.growthInterval) {
        const grown = this.current * this.growthFactor;
        // float32 must hold the scale, and a gradient times it.
        if (Number.isFinite(Math.fround(grown))) this.set(grown);
        this.good = 0;
      }
      return false;
    }
    this.skipped += 1;
    this.good = 0;
    this.set(Math.max(this.current * this.backoffFactor, MIN_SCALE));
    return true;
  }

  state(): LossScaleState {
    return { scale: this.current, goodSteps: this.good };
  }

  load(state: LossScaleState): void {
    if (!(Number.isFinite(state.scale) && state.scale > 0) || !(Number.isSafeInteger(state.goodSteps) && state.goodSteps >= 0)) {
      throw new Error(`LossScaler.load: a scale > 0 and a count of good steps >= 0 are needed, got ${JSON.stringify(state)}`);
    }
    this.set(state.scale);
    this.good = state.goodSteps;
  }

  private set(scale: number): void {
    this.current = scale;
    this.feed[0] = scale;
  }
}
