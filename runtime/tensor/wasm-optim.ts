// Adam (optim.ts) as a WebAssembly SIMD kernel: four float32 lanes per instruction where the
// JS fallback does one element at a time. Same operations in the same order, each rounded to
// float32, so both paths give the same bits (float32 +, -, *, /, sqrt done in float64 and
// rounded once are correctly rounded); Adam falls back to the JS loop where WebAssembly SIMD
// is missing.
//
// The moments live in the kernel's memory for the optimiser's lifetime; each step copies the
// parameters and gradients in and the parameters back out (TypedArray.set: a memcpy, about
// 1 us for 9k parameters), because other code holds the parameter arrays themselves and the
// gradients arrive as views of onnxruntime's (or a worker's shared) buffers. All parameters
// lie end to end in one flat region per quantity:
//
//   P [n] | G [n] | M [n] | V [n]        n = total elements rounded up to a multiple of 16
//
// so one kernel call walks every parameter, 4 vectors per iteration, with no tails. The
// padding is zero in G, M and V and never written from JS: a zero gradient keeps m = v = 0
// and moves p by 0, so the padding stays zero and adds nothing to the norm. Exports (pointers
// and sizes in bytes):
//
//   sumsq(g, bytes) -> f64
//   adam(p, g, m, v, bytes, b1, 1 - b1, b2, 1 - b2, stepSize, invSqrtBc2, eps, gscale)
//   sumsqChunks(g, bytes, out), sumChunks(out, count) -> f64   (sumsq in two, for threads)
//
// Large models run the same kernels on several threads over a shared memory (parallel-adam.ts).
//
// adam uses g * gscale as the gradient: the clipping factor, else 1 (exact). The update is
// bound by the FP multiply pipes and the divider: 8 multiplies, 4 adds, a sqrt and a divide
// per vector, ~2 ns on our machines. (Skipping the multiply by gscale when it is 1 gained
// nothing measurable, nor did broadcasting the constants from memory instead of registers.)

import {
  F32,
  F64,
  I32,
  V128,
  assembleModule,
  compile,
  f32x4Add,
  f32x4Div,
  f32x4Mul,
  f32x4Splat,
  f32x4Sqrt,
  f32x4Sub,
  f64x2Add,
  f64x2ExtractLane,
  f64x2PromoteLow,
  funcBody,
  funcType,
  i8x16Shuffle,
  memoryImport,
  sharedMemoryImport,
  op,
  v128Load,
  v128Store,
  v128Zero,
  wasm,
} from '../wasm/assembler.js';

/** Vectors per loop iteration; the flat regions are padded to UNROLL * 4 floats. */
const UNROLL = 4;
/** Floats per loop iteration: the flat regions' padding. */
export const BLOCK = UNROLL * 4;
const BLOCK_BYTES = BLOCK * 4;
/**
 * Bytes whose squares are summed in float32 before joining the float64 total: each lane of
 * each accumulator adds 16 squares, so the float32 error stays below ~20 ulp (1e-6 relative:
 * the terms are all positive) while the loop costs one multiply and one add per vector.
 * (Promoting every vector to f64x2 was three times slower: 1.3 us for 10k floats, not 0.45.)
 */
export const CHUNK_BYTES = 16 * BLOCK_BYTES;

// ---- kernels ----

/** Swaps the two 8-byte halves, so promote_low reaches lanes 2 and 3. */
const HIGH_TO_LOW = [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7];

/** while (i < end) { body } (the body advances i) */
function whileBelow(i: number, end: number, body: number[]): number[] {
  return [...op.block, ...op.loop, ...op.get(i), ...op.get(end), ...op.ltU, ...op.eqz, ...op.brIf(1), ...body, ...op.br(0), ...op.end, ...op.end];
}

const advance = (i: number): number[] => [...op.get(i), ...op.i32(BLOCK_BYTES), ...op.add, ...op.set(i)];

/**
 * One chunk's squares into X: four f32x4 accumulators over [i, min(i + CHUNK_BYTES, bytes)),
 * joined as (a0 + a1) + (a2 + a3). Locals: G, BYTES, I, END, X, then the UNROLL accumulators.
 */
