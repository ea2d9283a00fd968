// Adam's SIMD kernel (wasm-optim.ts) for models whose parameters, gradients and moments do not
// fit one 4 GiB WebAssembly memory (past ~268M parameters: a pretrained model trained in full).
// Where the two moments alone fit (up to ~530M parameters, Qwen2.5-0.5B trained in full), they
// live in the kernel's memory and only the parameters and gradients stream through it:
//
//   P [W] | G [W] | M [n] | V [n]        W = WINDOW floats, n = every parameter, block-padded
//
// load() copies each gradient window in and sums its squares (the norm, before any update);
// update() copies a window of the parameters and gradients in, runs the kernel on the moments
// where they lie, and copies the parameters out: four copies of a float a step. Past that size
// the moments stay in ordinary arrays and stream too (M and V become windows): eight copies.
// Measured on the full fine-tuning step at Qwen2.5-0.5B's shape (387M parameters with a 32k
// vocabulary, `RLX_BENCH_CASES=full npm run bench -- pretrained`), Adam took 4.67 s of a 17.4 s
// step with every moment streamed, 1.61 s with them resident (the bench's "rlx part: Adam" row).
//
// Each element's update depends on nothing else, so the parameters and moments have the
// resident kernel's (and the JS loop's) bits either way; the norm adds the same squares in other
// runs of float32, within 1e-6 of gradNorm, as the resident kernel's does.
import { BLOCK, MAX_WASM_PAGES, adamKernel, type AdamCoefficients, type AdamKernel } from './wasm-optim.js';

/** Floats per window: a whole number of the kernel's blocks; 1 MiB a region. */
export const WINDOW = 1 << 18;
const PAGE_FLOATS = 65536 / 4;

/** Where the moments live: in the kernel's memory (each tensor from a block boundary), or apart. */
type Moments = { readonly resident: true; readonly offsets: readonly number[]; readonly floats: number } | { readonly resident: false };

export class StreamingAdam {
  readonly m: Float32Array[];
  readonly v: Float32Array[];
  private readonly regions: { readonly p: Float32Array; readonly g: Float32Array; readonly m: Float32Array; readonly v: Float32Array };

  private constructor(
    private readonly kernel: AdamKernel,
    memory: Float32Array,
    lengths: readonly number[],
    private readonly moments: Moments,
  ) {
    const region = (start: number, n: number) => memory.subarray(start, start + n);
    if (moments.resident) {
      const [m, v] = [region(2 * WINDOW, moments.floats), region(2 * WINDOW + moments.floats, moments.floats)];
      this.regions = { p: region(0, WINDOW), g: region(WINDOW, WINDOW), m, v };
      this.m = lengths.map((len, i) => m.subarray(moments.offsets[i]!, moments.offsets[i]! + len));
      this.v = lengths.map((len, i) => v.subarray(moments.offsets[i]!, moments.offsets[i]! + len));
    } else {
      this.regions = { p: region(0, WINDOW), g: region(WINDOW, WINDOW), m: region(2 * WINDOW, WINDOW), v: region(3 * WINDOW, WINDOW) };
      this.m = lengths.map((n) => new Float32Array(n));
      this.v = lengths.map((n) => new Float32Array(n));
    }
  }

  /**
   * null where WebAssembly SIMD is missing. `residentMoments: false` streams the moments even
   * where they would fit (the tests compare both layouts).
   */
  static create(lengths: readonly number[], options: { readonly residentMoments?: boolean } = {}): StreamingAdam | null {
    const offsets: number[] = [];
    let padded = 0;
    for (const len of lengths) {
      offsets.push(padded);
      padded += padTo(len);
    }
    const residentPages = Math.ceil((2 * WINDOW + 2 * padded) / PAGE_FLOATS);
    const resident = options.residentMoments !== false && residentPages <= MAX_WASM_PAGES;
    const made = adamKernel(resident ? residentPages : (4 * WINDOW) / PAGE_FLOATS);
    if (made === null) return null;
    return new StreamingAdam(made.kernel, made.memory, lengths, resident ? { resident: true, offsets, floats: padded } : { resident: false });
  }

  /** Whether the moments live in the kernel's memory (four copies a step, not eight). */
  get residentMoments(): boolean {
    return this.moments.resident;
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
    const moments = this.moments;
    params.forEach((param, i) => {
      const [grad, m, v] = [grads[i]!, this.m[i]!, this.v[i]!];
      forWindows(param.length, (start, length, padded) => {
        const end = start + length;
        r.p.set(param.subarray(start, end));
        r.g.set(grad.subarray(start, end));
        // A zero gradient and zero moments move the padding's parameters by 0: nothing else is
        // read. Resident moments keep their padding at 0 (each tensor's region is padded).
        r.p.fill(0, length, padded);
        r.g.fill(0, length, padded);
        let [mAt, vAt] = [r.m.byteOffset, r.v.byteOffset];
        if (moments.resident) {
          mAt += 4 * (moments.offsets[i]! + start);
          vAt += 4 * (moments.offsets[i]! + start);
        } else {
          r.m.set(m.subarray(start, end));
          r.v.set(v.subarray(start, end));
          r.m.fill(0, length, padded);
          r.v.fill(0, length, padded);
        }
        this.kernel.adam(r.p.byteOffset, r.g.byteOffset, mAt, vAt, 4 * padded, b1, 1 - b1, b2, 1 - b2, stepSize, invSqrtBc2, eps, gradScale);
        param.set(r.p.subarray(0, length), start);
        if (!moments.resident) {
          m.set(r.m.subarray(0, length), start);
          v.set(r.v.subarray(0, length), start);
        }
      });
    });
  }
}

/** n floats rounded up to whole kernel blocks. */
function padTo(n: number): number {
  return Math.ceil(n / BLOCK) * BLOCK;
}

/** Calls `each(start, length, padded)` per window of an array of n floats; padded rounds length up to whole blocks. */
function forWindows(n: number, each: (start: number, length: number, padded: number) => void): void {
  for (let start = 0; start < n; start += WINDOW) {
    const length = Math.min(WINDOW, n - start);
    each(start, length, padTo(length));
  }
}
