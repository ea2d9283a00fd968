// Optimisers over Float32Array parameter buffers, updated in place. Adam computes in float32
// as torch does (a WebAssembly SIMD kernel, wasm-optim.ts, or the JS loop below where SIMD is
// missing: the same bits, but for an ulp where a clipping factor rounds differently); SGD and
// the gradient norm compute in float64. Learning-rate schedules belong to the caller: pass the
// rate to step() or set `lr` before it. Past a million parameters Adam's kernel runs on worker
// threads as well (parallel-adam.ts; the same bits): release() ends them.

import type { WeightStore } from './weights.js';
import type { GradientHandover } from './gradient-handover.js';
import { WasmAdam, type AdamCoefficients } from './wasm-optim.js';
import { ParallelAdam } from './parallel-adam.js';
import { optimizerThreadsFor } from './optimizer-threads.js';
import { StreamingAdam } from './streaming-adam.js';

type ParamList = readonly Float32Array[] | WeightStore;

function arrays(params: ParamList): Float32Array[] {
  return Array.isArray(params) ? [...params] : (params as WeightStore).values;
}

function checkGrads(where: string, params: readonly Float32Array[], grads: readonly Float32Array[]): void {
  if (grads.length !== params.length) throw new Error(`${where}: ${grads.length} gradients for ${params.length} parameters`);
  grads.forEach((g, i) => {
    if (g.length !== params[i]!.length) throw new Error(`${where}: gradient ${i} has ${g.length} elements, parameter has ${params[i]!.length}`);
  });
}

function copyState(where: string, target: Float32Array[], source: readonly Float32Array[]): void {
  if (source.length !== target.length) throw new Error(`${where}: state has ${source.length} buffers, optimiser has ${target.length}`);
  source.forEach((s, i) => {
    if (s.length !== target[i]!.length) throw new Error(`${where}: state buffer ${i} has ${s.length} elements, expected ${target[i]!.length}`);
    target[i]!.set(s);
  });
}

/** The global L2 norm of all gradients together. */
export function gradNorm(grads: readonly Float32Array[]): number {
  let sum = 0;
  for (const g of grads) for (let i = 0; i < g.length; i++) sum += g[i]! * g[i]!;
  return Math.sqrt(sum);
}

/**
 * Scales all gradients in place so their global norm is at most `maxNorm` (as PyTorch's
 * clip_grad_norm_, including its 1e-6 guard) and returns the norm before clipping.
 */
export function clipGradNorm(grads: readonly Float32Array[], maxNorm: number): number {
  const norm = gradNorm(grads);
  const scale = clipFactor(norm, maxNorm);
  if (scale < 1) for (const g of grads) for (let i = 0; i < g.length; i++) g[i] = g[i]! * scale;
  return norm;
}

/** What clip_grad_norm_ multiplies gradients of norm `norm` by: at most 1, exactly 1 without a limit. */
function clipFactor(norm: number, maxNorm: number | undefined): number {
  if (maxNorm === undefined) return 1;
  const scale = maxNorm / (norm + 1e-6);
  return scale < 1 ? scale : 1;
}

export interface AdamOptions {
  readonly lr?: number;
  readonly beta1?: number;
  readonly beta2?: number;
  /** 1e-8 by default; CleanRL's PPO uses 1e-5. */
  readonly eps?: number;
  /** false forces the JS loop even where WebAssembly SIMD is available (tests, benchmarks). */
  readonly simd?: boolean;
  /**
   * true streams the kernel through small windows (streaming-adam.ts) whatever the model's size,
   * as it runs where the model does not fit its memory (tests, benchmarks); 'moments too'
   * streams the moments as well, as it does where even they do not fit.
   */
  readonly streamed?: boolean | 'moments too';
  /**
   * Threads the SIMD kernel splits each step across (parallel-adam.ts), the calling one
   * included; the results are the same bits for any count. Default: optimizerThreadsFor(), by
   * the parameter count and the cores (1, the plain kernel, for small models).
   */
  readonly threads?: number;
}

