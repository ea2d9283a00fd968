// Adam's SIMD kernel (wasm-optim.ts) for models whose parameters, gradients and moments do not
// fit one 4 GiB WebAssembly memory (past ~268M parameters: a pretrained model trained in full).
// The moments stay in ordinary arrays, as the JS loop keeps them, and each step streams the
// arrays through a small kernel memory a window at a time:
//
//   P [W] | G [W] | M [W] | V [W]        W = WINDOW floats
//
// load() copies each gradient window in and sums its squares (the norm, before any update);
// update() copies a window of each of the four in, runs the kernel, and copies the parameters
// and moments out. That is eight copies of a float a step where the resident kernel makes two,
// but no memory beyond the 16 MiB windows, where resident copies of the parameters and
// gradients would add 8 bytes a parameter (4 GiB at 0.5B). Measured on our 2-core machine
// under load, 40M parameters: 25-29 ns a parameter streamed, 16 resident, 100-121 for the JS
// loop (`npm run bench -- optim` prints a step of each; at 118M, 1.1-2.9 s against 5.7-11.9).
//
// Each element's update depends on nothing else, so the parameters and moments have the
// resident kernel's (and the JS loop's) bits; the norm adds the same squares in other runs of
// float32, within 1e-6 of gradNorm, as the resident kernel's does.
import { BLOCK, adamKernel, type AdamCoefficients, type AdamKernel } from './wasm-optim.js';

/** Floats per window: a whole number of the kernel's blocks; 1 MiB a region. */
export const WINDOW = 1 << 18;
const WINDOW_PAGES = (4 * WINDOW * 4) / 65536;

export class StreamingAdam {
  readonly m: Float32Array[];
  readonly v: Float32Array[];
  private readonly regions: { readonly p: Float32Array; readonly g: Float32Array; readonly m: Float32Array; readonly v: Float32Array };

  private constructor(
    private readonly kernel: AdamKernel,
    memory: Float32Array,
    lengths: readonly number[],
  ) {
    this.m = lengths.map((n) => new Float32Array(n));
    this.v = lengths.map((n) => new Float32Array(n));
    const region = (k: number) => memory.subarray(k * WINDOW, (k + 1) * WINDOW);
    this.regions = { p: region(0), g: region(1), m: region(2), v: region(3) };
  }

  /** null where WebAssembly SIMD is missing. */
  static create(lengths: readonly number[]): StreamingAdam | null {
    const made = adamKernel(WINDOW_PAGES);
    return made === null ? null : new StreamingAdam(made.kernel, made.memory, lengths);
  }

  /** The gradients' global L2 norm (the gradients are not modified). */
  load(params: readonly Float32Array[], grads: readonly Float32Array[]): number {
    void params; // copied in by update(), window by window
    const { g } = this.regions;
    let sum = 0;
    for (const grad of grads)
      forWindows(grad.length, (start, length, padded) => {
        g.set(grad.subarray(start, start + length));
        g.fill(0, length, padded);
        sum += this.kernel.sumsq(g.byteOffset, 4 * padded);
      });
    return Math.sqrt(sum);
  }

  /** One Adam update of `params` with `grads` (as given to load) times `gradScale`. */
  update(params: readonly Float32Array[], grads: readonly Float32Array[], k: AdamCoefficients, gradScale: number): void {
    const r = this.regions;
    const { beta1: b1, beta2: b2, eps, stepSize, invSqrtBc2 } = k;
    params.forEach((param, i) => {
      const [grad, m, v] = [grads[i]!, this.m[i]!, this.v[i]!];
      forWindows(param.length, (start, length, padded) => {
        const end = start + length;
        r.p.set(param.subarray(start, end));
        r.g.set(grad.subarray(start, end));
        r.m.set(m.subarray(start, end));
        r.v.set(v.subarray(start, end));
        // A zero gradient and zero moments move the padding's parameters by 0: nothing else is read.
        for (const region of [r.p, r.g, r.m, r.v]) region.fill(0, length, padded);
        this.kernel.adam(r.p.byteOffset, r.g.byteOffset, r.m.byteOffset, r.v.byteOffset, 4 * padded, b1, 1 - b1, b2, 1 - b2, stepSize, invSqrtBc2, eps, gradScale);
        param.set(r.p.subarray(0, length), start);
        m.set(r.m.subarray(0, length), start);
        v.set(r.v.subarray(0, length), start);
      });
    });
  }
}

/** Calls `each(start, length, padded)` per window of an array of n floats; padded rounds length up to whole blocks. */
function forWindows(n: number, each: (start: number, length: number, padded: number) => void): void {
  for (let start = 0; start < n; start += WINDOW) {
    const length = Math.min(WINDOW, n - start);
    each(start, length, Math.ceil(length / BLOCK) * BLOCK);
  }
}
