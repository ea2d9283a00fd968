// The acting forward pass (dense.ts) as a WebAssembly SIMD kernel: 4 float32 lanes per
// instruction, where the plain-JS loop does one double at a time. Same layers, same results
// within float32 rounding; DenseStack falls back to the JS loop where WebAssembly SIMD is
// missing.
//
// The module is assembled at run time from a few dozen opcodes (../wasm/assembler.ts) rather
// than shipped as a binary, so the kernel can be read (and changed) as code. One exported
// function per activation:
//
//   dense_<act>(x, y, w, b, rows, inDim, outPad)      (pointers are byte offsets)
//
// computes y[r, 0..outPad) = act(x[r, 0..inDim) @ w + b) for rows r < rows (a multiple of 4),
// w laid out [inDim, outPad] row-major, outPad a multiple of 16. It walks 16 outputs x 4 rows
// at a time: per input k, four weight vectors are loaded once and serve four rows, sixteen
// multiply-adds on four lanes each. Layers are padded (zero weights, zero bias) to multiples
// of 16 outputs, and a padded output feeds the next layer through zero weights, so padding
// changes no result; the batch is padded to a multiple of 4 rows, and extra rows are ignored.

import {
  I32,
  V128,
  assembleModule,
  compile,
  f32x4Add,
  f32x4Const,
  f32x4Div,
  f32x4Max,
  f32x4Min,
  f32x4Mul,
  f32x4Splat,
  funcBody,
  funcType,
  memoryImport,
  op,
  v128Load,
  v128Store,
  wasm,
} from '../wasm/assembler.js';

// ---- the kernel ----

// Parameters, then locals, by index.
const [X, Y, W, B, ROWS, IN, OUT] = [0, 1, 2, 3, 4, 5, 6];
const [JB, R, K, WP, XP, XS, YP, ROWBYTES] = [7, 8, 9, 10, 11, 12, 13, 14];
const ACC = 15; // 16 v128 accumulators: ACC + 4 * row + vector
const WV = ACC + 16; // 4 weight vectors
const XV = WV + 4; // one broadcast input
const T = XV + 1; // scratch for the activation
const I32_LOCALS = 8;
const V128_LOCALS = 16 + 4 + 1 + 2;

export type Activation = 'none' | 'tanh' | 'relu';

/** tanh's rational approximation of dense.ts (fastTanh), on four lanes: v in local `v`, result in `v`. */
function tanh(v: number): number[] {
  const x2 = T;
  const p = T + 1;
  const code: number[] = [];
  code.push(...op.get(v), ...f32x4Const(-9), ...f32x4Max, ...f32x4Const(9), ...f32x4Min, ...op.set(v));
  code.push(...op.get(v), ...op.get(v), ...f32x4Mul, ...op.set(x2));
  const horner = (coefficients: number[]) => {
    code.push(...f32x4Const(coefficients[0]));
    for (const c of coefficients.slice(1)) code.push(...op.get(x2), ...f32x4Mul, ...f32x4Const(c), ...f32x4Add);
  };
  horner([-2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11, 5.12229709037114e-8, 1.48572235717979e-5, 6.37261928875436e-4, 4.89352455891786e-3]);
  code.push(...op.get(v), ...f32x4Mul, ...op.set(p));
  horner([1.19825839466702e-6, 1.18534705686654e-4, 2.268434632439e-3, 4.89352518554385e-3]);
  code.push(...op.set(x2), ...op.get(p), ...op.get(x2), ...f32x4Div, ...op.set(v));
  return code;
}

function activation(kind: Activation, v: number): number[] {
  if (kind === 'tanh') return tanh(v);
  if (kind === 'relu') return [...op.get(v), ...f32x4Const(0), ...f32x4Max, ...op.set(v)];
  return [];
}