function chunkSquares(G: number, BYTES: number, I: number, END: number, X: number): number[] {
  const ACC = X + 1;
  const chunk: number[] = [];
  // end = min(i + CHUNK_BYTES, bytes)
  chunk.push(...op.get(I), ...op.i32(CHUNK_BYTES), ...op.add, ...op.tee(END), ...op.get(BYTES), ...op.get(END), ...op.get(BYTES), ...op.ltU, ...op.select, ...op.set(END));
  for (let u = 0; u < UNROLL; u++) chunk.push(...v128Zero(), ...op.set(ACC + u));
  const body: number[] = [];
  for (let u = 0; u < UNROLL; u++) {
    body.push(...op.get(G), ...op.get(I), ...op.add, ...v128Load(16 * u), ...op.set(X));
    body.push(...op.get(ACC + u), ...op.get(X), ...op.get(X), ...f32x4Mul, ...f32x4Add, ...op.set(ACC + u));
  }
  chunk.push(...whileBelow(I, END, [...body, ...advance(I)]));
  chunk.push(...op.get(ACC), ...op.get(ACC + 1), ...f32x4Add, ...op.get(ACC + 2), ...op.get(ACC + 3), ...f32x4Add, ...f32x4Add, ...op.set(X));
  return chunk;
}

/** total += X's four lanes, promoted half by half (lanes 0 and 2 into the total's lane 0, 1 and 3 into its lane 1). */
function addChunk(TOTAL: number, X: number): number[] {
  return [
    ...op.get(TOTAL), ...op.get(X), ...f64x2PromoteLow, ...f64x2Add,
    ...op.get(X), ...op.get(X), ...i8x16Shuffle(HIGH_TO_LOW), ...f64x2PromoteLow, ...f64x2Add, ...op.set(TOTAL),
  ];
}

const totalOf = (TOTAL: number): number[] => [...op.get(TOTAL), ...f64x2ExtractLane(0), ...op.get(TOTAL), ...f64x2ExtractLane(1), ...op.f64Add];

function sumsqBody(): number[] {
  const [G, BYTES, I, END] = [0, 1, 2, 3];
  const X = 4;
  const TOTAL = X + 1 + UNROLL; // f64x2
  const c: number[] = [...v128Zero(), ...op.set(TOTAL), ...op.i32(0), ...op.set(I)];
  c.push(...whileBelow(I, BYTES, [...chunkSquares(G, BYTES, I, END, X), ...addChunk(TOTAL, X)]));
  c.push(...totalOf(TOTAL), ...op.end);
  return funcBody([[2, I32], [1 + UNROLL + 1, V128]], c);
}

/**
 * sumsq split in two for threads: sumsqChunks(g, bytes, out) stores each chunk's X (16 bytes)
 * at out, out + 16, ...; sumChunks(out, count) adds them up as sumsq does. Slices that start
 * on chunk boundaries give the chunks sumsq sees, so the total has sumsq's bits.
 */
function sumsqChunksBody(): number[] {
  const [G, BYTES, OUT, I, END] = [0, 1, 2, 3, 4];
  const X = 5;
  const c: number[] = [...op.i32(0), ...op.set(I)];
  const store = [...op.get(OUT), ...op.get(X), ...v128Store(0), ...op.get(OUT), ...op.i32(16), ...op.add, ...op.set(OUT)];
  c.push(...whileBelow(I, BYTES, [...chunkSquares(G, BYTES, I, END, X), ...store]), ...op.end);
  return funcBody([[2, I32], [1 + UNROLL, V128]], c);
}

function sumChunksBody(): number[] {
  const [OUT, COUNT, END] = [0, 1, 2];
  const X = 3;
  const TOTAL = 4;
  const c: number[] = [...v128Zero(), ...op.set(TOTAL)];
  // end = out + 16 count
  c.push(...op.get(COUNT), ...op.i32(16), ...op.mul, ...op.get(OUT), ...op.add, ...op.set(END));
  const body = [...op.get(OUT), ...v128Load(0), ...op.set(X), ...addChunk(TOTAL, X), ...op.get(OUT), ...op.i32(16), ...op.add, ...op.set(OUT)];
  c.push(...whileBelow(OUT, END, body), ...totalOf(TOTAL), ...op.end);
  return funcBody([[1, I32], [2, V128]], c);
}

