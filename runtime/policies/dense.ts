// A forward pass over dense layers for acting during rollouts, outside onnxruntime.
//
// Why not onnxruntime: a rollout step runs the actor on one row per env copy (4-8 rows),
// where a session.run costs more in fixed overhead than the arithmetic. Measured on this
// project's 2-core machines for CleanRL's 4-64-64-2 tanh actor on 4 rows (bench/ppo.ts):
// onnxruntime ~20-25 us, the plain-JS loop below ~10 us, the WebAssembly SIMD kernel of
// wasm-dense.ts ~2 us. The SIMD kernel runs wherever WebAssembly SIMD exists (Node 16.4+);
// the JS loop is the fallback (and RLX_NO_SIMD=1 forces it). The training update, at 64+
// rows per minibatch, goes through onnxruntime.
//
// The JS kernel computes 4 rows x 4 outputs per inner loop, so each weight loaded serves 4
// rows and each input loaded serves 4 outputs: a quarter of the memory loads per
// multiply-add of a plain dot product, which is what bounds this loop in V8 (measured:
// 4x4 blocks about 1.5x faster than 4x2, 2x faster than 1x1).
// Weights are kept transposed ([out, in], row-major) so both inner loops run over
// contiguous memory; sync() refreshes them from the trained [in, out] parameters.
import { WasmDenseStack } from './wasm-dense.js';

export type Activation = 'tanh' | 'relu' | 'none';

export interface DenseLayerSource {
  /** [inDim, outDim], row-major: y = x @ weight + bias (the graph's layout). */
  readonly weight: Float32Array;
  readonly bias: Float32Array;
  readonly inDim: number;
  readonly outDim: number;
  readonly activation: Activation;
}

interface Layer {
  readonly source: DenseLayerSource;
  /** [outDim, inDim]: the source weight transposed. */
  readonly wt: Float32Array;
  readonly act: number;
}

const ACT = { none: 0, tanh: 1, relu: 2 } as const;

/**
 * tanh as a rational function (the minimax approximation Eigen and XLA use for float32),
 * within 3e-8 of Math.tanh everywhere: about 3x faster than Math.tanh or an exp-based form
 * in V8, and as accurate as the float32 tanh onnxruntime runs in the training graph.
 */
export function fastTanh(x: number): number {
  if (x > 9) x = 9;
  else if (x < -9) x = -9;
  const x2 = x * x;
  let p = -2.76076847742355e-16;
  p = p * x2 + 2.00018790482477e-13;
  p = p * x2 - 8.60467152213735e-11;
  p = p * x2 + 5.12229709037114e-8;
  p = p * x2 + 1.48572235717979e-5;
  p = p * x2 + 6.37261928875436e-4;
  p = p * x2 + 4.89352455891786e-3;
  let q = 1.19825839466702e-6;
  q = q * x2 + 1.18534705686654e-4;
  q = q * x2 + 2.2684346324390e-3;
  q = q * x2 + 4.89352518554385e-3;
  return (x * p) / q;
}

function activate(s: number, act: number): number {
  if (act === 1) return fastTanh(s);
  if (act === 2) return s > 0 ? s : 0;
  return s;
}

export class DenseStack {
  private readonly layers: Layer[];
  private scratch: Float32Array[] = [];
  private capacity = 0;
  private simd: WasmDenseStack | null = null;
  private simdAvailable: boolean;
  /** Whether `wt` predates the last sync(). */
  private jsStale = true;

  constructor(
    private readonly sources: readonly DenseLayerSource[],
    options: { simd?: boolean } = {},
  ) {
    this.layers = sources.map((source) => ({ source, wt: new Float32Array(source.inDim * source.outDim), act: ACT[source.activation] }));
    this.simdAvailable = (options.simd ?? true) && process.env.RLX_NO_SIMD !== '1';
    this.sync();
  }

  get inDim(): number {
    return this.layers[0].source.inDim;
  }

  get outDim(): number {
    return this.layers[this.layers.length - 1].source.outDim;
  }

  /** Whether forward() runs the WebAssembly SIMD kernel. */
  get usesSimd(): boolean {
    return this.simdAvailable;
  }

  /** Copies the current parameter values in (call after every optimiser step that should be seen). */
  sync(): void {
    // The JS loop's transposed copy is made when that loop next runs: with the SIMD kernel it
    // never does, and DQN syncs after every gradient step (transposing each time was 6% of a
    // CleanRL-settings CartPole run).
    this.jsStale = true;
    this.simd?.sync();
  }

  private transposeForJs(): void {
    for (const { source, wt } of this.layers) {
      const { weight, inDim, outDim } = source;
      for (let k = 0; k < inDim; k++) for (let j = 0; j < outDim; j++) wt[j * inDim + k] = weight[k * outDim + j];
    }
    this.jsStale = false;
  }