function denseBody(kind: Activation): number[] {
  const c: number[] = [];
  const rowBytes = () => [...op.get(IN), ...op.i32(4), ...op.mul]; // bytes per input row
  // for (jb = 0; jb < OUT; jb += 16)
  c.push(...op.i32(0), ...op.set(JB), ...op.block, ...op.loop);
  c.push(...op.get(JB), ...op.get(OUT), ...op.ltU, ...op.eqz, ...op.brIf(1));
  //   for (r = 0; r < ROWS; r += 4)
  c.push(...op.i32(0), ...op.set(R), ...op.block, ...op.loop);
  c.push(...op.get(R), ...op.get(ROWS), ...op.ltU, ...op.eqz, ...op.brIf(1));
  //     accumulators = bias[jb .. jb + 16) for each of the 4 rows
  for (let v = 0; v < 4; v++) {
    c.push(...op.get(B), ...op.get(JB), ...op.i32(4), ...op.mul, ...op.add, ...v128Load(16 * v), ...op.set(WV + v));
  }
  for (let row = 0; row < 4; row++) for (let v = 0; v < 4; v++) c.push(...op.get(WV + v), ...op.set(ACC + 4 * row + v));
  //     wp = w + jb * 4; xp = x + r * inDim * 4; rowBytes = inDim * 4
  c.push(...op.get(W), ...op.get(JB), ...op.i32(4), ...op.mul, ...op.add, ...op.set(WP));
  c.push(...rowBytes(), ...op.set(ROWBYTES));
  c.push(...op.get(X), ...op.get(R), ...op.get(ROWBYTES), ...op.mul, ...op.add, ...op.set(XP));
  //     for (k = 0; k < inDim; k++)
  c.push(...op.i32(0), ...op.set(K), ...op.block, ...op.loop);
  c.push(...op.get(K), ...op.get(IN), ...op.ltU, ...op.eqz, ...op.brIf(1));
  for (let v = 0; v < 4; v++) c.push(...op.get(WP), ...v128Load(16 * v), ...op.set(WV + v));
  for (let row = 0; row < 4; row++) {
    // XS = xp + row * rowBytes: the input x[r + row, k]
    c.push(...op.get(XP), ...op.get(ROWBYTES), ...op.i32(row), ...op.mul, ...op.add, ...op.set(XS));
    c.push(...op.get(XS), ...op.f32Load, ...f32x4Splat, ...op.set(XV));
    for (let v = 0; v < 4; v++) {
      const acc = ACC + 4 * row + v;
      c.push(...op.get(acc), ...op.get(XV), ...op.get(WV + v), ...f32x4Mul, ...f32x4Add, ...op.set(acc));
    }
  }
  c.push(...op.get(WP), ...op.get(OUT), ...op.i32(4), ...op.mul, ...op.add, ...op.set(WP)); // next weight row
  c.push(...op.get(XP), ...op.i32(4), ...op.add, ...op.set(XP)); // next input
  c.push(...op.get(K), ...op.i32(1), ...op.add, ...op.set(K), ...op.br(0), ...op.end, ...op.end);
  //     activation, then y[r + row, jb ..] = accumulators
  for (let row = 0; row < 4; row++) {
    c.push(...op.get(Y), ...op.get(R), ...op.i32(row), ...op.add, ...op.get(OUT), ...op.mul, ...op.get(JB), ...op.add, ...op.i32(4), ...op.mul, ...op.add, ...op.set(YP));
    for (let v = 0; v < 4; v++) {
      const acc = ACC + 4 * row + v;
      c.push(...activation(kind, acc));
      c.push(...op.get(YP), ...op.get(acc), ...v128Store(16 * v));
    }
  }
  c.push(...op.get(R), ...op.i32(4), ...op.add, ...op.set(R), ...op.br(0), ...op.end, ...op.end);
  c.push(...op.get(JB), ...op.i32(16), ...op.add, ...op.set(JB), ...op.br(0), ...op.end, ...op.end);
  c.push(...op.end);
  return c;
}

const KINDS: Activation[] = ['none', 'tanh', 'relu'];

function assemble(): Uint8Array {
  return assembleModule({
    types: [funcType(Array.from({ length: 7 }, () => I32))],
    imports: [memoryImport(1)],
    functions: KINDS.map(() => 0),
    exports: KINDS.map((kind, i) => [`dense_${kind}`, i]),
    bodies: KINDS.map((kind) => funcBody([[I32_LOCALS, I32], [V128_LOCALS, V128]], denseBody(kind))),
  });
}

type DenseFn = (x: number, y: number, w: number, b: number, rows: number, inDim: number, outPad: number) => void;

interface Kernel {
  readonly memory: { buffer: ArrayBuffer };
  readonly dense: Record<Activation, DenseFn>;
}

