// The `cnn` encoders' pass outside onnxruntime, for acting (as dense.ts is for the MLP): a
// rollout step encodes one image per env copy, where a session.run's fixed cost is more than
// the arithmetic. Each convolution is im2col (the image's patches as rows) and the acting
// matmul kernel of dense.ts (WebAssembly SIMD, or its JS loop) over those rows, the ReLU fused.
//
// Feature maps are kept channels last ([N, H, W, C]) so that a patch's numbers lie in runs of
// C and a convolution's output rows are its matmul's output rows as they come; the features
// handed on are put back in the graph's [C, H, W] order, which the dense layers' weights expect.
import type { WeightStore } from '../tensor/index.js';
import { convsOf, outSize, outputShape, type CnnLayout, type ConvSpec, type ImageShape } from './cnn-layout.js';
import { DenseStack } from './dense.js';

/** A feature map [n, height, width, channels] in `data` (which may be longer). */
interface FeatureMap {
  readonly data: Float32Array;
  readonly n: number;
  readonly height: number;
  readonly width: number;
  readonly channels: number;
}

/** Grows `buffer` to hold `size` numbers, keeping it when it does. */
function sized(buffer: Float32Array, size: number): Float32Array {
  return buffer.length >= size ? buffer : new Float32Array(Math.max(size, 2 * buffer.length));
}

/** One convolution as im2col and a one-layer DenseStack over weights reordered to [kh, kw, C] x O. */
class ConvKernel {
  /** [kernel * kernel * inChannels, outChannels]: the weight in patch order. */
  private readonly columnsWeight: Float32Array;
  private readonly stack: DenseStack;
  private columns: Float32Array = new Float32Array(0);
  private out: Float32Array = new Float32Array(0);

  constructor(
    private readonly store: WeightStore,
    private readonly spec: ConvSpec,
    private readonly prefix: string,
    relu: boolean,
  ) {
    const { kernel, inChannels, outChannels } = spec;
    this.columnsWeight = new Float32Array(kernel * kernel * inChannels * outChannels);
    const bias = store.get(`${prefix}.${spec.name}.bias`).data;
    this.stack = new DenseStack([{ weight: this.columnsWeight, bias, inDim: kernel * kernel * inChannels, outDim: outChannels, activation: relu ? 'relu' : 'none' }]);
    this.sync();
  }

  sync(): void {
    const { kernel, inChannels: c, outChannels: o } = this.spec;
    const w = this.store.get(`${this.prefix}.${this.spec.name}.weight`).data; // [O, C, k, k]
    for (let oc = 0; oc < o; oc++) {
      for (let ic = 0; ic < c; ic++) {
        for (let ky = 0; ky < kernel; ky++) {
          for (let kx = 0; kx < kernel; kx++) this.columnsWeight[((ky * kernel + kx) * c + ic) * o + oc] = w[((oc * c + ic) * kernel + ky) * kernel + kx]!;
        }
      }
    }
    this.stack.sync();
  }

  forward(x: FeatureMap): FeatureMap {
    const { kernel, stride, pad, outChannels } = this.spec;
    const { n, height: h, width: w, channels: c } = x;
    const oh = outSize(h, kernel, stride, pad);
    const ow = outSize(w, kernel, stride, pad);
    const rows = n * oh * ow;
    const patch = kernel * kernel * c;
    this.columns = sized(this.columns, rows * patch);
    const cols = this.columns;
    const src = x.data;
    let r = 0;
    for (let b = 0; b < n; b++) {
      for (let oy = 0; oy < oh; oy++) {
        for (let ox = 0; ox < ow; ox++, r++) {
          let at = r * patch;
          for (let ky = 0; ky < kernel; ky++) {
            const iy = oy * stride - pad + ky;
            for (let kx = 0; kx < kernel; kx++, at += c) {
              const ix = ox * stride - pad + kx;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) {
                cols.fill(0, at, at + c);
              } else {
                const from = ((b * h + iy) * w + ix) * c;
                cols.set(src.subarray(from, from + c), at);
              }
            }
          }
        }
      }
    }
    this.out = sized(this.out, rows * outChannels);
    this.stack.forward(cols, rows, this.out);
    return { data: this.out, n, height: oh, width: ow, channels: outChannels };
  }
}

/** 3x3 max-pool, stride 2, padding 1 (padding never wins), channels last. */
class MaxPool {
  private out: Float32Array = new Float32Array(0);