export interface AdamStepOptions {
  /** Clip the gradients' global L2 norm to this first, as clipGradNorm (the arrays are not modified). */
  readonly maxGradNorm?: number;
  /**
   * The factor the gradients carry: a float16 step's loss scale (loss-scale.ts). They are divided
   * by it (in the same float32 factor as the clipping, the arrays not modified), the norm returned
   * and clipped is theirs after the division, and a step whose gradients are not all finite is
   * skipped: weights, moments and step count stay as they were, and the norm returned is not finite.
   */
  readonly gradScale?: number;
  /**
   * The gradients are views of these pieces, lent for the step (gradient-handover.ts): Adam on
   * worker threads has them copy the pieces in and gives them back before step() returns; the
   * arrays passed as `grads` are then detached. Ignored on one thread (the views are read as
   * they are) and where the gradients are not views of the pieces.
   */
  readonly handover?: GradientHandover;
}

export interface AdamState {
  readonly step: number;
  readonly m: readonly Float32Array[];
  readonly v: readonly Float32Array[];
}

/** Adam with bias correction, the same update as torch.optim.Adam (no weight decay), in float32. */
export class Adam {
  lr: number;
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  private readonly params: Float32Array[];
  private readonly kernel: WasmAdam | ParallelAdam | StreamingAdam | null;
  /** Per parameter; views into the kernel's memory when it runs. */
  private readonly m: Float32Array[];
  private readonly v: Float32Array[];
  private t = 0;

  constructor(params: ParamList, options: AdamOptions = {}) {
    this.params = arrays(params);
    this.lr = options.lr ?? 1e-3;
    this.beta1 = options.beta1 ?? 0.9;
    this.beta2 = options.beta2 ?? 0.999;
    this.eps = options.eps ?? 1e-8;
    const lengths = this.params.map((p) => p.length);
    this.kernel = options.simd === false ? null : options.streamed ? StreamingAdam.create(lengths, { residentMoments: options.streamed !== 'moments too' }) : createKernel(lengths, options.threads);
    this.m = this.kernel?.m ?? this.params.map((p) => new Float32Array(p.length));
    this.v = this.kernel?.v ?? this.params.map((p) => new Float32Array(p.length));
  }

  get stepCount(): number {
    return this.t;
  }

  /** Whether steps run in the WebAssembly SIMD kernel (else the JS loop). */
  get simd(): boolean {
    return this.kernel !== null;
  }

  /** Threads a step runs on: more than 1 only with the SIMD kernel on worker threads. */
  get threads(): number {
    return this.kernel instanceof ParallelAdam ? this.kernel.threads : 1;
  }

  /**
   * Ends the optimiser's worker threads, if any (steps then run on the calling thread, with the
   * same results). Idle workers never keep the process alive, and end when the optimiser is
   * garbage-collected; this ends them now.
   */
  release(): void {
    if (this.kernel instanceof ParallelAdam) this.kernel.release();
  }

  /**
   * One update with `grads` in parameter order; `lr` overrides the rate for this step and after.
   * With `maxGradNorm`, the gradients are first scaled as clipGradNorm would (PyTorch's
   * clip_grad_norm_, one float32 factor), without modifying them. Returns the gradients' global
   * L2 norm before any clipping, with or without maxGradNorm (it costs ~0.5 us for 10k
   * gradients in the kernel, and callers log it). The JS loop returns gradNorm's float64 value;
   * the kernel sums squares in short float32 runs, within 1e-6 of it.
   */
  step(grads: readonly Float32Array[], lr: number = this.lr, options: AdamStepOptions = {}): number {
    checkGrads('Adam.step', this.params, grads);
    this.lr = lr;
    const carried = options.gradScale ?? 1;
    const norm = (this.kernel ? this.kernel.load(this.params, grads, options.handover) : gradNorm(grads)) / carried;
    if (options.gradScale !== undefined && !Number.isFinite(norm)) return norm;
    this.t += 1;
    const { beta1, beta2, eps } = this;
    const k: AdamCoefficients = {
      beta1,
      beta2,
      eps,
      stepSize: lr / (1 - beta1 ** this.t),
      invSqrtBc2: 1 / Math.sqrt(1 - beta2 ** this.t),
    };
    const scale = clipFactor(norm, options.maxGradNorm) / carried;
    if (this.kernel instanceof StreamingAdam) this.kernel.update(this.params, grads, k, scale);
    else if (this.kernel) this.kernel.update(this.params, k, scale);
    else for (let i = 0; i < this.params.length; i++) adamUpdate(this.params[i]!, grads[i]!, this.m[i]!, this.v[i]!, k, scale);
    return norm;
  }

  /** A copy of the moment estimates and step count, for checkpoints. */
  state(): AdamState {
    return { step: this.t, m: this.m.map((a) => a.slice()), v: this.v.map((a) => a.slice()) };
  }