let compiled: object | null | undefined;

/** The kernel in a memory of `bytes`, or null where WebAssembly SIMD is not available. */
export function instantiateKernel(bytes: number): Kernel | null {
  if (compiled === undefined) {
    compiled = compile(assemble());
  }
  if (compiled === null || wasm === undefined) return null;
  const memory = new wasm.Memory({ initial: Math.ceil(bytes / 65536) + 1 });
  const e = new wasm.Instance(compiled, { env: { memory } }).exports as Record<string, DenseFn>;
  return { memory, dense: { none: e.dense_none, tanh: e.dense_tanh, relu: e.dense_relu } };
}

// ---- the layers in the kernel's memory ----

export interface WasmLayerSource {
  /** [inDim, outDim] row-major, and [outDim]. */
  readonly weight: Float32Array;
  readonly bias: Float32Array;
  readonly inDim: number;
  readonly outDim: number;
  readonly activation: Activation;
}

interface Placed {
  readonly source: WasmLayerSource;
  readonly inPad: number;
  readonly outPad: number;
  /** Float offsets into the memory. */
  readonly w: number;
  readonly b: number;
  readonly y: number;
}

const pad16 = (n: number) => Math.ceil(n / 16) * 16;

/** A stack of dense layers run by the SIMD kernel; null from create() where WebAssembly SIMD is missing. */
export class WasmDenseStack {
  private constructor(
    private readonly kernel: Kernel,
    private readonly layers: readonly Placed[],
    /** Float offset of the input rows. */
    private readonly x: number,
    readonly capacity: number,
  ) {}

  static create(sources: readonly WasmLayerSource[], capacity: number): WasmDenseStack | null {
    const rows = Math.ceil(capacity / 4) * 4;
    let offset = 0;
    const x = offset;
    offset += rows * sources[0].inDim;
    const layers: Placed[] = [];
    let inPad = sources[0].inDim;
    for (const source of sources) {
      const outPad = pad16(source.outDim);
      // Each region starts on 16 bytes (4 floats) for the vector loads.
      const align = (n: number) => Math.ceil(n / 4) * 4;
      const w = align(offset);
      const b = align(w + inPad * outPad);
      const y = align(b + outPad);
      offset = y + rows * outPad;
      layers.push({ source, inPad, outPad, w, b, y });
      inPad = outPad;
    }
    const kernel = instantiateKernel(offset * 4);
    if (!kernel) return null;
    const stack = new WasmDenseStack(kernel, layers, x, rows);
    stack.sync();
    return stack;
  }

  /**
   * The kernel's memory as floats. Its size is fixed at instantiation (the module never grows
   * it), so one view serves every call: a view per call was garbage at every acting step.
   */
  private get memory(): Float32Array {
    if (this.view.buffer !== this.kernel.memory.buffer) this.view = new Float32Array(this.kernel.memory.buffer);
    return this.view;
  }

  private view = new Float32Array(0);

  /** Copies the current parameters into the kernel's padded layout, a row at a time (DQN does it after every gradient step). */
  sync(): void {
    const mem = this.memory;
    for (const { source, outPad, w, b } of this.layers) {
      const { weight, bias, inDim, outDim } = source;
      for (let k = 0; k < inDim; k++) mem.set(weight.subarray(k * outDim, (k + 1) * outDim), w + k * outPad);
      mem.set(bias.subarray(0, outDim), b);
    }
  }

  forward(x: Float32Array, rows: number, out: Float32Array): void {
    const mem = this.memory;
    const inDim = this.layers[0].source.inDim;
    mem.set(x.length === rows * inDim ? x : x.subarray(0, rows * inDim), this.x);
    const padded = Math.ceil(rows / 4) * 4;
    let input = this.x;
    for (const { source, inPad, outPad, w, b, y } of this.layers) {
      this.kernel.dense[source.activation](input * 4, y * 4, w * 4, b * 4, padded, inPad, outPad);
      input = y;
    }
    const last = this.layers[this.layers.length - 1];
    const outDim = last.source.outDim;
    for (let r = 0; r < rows; r++) for (let j = 0; j < outDim; j++) out[r * outDim + j] = mem[last.y + r * last.outPad + j];
  }
}