function adamBody(): number[] {
  const [P, G, M, V, BYTES] = [0, 1, 2, 3, 4];
  const scalars = 8; // b1, c1, b2, c2, stepSize, invSqrtBc2, eps, gscale
  const I = 5 + scalars;
  const K = I + 1; // the scalars splatted, in the same order
  const [B1, C1, B2, C2, S, IB, EPS, GS] = Array.from({ length: 8 }, (_, j) => K + j);
  const [GV, MV, VV] = [K + scalars, K + scalars + 1, K + scalars + 2];
  const c: number[] = [...op.i32(0), ...op.set(I)];
  for (let j = 0; j < scalars; j++) c.push(...op.get(5 + j), ...f32x4Splat, ...op.set(K + j));
  const at = (base: number) => [...op.get(base), ...op.get(I), ...op.add];
  const body: number[] = [];
  for (let u = 0; u < UNROLL; u++) {
    const o = 16 * u;
    body.push(...at(G), ...v128Load(o), ...op.get(GS), ...f32x4Mul, ...op.set(GV));
    // m = b1 m + c1 g
    body.push(...at(M), ...op.get(B1), ...at(M), ...v128Load(o), ...f32x4Mul);
    body.push(...op.get(C1), ...op.get(GV), ...f32x4Mul, ...f32x4Add, ...op.tee(MV), ...v128Store(o));
    // v = b2 v + (c2 g) g
    body.push(...at(V), ...op.get(B2), ...at(V), ...v128Load(o), ...f32x4Mul);
    body.push(...op.get(C2), ...op.get(GV), ...f32x4Mul, ...op.get(GV), ...f32x4Mul, ...f32x4Add, ...op.tee(VV), ...v128Store(o));
    // p -= (stepSize m) / (sqrt(v) invSqrtBc2 + eps)
    body.push(...at(P), ...at(P), ...v128Load(o), ...op.get(S), ...op.get(MV), ...f32x4Mul);
    body.push(...op.get(VV), ...f32x4Sqrt, ...op.get(IB), ...f32x4Mul, ...op.get(EPS), ...f32x4Add);
    body.push(...f32x4Div, ...f32x4Sub, ...v128Store(o));
  }
  c.push(...whileBelow(I, BYTES, [...body, ...advance(I)]), ...op.end);
  return funcBody([[1, I32], [scalars + 3, V128]], c);
}

/** The kernels over `memory` (memoryImport(1), or sharedMemoryImport for threads). */
function assemble(memory: number[]): Uint8Array {
  return assembleModule({
    types: [
      funcType([I32, I32], [F64]),
      funcType([I32, I32, I32, I32, I32, F32, F32, F32, F32, F32, F32, F32, F32]),
      funcType([I32, I32, I32]),
    ],
    imports: [memory],
    functions: [0, 1, 2, 0],
    exports: [['sumsq', 0], ['adam', 1], ['sumsqChunks', 2], ['sumChunks', 3]],
    bodies: [sumsqBody(), adamBody(), sumsqChunksBody(), sumChunksBody()],
  });
}

export interface AdamKernel {
  sumsq(g: number, bytes: number): number;
  adam(p: number, g: number, m: number, v: number, bytes: number, ...scalars: [number, number, number, number, number, number, number, number]): void;
  sumsqChunks(g: number, bytes: number, out: number): void;
  sumChunks(out: number, count: number): number;
}

let compiled: object | null | undefined;
let compiledShared: object | null | undefined;

function module(): object | null {
  if (compiled === undefined) compiled = compile(assemble(memoryImport(1)));
  return compiled;
}

/** The kernels for a shared memory of at most MAX_WASM_PAGES (parallel-adam.ts); null where WebAssembly SIMD or threads are missing. */
export function sharedKernelModule(): object | null {
  if (compiledShared === undefined) {
    try {
      compiledShared = typeof SharedArrayBuffer === 'undefined' ? null : compile(assemble(sharedMemoryImport(1, MAX_WASM_PAGES)));
    } catch {
      compiledShared = null;
    }
  }
  return compiledShared;
}

/**
 * The single-threaded kernels over a fresh memory of `pages` pages, or null where WebAssembly
 * SIMD is missing (streaming-adam.ts runs them over windows of arrays the kernel cannot hold).
 */
export function adamKernel(pages: number): { kernel: AdamKernel; memory: Float32Array } | null {
  const compiledModule = module();
  return compiledModule === null || wasm === undefined ? null : kernelInstance(compiledModule, pages);
}

function kernelInstance(compiledModule: object, pages: number): { kernel: AdamKernel; memory: Float32Array } {
  const memory = new wasm!.Memory({ initial: pages });
  const kernel = new wasm!.Instance(compiledModule, { env: { memory } }).exports as unknown as AdamKernel;
  return { kernel, memory: new Float32Array(memory.buffer) };
}