  /** out[r * outDim ..] = f(x[r * inDim ..]) for rows r < rows. */
  forward(x: Float32Array, rows: number, out: Float32Array): void {
    if (this.simdAvailable) {
      if (this.simd === null || rows > this.simd.capacity) {
        this.simd = WasmDenseStack.create(this.sources, Math.max(rows, 2 * (this.simd?.capacity ?? 4)));
        if (this.simd === null) this.simdAvailable = false; // no WebAssembly SIMD here: the JS loop
      }
      if (this.simd !== null) return this.simd.forward(x, rows, out);
    }
    if (this.jsStale) this.transposeForJs();
    if (rows > this.capacity) this.grow(rows);
    let input = x;
    const last = this.layers.length - 1;
    for (let l = 0; l <= last; l++) {
      const output = l === last ? out : this.scratch[l];
      denseLayer(this.layers[l], input, rows, output);
      input = output;
    }
  }

  private grow(rows: number): void {
    this.capacity = Math.max(rows, 2 * this.capacity);
    this.scratch = this.layers.map((layer) => new Float32Array(this.capacity * layer.source.outDim));
  }
}

function denseLayer(layer: Layer, x: Float32Array, rows: number, y: Float32Array): void {
  const { wt, act } = layer;
  const { bias, inDim, outDim: n } = layer.source;
  let r = 0;
  for (; r + 3 < rows; r += 4) {
    // Four rows at a time: x0..x3 are their offsets in x, y0 the first one's in y.
    const x0 = r * inDim;
    const x1 = x0 + inDim;
    const x2 = x1 + inDim;
    const x3 = x2 + inDim;
    const y0 = r * n;
    let j = 0;
    for (; j + 3 < n; j += 4) {
      // Outputs j..j+3 of the four rows: 16 sums, each weight and input loaded once per k.
      const wa = j * inDim;
      const wb = wa + inDim;
      const wc = wb + inDim;
      const wd = wc + inDim;
      let a0 = bias[j], a1 = a0, a2 = a0, a3 = a0;
      let b0 = bias[j + 1], b1 = b0, b2 = b0, b3 = b0;
      let c0 = bias[j + 2], c1 = c0, c2 = c0, c3 = c0;
      let d0 = bias[j + 3], d1 = d0, d2 = d0, d3 = d0;
      for (let k = 0; k < inDim; k++) {
        const i0 = x[x0 + k], i1 = x[x1 + k], i2 = x[x2 + k], i3 = x[x3 + k];
        let w = wt[wa + k];
        a0 += w * i0; a1 += w * i1; a2 += w * i2; a3 += w * i3;
        w = wt[wb + k];
        b0 += w * i0; b1 += w * i1; b2 += w * i2; b3 += w * i3;
        w = wt[wc + k];
        c0 += w * i0; c1 += w * i1; c2 += w * i2; c3 += w * i3;
        w = wt[wd + k];
        d0 += w * i0; d1 += w * i1; d2 += w * i2; d3 += w * i3;
      }
      y[y0 + j] = activate(a0, act); y[y0 + n + j] = activate(a1, act); y[y0 + 2 * n + j] = activate(a2, act); y[y0 + 3 * n + j] = activate(a3, act);
      y[y0 + j + 1] = activate(b0, act); y[y0 + n + j + 1] = activate(b1, act); y[y0 + 2 * n + j + 1] = activate(b2, act); y[y0 + 3 * n + j + 1] = activate(b3, act);
      y[y0 + j + 2] = activate(c0, act); y[y0 + n + j + 2] = activate(c1, act); y[y0 + 2 * n + j + 2] = activate(c2, act); y[y0 + 3 * n + j + 2] = activate(c3, act);
      y[y0 + j + 3] = activate(d0, act); y[y0 + n + j + 3] = activate(d1, act); y[y0 + 2 * n + j + 3] = activate(d2, act); y[y0 + 3 * n + j + 3] = activate(d3, act);
    }
    for (; j < n; j++) {
      const wa = j * inDim;
      let a0 = bias[j], a1 = a0, a2 = a0, a3 = a0;
      for (let k = 0; k < inDim; k++) {
        const w = wt[wa + k];
        a0 += w * x[x0 + k]; a1 += w * x[x1 + k]; a2 += w * x[x2 + k]; a3 += w * x[x3 + k];
      }
      y[y0 + j] = activate(a0, act); y[y0 + n + j] = activate(a1, act); y[y0 + 2 * n + j] = activate(a2, act); y[y0 + 3 * n + j] = activate(a3, act);
    }
  }
  for (; r < rows; r++) {
    const x0 = r * inDim;
    const y0 = r * n;
    for (let j = 0; j < n; j++) {
      const wa = j * inDim;
      let a = bias[j];
      for (let k = 0; k < inDim; k++) a += wt[wa + k] * x[x0 + k];
      y[y0 + j] = activate(a, act);
    }
  }
}