  load(state: AdamState): void {
    copyState('Adam.load (m)', this.m, state.m);
    copyState('Adam.load (v)', this.v, state.v);
    this.t = state.step;
    // A checkpoint's weights come with its state: whatever wrote them, copy them in afresh.
    if (this.kernel instanceof ParallelAdam) this.kernel.forgetParams();
  }
}

/**
 * The SIMD kernel on `threads` threads (by default as optimizerThreadsFor chooses), streamed
 * through windows where the model is too big for its memory, or null without WebAssembly SIMD.
 */
function createKernel(lengths: readonly number[], threads?: number): WasmAdam | ParallelAdam | StreamingAdam | null {
  const n = lengths.reduce((a, b) => a + b, 0);
  const wanted = threads ?? optimizerThreadsFor(n);
  if (!Number.isInteger(wanted) || wanted < 1) throw new Error(`Adam: threads must be a whole number of at least 1, got ${wanted}`);
  return (wanted > 1 ? ParallelAdam.create(lengths, wanted) : null) ?? WasmAdam.create(lengths) ?? StreamingAdam.create(lengths);
}

const f32 = Math.fround;

/**
 * The fallback: the kernel's operations in the kernel's order, each rounded to float32 (a float32
 * op done in float64 and rounded once is correctly rounded), so it gives the kernel's bits.
 */
function adamUpdate(p: Float32Array, g: Float32Array, m: Float32Array, v: Float32Array, k: AdamCoefficients, scale: number): void {
  const [b1, c1, b2, c2] = [f32(k.beta1), f32(1 - k.beta1), f32(k.beta2), f32(1 - k.beta2)];
  const [stepSize, invSqrtBc2, eps, gs] = [f32(k.stepSize), f32(k.invSqrtBc2), f32(k.eps), f32(scale)];
  const n = p.length;
  // A plain loop with every constant hoisted: this runs once per minibatch over every
  // parameter, and a closure per array made it ~1.5x slower (PPO's update, bench/ppo.ts).
  for (let i = 0; i < n; i++) {
    const gi = f32(g[i]! * gs);
    const mi = f32(f32(b1 * m[i]!) + f32(c1 * gi));
    const vi = f32(f32(b2 * v[i]!) + f32(f32(c2 * gi) * gi));
    m[i] = mi;
    v[i] = vi;
    p[i] = p[i]! - f32(f32(stepSize * mi) / f32(f32(f32(Math.sqrt(vi)) * invSqrtBc2) + eps));
  }
}

export interface SGDOptions {
  readonly lr?: number;
  /** 0 (plain SGD) by default. */
  readonly momentum?: number;
  readonly nesterov?: boolean;
}

export interface SGDState {
  readonly step: number;
  readonly momentum: readonly Float32Array[];
}

/** SGD with optional (Nesterov) momentum, the same update as torch.optim.SGD without dampening. */
export class SGD {
  lr: number;
  readonly momentum: number;
  readonly nesterov: boolean;
  private readonly params: Float32Array[];
  private readonly buffers: Float32Array[];
  private t = 0;

  constructor(params: ParamList, options: SGDOptions = {}) {
    this.params = arrays(params);
    this.lr = options.lr ?? 1e-2;
    this.momentum = options.momentum ?? 0;
    this.nesterov = options.nesterov ?? false;
    this.buffers = this.params.map((p) => new Float32Array(p.length));
  }

  get stepCount(): number {
    return this.t;
  }

  step(grads: readonly Float32Array[], lr: number = this.lr): void {
    checkGrads('SGD.step', this.params, grads);
    this.lr = lr;
    const mu = this.momentum;
    const first = this.t === 0;
    this.t += 1;
    this.params.forEach((p, k) => {
      const g = grads[k]!;
      const buf = this.buffers[k]!;
      for (let i = 0; i < p.length; i++) {
        let d = g[i]!;
        if (mu !== 0) {
          // torch starts the buffer at the first gradient rather than at zero.
          const b = first ? d : mu * buf[i]! + d;
          buf[i] = b;
          d = this.nesterov ? d + mu * b : b;
        }
        p[i] = p[i]! - lr * d;
      }
    });
  }

  state(): SGDState {
    return { step: this.t, momentum: this.buffers.map((a) => a.slice()) };
  }

  load(state: SGDState): void {
    copyState('SGD.load', this.buffers, state.momentum);
    this.t = state.step;
  }
}