// ---- the optimiser's memory ----

/** The per-step constants of Adam; bias corrections are folded in by the caller (in float64). */
export interface AdamCoefficients {
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  /** lr / (1 - beta1^t) */
  readonly stepSize: number;
  /** 1 / sqrt(1 - beta2^t) */
  readonly invSqrtBc2: number;
}

/** The most 64 KiB pages a 32-bit WebAssembly memory may have (4 GiB). */
export const MAX_WASM_PAGES = 65536;

/**
 * Where each tensor starts in a kernel region (end to end), and the region's length rounded up
 * to whole blocks. Packed, a tensor after one of odd length starts on 4 bytes mod 8, and V8
 * copies between such a tensor in a SharedArrayBuffer (ParallelAdam's memory) and the caller's
 * array (on 16 bytes) word by word: 3.3-4x slower (85M parameters on our 2-core machine: 96-126
 * ms against 27-29). The language models' tensors all have even lengths, so the layout is left
 * packed: padding would change the norm's float32 sums, and every seeded result, for little.
 */
export function regionLayout(lengths: readonly number[]): { offsets: number[]; n: number } {
  const offsets: number[] = [];
  let total = 0;
  for (const len of lengths) {
    offsets.push(total);
    total += len;
  }
  return { offsets, n: Math.ceil(total / BLOCK) * BLOCK };
}

/** Pages the kernel's memory needs for `n` parameters: parameters, gradients and both moments, float32. */
export function wasmAdamPages(n: number): number {
  return Math.max(1, Math.ceil((4 * n * 4) / 65536));
}

/** Adam's moments in WebAssembly memory and the SIMD update; null from create() where WebAssembly SIMD is missing or the weights do not fit its 4 GiB. */
export class WasmAdam {
  /** Per parameter, views into the kernel's memory (it never grows, so they stay valid). */
  readonly m: Float32Array[];
  readonly v: Float32Array[];
  private readonly p: Float32Array[];

  private constructor(
    private readonly kernel: AdamKernel,
    private readonly memory: Float32Array,
    private readonly offsets: readonly number[],
    lengths: readonly number[],
    /** Floats per region (padded). */
    private readonly n: number,
  ) {
    const views = (region: number) => lengths.map((len, k) => memory.subarray(region * n + offsets[k]!, region * n + offsets[k]! + len));
    this.p = views(0);
    this.m = views(2);
    this.v = views(3);
  }

  static create(lengths: readonly number[]): WasmAdam | null {
    const compiledModule = module();
    if (compiledModule === null || wasm === undefined) return null;
    const { offsets, n } = regionLayout(lengths);
    const pages = wasmAdamPages(n);
    // 32-bit WebAssembly memory ends at 4 GiB: past ~268M parameters (a pretrained model trained
    // in full) the moments, parameters and gradients do not fit, and streaming-adam.ts runs the
    // same kernel over windows of them instead.
    if (pages > MAX_WASM_PAGES) return null;
    const { kernel, memory } = kernelInstance(compiledModule, pages);
    return new WasmAdam(kernel, memory, offsets, lengths, n);
  }

  /**
   * Copies the parameters and gradients into the kernel's memory (the gradients are not
   * modified) and returns the gradients' global L2 norm (0.5 us). Sizes are the caller's to check.
   */
  load(params: readonly Float32Array[], grads: readonly Float32Array[]): number {
    const { memory: mem, offsets, n } = this;
    for (let i = 0; i < offsets.length; i++) {
      mem.set(params[i]!, offsets[i]!);
      mem.set(grads[i]!, n + offsets[i]!);
    }
    const bytes = 4 * n;
    const g = bytes; // G's region follows P's
    return Math.sqrt(this.kernel.sumsq(g, bytes));
  }

  /** One Adam update of the loaded parameters with the loaded gradients times `gradScale`, copied back into `params`. */
  update(params: readonly Float32Array[], k: AdamCoefficients, gradScale: number): void {
    const bytes = 4 * this.n;
    const [p, g, m, v] = [0, bytes, 2 * bytes, 3 * bytes];
    const { beta1: b1, beta2: b2, eps, stepSize, invSqrtBc2 } = k;
    this.kernel.adam(p, g, m, v, bytes, b1, 1 - b1, b2, 1 - b2, stepSize, invSqrtBc2, eps, gradScale);
    for (let i = 0; i < params.length; i++) params[i]!.set(this.p[i]!);
  }
}