  forward(x: FeatureMap): FeatureMap {
    const { n, height: h, width: w, channels: c } = x;
    const oh = outSize(h, 3, 2, 1);
    const ow = outSize(w, 3, 2, 1);
    this.out = sized(this.out, n * oh * ow * c);
    const out = this.out;
    const src = x.data;
    for (let b = 0; b < n; b++) {
      for (let oy = 0; oy < oh; oy++) {
        for (let ox = 0; ox < ow; ox++) {
          const to = ((b * oh + oy) * ow + ox) * c;
          out.fill(-Infinity, to, to + c);
          for (let iy = Math.max(2 * oy - 1, 0); iy <= Math.min(2 * oy + 1, h - 1); iy++) {
            for (let ix = Math.max(2 * ox - 1, 0); ix <= Math.min(2 * ox + 1, w - 1); ix++) {
              const from = ((b * h + iy) * w + ix) * c;
              for (let k = 0; k < c; k++) if (src[from + k]! > out[to + k]!) out[to + k] = src[from + k]!;
            }
          }
        }
      }
    }
    return { data: out, n, height: oh, width: ow, channels: c };
  }
}

/** x + conv1(relu(conv0(relu(x)))). */
class ResidualBlock {
  private activated: Float32Array = new Float32Array(0);
  private out: Float32Array = new Float32Array(0);

  constructor(
    private readonly conv0: ConvKernel,
    private readonly conv1: ConvKernel,
  ) {}

  sync(): void {
    this.conv0.sync();
    this.conv1.sync();
  }

  forward(x: FeatureMap): FeatureMap {
    const size = x.n * x.height * x.width * x.channels;
    this.activated = sized(this.activated, size);
    for (let i = 0; i < size; i++) this.activated[i] = x.data[i]! > 0 ? x.data[i]! : 0;
    const inner = this.conv1.forward(this.conv0.forward({ ...x, data: this.activated }));
    this.out = sized(this.out, size);
    for (let i = 0; i < size; i++) this.out[i] = x.data[i]! + inner.data[i]!;
    return { ...x, data: this.out };
  }
}

/** The whole encoder outside onnxruntime: observation rows in, feature rows in [C, H, W] order out. */
export class ConvStack {
  readonly features: number;
  private readonly kernels: ConvKernel[];
  private readonly run: (x: FeatureMap) => FeatureMap;
  private input: Float32Array = new Float32Array(0);
  private out: Float32Array = new Float32Array(0);

  constructor(
    store: WeightStore,
    prefix: string,
    private readonly layout: CnnLayout,
    private readonly image: ImageShape,
  ) {
    const last = outputShape(layout, image);
    this.features = last.channels * last.height * last.width;
    if (layout.kind === 'nature') {
      this.kernels = layout.convs.map((spec) => new ConvKernel(store, spec, prefix, true));
      this.run = (x) => this.kernels.reduce((h, kernel) => kernel.forward(h), x);
    } else {
      const byName = new Map(convsOf(layout).map((spec) => [spec.name, spec]));
      const kernel = (spec: ConvSpec, relu: boolean) => new ConvKernel(store, byName.get(spec.name)!, prefix, relu);
      const stages = layout.stacks.map((stack) => ({
        conv: kernel(stack.conv, false),
        pool: new MaxPool(),
        blocks: stack.blocks.map(([c0, c1]) => new ResidualBlock(kernel(c0, true), kernel(c1, false))),
      }));
      this.kernels = [];
      this.run = (x) => {
        let h = x;
        for (const stage of stages) {
          h = stage.pool.forward(stage.conv.forward(h));
          for (const block of stage.blocks) h = block.forward(h);
        }
        return h;
      };
      this.syncAll = () => {
        for (const stage of stages) {
          stage.conv.sync();
          for (const block of stage.blocks) block.sync();
        }
      };
    }
  }

  private syncAll: () => void = () => {
    for (const kernel of this.kernels) kernel.sync();
  };

  /** Makes the pass see the store's current weights. */
  sync(): void {
    this.syncAll();
  }

  /** Feature rows [rows, features] of observation rows (pixel values 0-255); the next call overwrites them. */
  encode(obs: Float32Array, rows: number): Float32Array {
    const { channels: c, height: h, width: w, channelsLast } = this.image;
    const pixels = h * w;
    this.input = sized(this.input, rows * pixels * c);
    const input = this.input;
    const scale = 1 / 255;
    if (channelsLast) {
      for (let i = 0; i < rows * pixels * c; i++) input[i] = obs[i]! * scale;
    } else {
      for (let r = 0; r < rows; r++) {
        const base = r * pixels * c;
        for (let ch = 0; ch < c; ch++) for (let p = 0; p < pixels; p++) input[base + p * c + ch] = obs[base + ch * pixels + p]! * scale;
      }
    }
    const y = this.run({ data: input, n: rows, height: h, width: w, channels: c });
    const relu = this.layout.kind === 'impala';
    const { height: yh, width: yw, channels: yc } = y;
    const perRow = yh * yw * yc;
    this.out = sized(this.out, rows * perRow);
    for (let r = 0; r < rows; r++) {
      for (let p = 0; p < yh * yw; p++) {
        for (let ch = 0; ch < yc; ch++) {
          const v = y.data[r * perRow + p * yc + ch]!;
          this.out[r * perRow + ch * yh * yw + p] = relu && v < 0 ? 0 : v;
        }
      }
    }
    return this.out;
  }
}
