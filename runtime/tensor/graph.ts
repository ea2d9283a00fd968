// The graph builder: declares inputs, parameters and constants, and records ops with
// static shape inference. Ops with a gradient rule in gradients.ts are primitives;
// the rest (square, gemm, linear, gatherLast, gelu, clip with tensor bounds, ...) are built
// from primitives here so they are differentiable without rules of their own.

import {
  broadcastShapes,
  isUnknownDim,
  matmulShape,
  normalizeAxes,
  normalizeAxis,
  reducedShape,
  reshapedShape,
  unknownDim,
  unsqueezedShape,
} from './shape.js';
import { type Attrs, type ConstValue, Tensor } from './tensor.js';
import {
  type DType,
  type Dim,
  type HostArray,
  type Shape,
  dtypeOfArray,
  formatShape,
  isFloat,
  isStatic,
  numel,
  toHostArray,
} from './types.js';

/** A tensor, or a plain number that becomes a scalar constant of the other operand's dtype. */
export type Operand = Tensor | number;

export interface ReduceOptions {
  /** Axes to reduce (negative counts from the end); all axes when left out. */
  readonly axes?: readonly number[];
  /** Keep reduced axes as size 1. Default false, as in numpy (ONNX's own default is true). */
  readonly keepdims?: boolean;
}

export interface ConstOptions {
  readonly dtype?: DType;
  /** Defaults to [] for a single number and [n] for a list. */
  readonly shape?: readonly number[];
}

export interface GemmOptions {
  readonly alpha?: number;
  readonly beta?: number;
  readonly transA?: boolean;
  readonly transB?: boolean;
}

export interface Conv2dOptions {
  /** The same stride on both spatial axes; default 1. */
  readonly stride?: number;
  /** Zero padding on every side; default 0. */
  readonly pad?: number;
  /** Default 1. */
  readonly dilation?: number;
}

// Large enough to mean "to the end" for Slice on any real tensor.
const SLICE_END = 2 ** 53 - 1;

/** The op of withGradient() nodes: y (input 0) passed through, gradients by a rule to inputs 1... */
export const CUSTOM_GRADIENT = 'CustomGradient';

/** (gradient of y) -> one gradient per `wrt` tensor of withGradient(), null where none flows. */
export type CustomGradientRule = (dy: Tensor) => readonly (Tensor | null)[];

export class Graph {
  private readonly nodeList: Tensor[] = [];
  private readonly named = new Map<string, Tensor>();
  private readonly scalarCache = new Map<string, Tensor>();
  private readonly customRules = new Map<Tensor, CustomGradientRule>();
  private readonly memos = new Map<string, unknown>();

  /** All nodes in creation order, which is a topological order. */
  get nodes(): readonly Tensor[] {
    return this.nodeList;
  }

  inputs(): Tensor[] {
    return this.nodeList.filter((t) => t.op === 'Input');
  }

  params(): Tensor[] {
    return this.nodeList.filter((t) => t.op === 'Param');
  }

  /**
   * Builds a subgraph once per graph and shares it afterwards: the first call under `key`
   * runs `build`, later ones return its result. Keys name what is built and from what
   * (`softmax:#12` for tensor 12), so two builders never collide. Caches live here, with the
   * graph, so the ops and rules that use them stay pure functions of their tensors.
   */
  memo<T>(key: string, build: () => T): T {
    if (this.memos.has(key)) return this.memos.get(key) as T;
    const built = build();
    this.memos.set(key, built);
    return built;
  }

  /** The Input or Param declared under `name`, if any. */
  byName(name: string): Tensor | undefined {
    return this.named.get(name);
  }

  // ---- leaves -------------------------------------------------------------------

  /** A run-time input. Dims may be numbers, symbols ('B') or -1 for an anonymous unknown. */
  input(name: string, dtype: DType, shape: readonly Dim[]): Tensor {
    const dims = shape.map((d) => (d === -1 ? unknownDim() : d));
    for (const d of dims) {
      if (typeof d === 'number' && !(Number.isInteger(d) && d >= 0)) {
        throw new Error(`input '${name}': bad dimension ${d} in ${formatShape(shape)}`);
      }
    }
    return this.declare(name, 'Input', dtype, dims);
  }

  /** A trainable parameter: fed by name at run time, or baked as an initializer on export. */
  /** A weight fed by name (or baked); 'float16' only for a frozen weight the store keeps in half precision, which the graph casts up at once (WeightStore.declare). */
  param(name: string, shape: readonly number[], dtype: 'float32' | 'float64' | 'float16' = 'float32'): Tensor {
    if (!shape.every((d) => Number.isInteger(d) && d > 0)) {
      throw new Error(`param '${name}': shape must be positive integers, got ${formatShape(shape)}`);
    }
    return this.declare(name, 'Param', dtype, shape);
  }

  const(values: number | readonly number[] | HostArray, options: ConstOptions = {}): Tensor {
    const isHost = ArrayBuffer.isView(values);
    const dtype = options.dtype ?? (isHost ? dtypeOfArray(values as HostArray) : 'float32');
    let data: HostArray;
    if (isHost && dtypeOfArray(values as HostArray) === dtype) data = (values as HostArray).slice();
    else if (isHost) throw new Error(`const: data is ${dtypeOfArray(values as HostArray)} but dtype says ${dtype}`);
    else data = toHostArray(typeof values === 'number' ? [values] : (values as readonly number[]), dtype);
    const shape = options.shape ?? (typeof values === 'number' ? [] : [data.length]);
    if (numel(shape) !== data.length) {
      throw new Error(`const: ${data.length} values do not fill shape ${formatShape(shape)}`);
    }
    const value: ConstValue = { dtype, shape: [...shape], data };
    return this.node('Const', [], {}, dtype, shape, undefined, value);
  }

  /** A scalar constant, shared between all uses of the same value and dtype. */
  scalar(value: number, dtype: DType): Tensor {
    const key = `${dtype}:${Object.is(value, -0) ? '-0' : String(value)}`;
    let t = this.scalarCache.get(key);
    if (!t) {
      t = this.const(value, { dtype });
      this.scalarCache.set(key, t);
    }
    return t;
  }

  // ---- elementwise arithmetic (broadcasting) --------------------------------------

  add(a: Operand, b: Operand): Tensor {
    return this.binary('Add', a, b);
  }
  sub(a: Operand, b: Operand): Tensor {
    return this.binary('Sub', a, b);
  }
  mul(a: Operand, b: Operand): Tensor {
    // x * 1 is x, exactly: a gradient seed of 1, and every rule that scales by it, costs no node.
    if (isScalarOne(b) && a instanceof Tensor && isScalarOf(b, a)) return a;
    if (isScalarOne(a) && b instanceof Tensor && isScalarOf(a, b)) return b;
    return this.binary('Mul', a, b);
  }
  div(a: Operand, b: Operand): Tensor {
    return this.binary('Div', a, b);
  }
  pow(base: Operand, exponent: Operand): Tensor {
    return this.binary('Pow', base, exponent);
  }
  /** Elementwise minimum of two tensors (ties split the gradient evenly). */
  min(a: Operand, b: Operand): Tensor {
    return this.binary('Min', a, b);
  }
  /** Elementwise maximum of two tensors (ties split the gradient evenly). */
  max(a: Operand, b: Operand): Tensor {
    return this.binary('Max', a, b);
  }

  // ---- comparisons and logic (bool results, no gradient) ---------------------------

  less(a: Operand, b: Operand): Tensor {
    return this.binary('Less', a, b, 'bool');
  }
  lessOrEqual(a: Operand, b: Operand): Tensor {
    return this.binary('LessOrEqual', a, b, 'bool');
  }
  greater(a: Operand, b: Operand): Tensor {
    return this.binary('Greater', a, b, 'bool');
  }
  greaterOrEqual(a: Operand, b: Operand): Tensor {
    return this.binary('GreaterOrEqual', a, b, 'bool');
  }
  equal(a: Operand, b: Operand): Tensor {
    return this.binary('Equal', a, b, 'bool');
  }
  and(a: Tensor, b: Tensor): Tensor {
    this.requireDtype('And', a, 'bool');
    this.requireDtype('And', b, 'bool');
    return this.binary('And', a, b, 'bool');
  }
  or(a: Tensor, b: Tensor): Tensor {
    this.requireDtype('Or', a, 'bool');
    this.requireDtype('Or', b, 'bool');
    return this.binary('Or', a, b, 'bool');
  }
  not(x: Tensor): Tensor {
    this.requireDtype('Not', x, 'bool');
    return this.node('Not', [x], {}, 'bool', x.shape);
  }

  /** Picks `a` where `cond` is true, else `b`; all three broadcast. */
  where(cond: Tensor, a: Operand, b: Operand): Tensor {
    this.own(cond, 'Where');
    this.requireDtype('Where', cond, 'bool');
    const [ta, tb] = this.lift('Where', a, b);
    const shape = broadcastShapes(cond.shape, broadcastShapes(ta.shape, tb.shape, 'Where'), 'Where');
    return this.node('Where', [cond, ta, tb], {}, ta.dtype, shape);
  }

  // ---- elementwise unary -----------------------------------------------------------

  neg(x: Tensor): Tensor {
    return this.unary('Neg', x, false);
  }
  abs(x: Tensor): Tensor {
    return this.unary('Abs', x, false);
  }
  /** -1, 0 or 1; its gradient is zero. */
  sign(x: Tensor): Tensor {
    return this.unary('Sign', x, false);
  }
  exp(x: Tensor): Tensor {
    return this.unary('Exp', x);
  }
  log(x: Tensor): Tensor {
    return this.unary('Log', x);
  }
  sqrt(x: Tensor): Tensor {
    return this.unary('Sqrt', x);
  }
  tanh(x: Tensor): Tensor {
    return this.unary('Tanh', x);
  }
  sigmoid(x: Tensor): Tensor {
    return this.unary('Sigmoid', x);
  }
  relu(x: Tensor): Tensor {
    return this.unary('Relu', x);
  }
  /** log(1 + exp(x)), smooth everywhere (e.g. for SAC's tanh-squash correction). */
  softplus(x: Tensor): Tensor {
    return this.unary('Softplus', x);
  }
  identity(x: Tensor): Tensor {
    return this.unary('Identity', x, false);
  }
  /** Passes the value through but no gradient (targets, old log-probs, bootstrapped values). */
  stopGradient(x: Tensor): Tensor {
    return this.unary('StopGradient', x, false);
  }
  square(x: Tensor): Tensor {
    return this.mul(x, x);
  }

  /**
   * y's value, with a gradient given by `rule` instead of derived from the ops computing y:
   * rule(dy) gives one gradient per tensor of `wrt` (null where none flows), and nothing
   * flows into y's own subgraph past them. For closed forms much smaller than the derived
   * graph, e.g. the categorical log-probability (runtime/policies/distributions.ts), where
   * each onnxruntime node costs ~1 us per training step; each rule's test compares it with
   * the derived gradient.
   */
  withGradient(y: Tensor, wrt: readonly Tensor[], rule: CustomGradientRule): Tensor {
    this.own(y, 'withGradient');
    this.requireFloat('withGradient', y);
    for (const t of wrt) this.own(t, 'withGradient');
    const t = this.node(CUSTOM_GRADIENT, [y, ...wrt], {}, y.dtype, y.shape);
    this.customRules.set(t, rule);
    return t;
  }

  /** The rule of a withGradient() node. */
  customGradientRule(t: Tensor): CustomGradientRule {
    const rule = this.customRules.get(t);
    if (!rule) throw new Error(`${t.describe()} has no custom gradient rule`);
    return rule;
  }

  /** Clamps to [lo, hi]. Number bounds use ONNX Clip; tensor bounds compose Max and Min. */
  clip(x: Tensor, lo?: Operand, hi?: Operand): Tensor {
    this.own(x, 'Clip');
    if (typeof lo !== 'object' && typeof hi !== 'object') {
      this.requireFloat('Clip', x);
      const min = this.scalar(lo ?? -Infinity, x.dtype);
      const max = this.scalar(hi ?? Infinity, x.dtype);
      return this.node('Clip', [x, min, max], {}, x.dtype, x.shape);
    }
    let y = x;
    if (lo !== undefined) y = this.max(y, lo);
    if (hi !== undefined) y = this.min(y, hi);
    return y;
  }

  // ---- softmax family --------------------------------------------------------------

  softmax(x: Tensor, axis = -1): Tensor {
    return this.alongAxis('Softmax', x, axis);
  }
  logSoftmax(x: Tensor, axis = -1): Tensor {
    return this.alongAxis('LogSoftmax', x, axis);
  }

  // ---- transformer blocks ----------------------------------------------------------

  /**
   * ONNX LayerNormalization over the last axis: (x - mean) / sqrt(var + epsilon) * scale + bias,
   * with scale and bias of shape [D] for x [..., D]. One fused kernel where the forward pass
   * runs (acting, inference); its gradient recomputes the normalised x from x.
   */
  layerNorm(x: Tensor, scale: Tensor, bias: Tensor, epsilon = 1e-5): Tensor {
    for (const t of [x, scale, bias]) this.own(t, 'LayerNormalization');
    this.requireFloat('LayerNormalization', x);
    this.sameDtype('LayerNormalization', x, scale);
    this.sameDtype('LayerNormalization', x, bias);
    const width = x.shape[x.rank - 1];
    for (const t of [scale, bias]) {
      if (t.rank !== 1 || (typeof width === 'number' && t.shape[0] !== width)) {
        throw new Error(`LayerNormalization: scale and bias must be [${String(width)}] for ${x.describe()}, got ${t.describe()}`);
      }
    }
    if (!(epsilon > 0)) throw new Error(`LayerNormalization: epsilon must be positive, got ${epsilon}`);
    return this.node('LayerNormalization', [x, scale, bias], { axis: -1, epsilon: { float: epsilon } }, x.dtype, x.shape);
  }

  /**
   * GELU with GPT-2's tanh approximation, 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))),
   * written as x sigmoid(2 sqrt(2 / pi) x (1 + 0.044715 x^2)) (0.5 (1 + tanh(u)) = sigmoid(2u)):
   * six elementwise ops where the tanh form takes nine, forward and backward, and it runs at
   * every position of every transformer block. ONNX's Gelu op needs opset 20 (we write 18, see
   * onnx-schema.ts), and onnxruntime has no float64 Erf kernel on the CPU, which the exact form
   * would need for its finite-difference test.
   *
   * Its gradient is the closed form, from the forward's own x^2, s and y: with
   * u = x (a + b x^2), y = x s, s = sigmoid(u), dy/dx = s + x s (1 - s) u'(x) = s + y (1 - s)
   * (a + 3 b x^2): seven ops where the derived graph takes seventeen, each a pass over the
   * MLP's 4C-wide activations (in a transformer's SFT step at batch 256, about 1 ms apiece).
   */
  gelu(x: Tensor): Tensor {
    this.requireFloat('gelu', x);
    const a = 2 * Math.sqrt(2 / Math.PI);
    const b = a * 0.044715;
    const x2 = this.mul(x, x);
    const s = this.sigmoid(this.mul(this.add(this.mul(x2, b), a), x));
    const y = this.mul(x, s);
    return this.withGradient(y, [x], (dy) => {
      const slope = this.add(this.mul(x2, 3 * b), a);
      return [this.mul(dy, this.add(s, this.mul(this.mul(y, this.sub(1, s)), slope)))];
    });
  }

  // ---- convolutions (NCHW) ----------------------------------------------------------

  /**
   * ONNX Conv over images x [N, C, H, W] with weight w [O, C, kh, kw] (and bias b [O]): y
   * [N, O, H', W'], H' = floor((H + 2 pad - dilation (kh - 1) - 1) / stride) + 1. Spatial
   * sizes must be known; N and C may be symbolic (the weight gradient is itself a Conv whose
   * "channels" are the batch). onnxruntime's CPU kernel is MLAS's im2col and GEMM.
   */
  conv2d(x: Tensor, w: Tensor, b?: Tensor, options: Conv2dOptions = {}): Tensor {
    const { stride = 1, pad = 0, dilation = 1 } = options;
    for (const t of b ? [x, w, b] : [x, w]) this.own(t, 'Conv');
    this.requireFloat('Conv', x);
    this.sameDtype('Conv', x, w);
    if (b) this.sameDtype('Conv', x, b);
    if (x.rank !== 4 || w.rank !== 4) throw new Error(`Conv: needs x [N, C, H, W] and w [O, C, kh, kw], got ${x.describe()} and ${w.describe()}`);
    const [, c, h, wd] = x.shape;
    const [o, wc, kh, kw] = w.shape;
    if (typeof c === 'number' && typeof wc === 'number' && c !== wc) throw new Error(`Conv: ${x.describe()} has ${c} channels, the weight ${w.describe()} reads ${wc}`);
    if (b && (b.rank !== 1 || (typeof o === 'number' && b.shape[0] !== o))) throw new Error(`Conv: bias must be [${String(o)}], got ${b.describe()}`);
    const out = [h, wd].map((size, i) => {
      const k = [kh, kw][i];
      if (typeof size !== 'number' || typeof k !== 'number') throw new Error(`Conv: spatial sizes must be known, got ${x.describe()} and ${w.describe()}`);
      const span = dilation * (k - 1) + 1;
      if (size + 2 * pad < span) throw new Error(`Conv: a ${k}x${k} kernel (dilation ${dilation}) does not fit ${x.describe()} with padding ${pad}`);
      return Math.floor((size + 2 * pad - span) / stride) + 1;
    });
    const attrs = { kernel_shape: [kh as number, kw as number], strides: [stride, stride], pads: [pad, pad, pad, pad], dilations: [dilation, dilation] };
    return this.node('Conv', b ? [x, w, b] : [x, w], attrs, x.dtype, [x.shape[0]!, o!, ...out]);
  }

  /**
   * ONNX ConvTranspose of dy [N, O, H', W'] by w [O, C, kh, kw] to [N, C, H, W]: the gradient
   * of conv2d with respect to its input (the same stride, pad and dilation; `size` the input's
   * [H, W], which fixes the output padding). No gradient rule of its own.
   */
  convTranspose2d(dy: Tensor, w: Tensor, size: readonly [number, number], options: Conv2dOptions = {}): Tensor {
    const { stride = 1, pad = 0, dilation = 1 } = options;
    for (const t of [dy, w]) this.own(t, 'ConvTranspose');
    this.sameDtype('ConvTranspose', dy, w);
    const [, , kh, kw] = w.shape as number[];
    const outputPadding = size.map((s, i) => s + 2 * pad - dilation * ([kh, kw][i]! - 1) - 1 - stride * ((dy.shape[2 + i] as number) - 1));
    if (outputPadding.some((p) => p < 0 || p >= Math.max(stride, dilation))) throw new Error(`ConvTranspose: ${dy.describe()} cannot come from an input of [${size.join(', ')}]`);
    const attrs = { kernel_shape: [kh!, kw!], strides: [stride, stride], pads: [pad, pad, pad, pad], dilations: [dilation, dilation], output_padding: outputPadding };
    return this.node('ConvTranspose', [dy, w], attrs, dy.dtype, [dy.shape[0]!, w.shape[1]!, size[0], size[1]]);
  }

  /**
   * ONNX MaxPool over x [N, C, H, W] with a square `kernel`, `stride` and zero-free `pad`
   * (padding never wins: it counts as -infinity). Its gradient routes dy to each window's
   * maximum (ties: the first, as onnxruntime's Indices and PyTorch pick it).
   */
  maxPool2d(x: Tensor, kernel: number, options: { readonly stride?: number; readonly pad?: number } = {}): Tensor {
    const { stride = kernel, pad = 0 } = options;
    this.own(x, 'MaxPool');
    this.requireFloat('MaxPool', x);
    if (x.rank !== 4) throw new Error(`MaxPool: needs x [N, C, H, W], got ${x.describe()}`);
    if (2 * pad > kernel) throw new Error(`MaxPool: padding ${pad} is more than half the ${kernel}x${kernel} window`);
    const out = x.shape.slice(2).map((size) => {
      if (typeof size !== 'number') throw new Error(`MaxPool: spatial sizes must be known, got ${x.describe()}`);
      if (size + 2 * pad < kernel) throw new Error(`MaxPool: a ${kernel}x${kernel} window does not fit ${x.describe()} with padding ${pad}`);
      return Math.floor((size + 2 * pad - kernel) / stride) + 1;
    });
    return this.node('MaxPool', [x], { kernel_shape: [kernel, kernel], strides: [stride, stride], pads: [pad, pad, pad, pad] }, x.dtype, [x.shape[0]!, x.shape[1]!, ...out]);
  }

  /**
   * Where each output of the MaxPool node `pooled` took its value: int64 flat indices into its
   * input, n, c, h and w all counted (ONNX MaxPool's second output, storage order 0). A second
   * MaxPool computes them, so the forward pass keeps its one-output kernel.
   */
  maxPoolIndices(pooled: Tensor): Tensor {
    this.own(pooled, 'maxPoolIndices');
    if (pooled.op !== 'MaxPool') throw new Error(`maxPoolIndices: ${pooled.describe()} is not a MaxPool`);
    return this.memo(`maxPoolIndices:#${pooled.id}`, () => {
      const [, indices] = this.customOutputs('MaxPool', pooled.inputs, [{ dtype: pooled.dtype, shape: pooled.shape }, { dtype: 'int64', shape: pooled.shape }], { attrs: pooled.attrs });
      return indices!;
    });
  }

  // ---- reductions ------------------------------------------------------------------

  reduceSum(x: Tensor, options: ReduceOptions = {}): Tensor {
    return this.reduce('ReduceSum', x, options);
  }
  reduceMean(x: Tensor, options: ReduceOptions = {}): Tensor {
    return this.reduce('ReduceMean', x, options);
  }
  reduceMax(x: Tensor, options: ReduceOptions = {}): Tensor {
    return this.reduce('ReduceMax', x, options);
  }
  /** Short for reduceMean; over all axes gives a scalar. */
  mean(x: Tensor, options: ReduceOptions = {}): Tensor {
    return this.reduceMean(x, options);
  }
  /** Short for reduceSum; over all axes gives a scalar. */
  sum(x: Tensor, options: ReduceOptions = {}): Tensor {
    return this.reduceSum(x, options);
  }

  /** Index of the largest value along `axis` (int64; ties pick the first). */
  argMax(x: Tensor, axis = -1, keepdims = false): Tensor {
    this.own(x, 'ArgMax');
    const ax = normalizeAxis(axis, x.rank, 'ArgMax');
    const shape = reducedShape(x.shape, [ax], keepdims);
    return this.node('ArgMax', [x], { axis: ax, keepdims: keepdims ? 1 : 0 }, 'int64', shape);
  }

  // ---- linear algebra --------------------------------------------------------------

  matmul(a: Tensor, b: Tensor): Tensor {
    this.own(a, 'MatMul');
    this.own(b, 'MatMul');
    this.requireFloat('MatMul', a);
    this.sameDtype('MatMul', a, b);
    return this.node('MatMul', [a, b], {}, a.dtype, matmulShape(a.shape, b.shape));
  }

  /** ONNX Gemm semantics, alpha * A' B' + beta * C, composed from MatMul so it has a gradient. */
  gemm(a: Tensor, b: Tensor, c?: Tensor, options: GemmOptions = {}): Tensor {
    const { alpha = 1, beta = 1, transA = false, transB = false } = options;
    let y = this.matmul(transA ? this.transpose(a) : a, transB ? this.transpose(b) : b);
    if (alpha !== 1) y = this.mul(y, alpha);
    if (c !== undefined) y = this.add(y, beta === 1 ? c : this.mul(c, beta));
    return y;
  }

  /** x @ w + b: a dense layer with w of shape [in, out] and b of shape [out]. */
  linear(x: Tensor, w: Tensor, b?: Tensor): Tensor {
    const y = this.matmul(x, w);
    return b === undefined ? y : this.add(y, b);
  }

  /**
   * Sums away the first `lead` axes of y (a bias gradient: [B, 64] -> [64]). With the
   * remaining dims known this is ones[1, B] @ y: onnxruntime's ReduceSum over leading axes
   * is about 4x slower than that GEMM on CPU (13 us against 3.5 us at [256, 64]), and bias
   * gradients sit on every training step.
   */
  sumLeadingAxes(y: Tensor, lead: number): Tensor {
    this.own(y, 'sumLeadingAxes');
    if (!Number.isInteger(lead) || lead < 1 || lead > y.rank) {
      throw new Error(`sumLeadingAxes: cannot sum the first ${lead} axes of ${y.describe()}`);
    }
    const rest = y.shape.slice(lead);
    if (rest.length === 0 || !isStatic(rest) || !isFloat(y.dtype)) return this.reduceSum(y, { axes: [...Array(lead).keys()] });
    const width = numel(rest);
    const flat = lead === 1 && rest.length === 1 ? y : this.reshape(y, [-1, width]);
    return this.reshape(this.matmul(this.onesRow(flat), flat), rest);
  }

  // ---- indexing --------------------------------------------------------------------

  /** ONNX GatherElements: out[i][j] = x[i][index[i][j]] for axis 1, and so on. */
  gatherElements(x: Tensor, index: Tensor, axis: number): Tensor {
    this.own(x, 'GatherElements');
    this.own(index, 'GatherElements');
    this.requireDtype('GatherElements', index, 'int64');
    if (index.rank !== x.rank) {
      throw new Error(`GatherElements: index rank ${index.rank} differs from data rank ${x.rank}`);
    }
    const ax = normalizeAxis(axis, x.rank, 'GatherElements');
    return this.node('GatherElements', [x, index], { axis: ax }, x.dtype, index.shape);
  }

  /**
   * Picks one entry of the last axis per row: x [..., A] and index [...] (int64) give [...].
   * This is log pi(a|s) from log-probabilities and taken actions.
   */
  gatherLast(x: Tensor, index: Tensor): Tensor {
    if (index.rank !== x.rank - 1) {
      throw new Error(`gatherLast: index ${formatShape(index.shape)} must have the shape of ${formatShape(x.shape)} without its last axis`);
    }
    const picked = this.gatherElements(x, this.unsqueeze(index, [index.rank]), -1);
    return this.squeeze(picked, [x.rank - 1]);
  }

  /** ONNX ScatterElements with reduction 'add' into `data` (the gradient of GatherElements). */
  scatterAdd(data: Tensor, index: Tensor, updates: Tensor, axis: number): Tensor {
    this.own(data, 'ScatterElements');
    this.requireDtype('ScatterElements', index, 'int64');
    this.sameDtype('ScatterElements', data, updates);
    const ax = normalizeAxis(axis, data.rank, 'ScatterElements');
    return this.node('ScatterElements', [data, index, updates], { axis: ax, reduction: 'add' }, data.dtype, data.shape);
  }

  /**
   * Rows of `table` at `index` (ONNX Gather on axis 0): an embedding lookup, table [V, D] and
   * int64 index [B, T] give [B, T, D]. Indices lie in [-V, V), negative ones counting from the
   * end (as in numpy, and in the gradient's ScatterND).
   */
  gather(table: Tensor, index: Tensor): Tensor {
    this.own(table, 'Gather');
    this.own(index, 'Gather');
    this.requireDtype('Gather', index, 'int64');
    if (table.rank < 1) throw new Error(`Gather: needs a table of rank >= 1, got ${table.describe()}`);
    return this.node('Gather', [table, index], { axis: 0 }, table.dtype, [...index.shape, ...table.shape.slice(1)]);
  }

  /**
   * data with updates added to its rows: data[index[i]] += updates[i] for each position i of
   * `index`, repeated indices accumulating (ONNX ScatterND with reduction 'add'). The
   * gradient of gather(): data [V, D], int64 index [B, T] and updates [B, T, D].
   */
  scatterAddRows(data: Tensor, index: Tensor, updates: Tensor): Tensor {
    this.own(data, 'ScatterND');
    this.own(index, 'ScatterND');
    this.requireDtype('ScatterND', index, 'int64');
    this.sameDtype('ScatterND', data, updates);
    const expected = [...index.shape, ...data.shape.slice(1)];
    if (updates.rank !== expected.length || !updates.shape.every((d, i) => d === expected[i] || typeof d === 'string' || typeof expected[i] === 'string')) {
      throw new Error(`ScatterND: updates must be ${formatShape(expected)} (the index's shape, then a row of ${data.describe()}), got ${updates.describe()}`);
    }
    // ScatterND's indices address rows with a trailing axis of one coordinate.
    const rows = this.unsqueeze(index, [index.rank]);
    return this.node('ScatterND', [data, rows, updates], { reduction: 'add' }, data.dtype, data.shape);
  }

  // ---- shape manipulation ----------------------------------------------------------

  /**
   * ONNX Reshape: 0 keeps the input's dim at that position, -1 takes what is left,
   * so [0, -1] flattens each row of a [B, ...] batch. A tensor target is an int64 shape.
   */
  reshape(x: Tensor, target: readonly number[] | Tensor): Tensor {
    this.own(x, 'Reshape');
    if (target instanceof Tensor) {
      this.requireDtype('Reshape', target, 'int64');
      return this.node('Reshape', [x, target], {}, x.dtype, this.shapeValue(target));
    }
    const shape = reshapedShape(x.shape, target);
    if (isStatic(x.shape) && isStatic(shape) && numel(x.shape) !== numel(shape)) {
      throw new Error(`Reshape: cannot reshape ${formatShape(x.shape)} to [${target.join(', ')}]`);
    }
    const targetT = this.const(target, { dtype: 'int64' });
    return this.node('Reshape', [x, targetT], {}, x.dtype, shape);
  }

  /** Reshapes to the run-time shape of `like` (used by gradients; works with symbolic dims). */
  reshapeLike(x: Tensor, like: Tensor): Tensor {
    return this.reshape(x, this.shapeOf(like));
  }

  transpose(x: Tensor, perm?: readonly number[]): Tensor {
    this.own(x, 'Transpose');
    const p = perm ? perm.map((a) => normalizeAxis(a, x.rank, 'Transpose')) : [...Array(x.rank).keys()].reverse();
    if (p.length !== x.rank || new Set(p).size !== p.length) {
      throw new Error(`Transpose: [${perm?.join(', ')}] is not a permutation of ${x.rank} axes`);
    }
    return this.node('Transpose', [x], { perm: p }, x.dtype, p.map((a) => x.shape[a]!));
  }

  /** Inserts size-1 axes; `axes` index the output. */
  unsqueeze(x: Tensor, axes: readonly number[]): Tensor {
    this.own(x, 'Unsqueeze');
    const ax = normalizeAxes(axes, x.rank + axes.length, 'Unsqueeze');
    return this.node('Unsqueeze', [x], { axes: ax }, x.dtype, unsqueezedShape(x.shape, ax));
  }

  /** Removes size-1 axes (which must be known to be 1). */
  squeeze(x: Tensor, axes: readonly number[]): Tensor {
    this.own(x, 'Squeeze');
    const ax = normalizeAxes(axes, x.rank, 'Squeeze');
    for (const a of ax) {
      if (x.shape[a] !== 1) throw new Error(`Squeeze: axis ${a} of ${x.describe()} is not 1`);
    }
    return this.node('Squeeze', [x], { axes: ax }, x.dtype, x.shape.filter((_, i) => !ax.includes(i)));
  }

  concat(xs: readonly Tensor[], axis: number): Tensor {
    if (xs.length === 0) throw new Error('Concat: no inputs');
    const first = xs[0]!;
    for (const t of xs) {
      this.own(t, 'Concat');
      this.sameDtype('Concat', first, t);
      if (t.rank !== first.rank) throw new Error(`Concat: ranks differ: ${first.describe()} and ${t.describe()}`);
    }
    const ax = normalizeAxis(axis, first.rank, 'Concat');
    const shape = first.shape.map((d, i) => {
      if (i !== ax) {
        for (const t of xs) {
          const e = t.shape[i]!;
          if (typeof d === 'number' && typeof e === 'number' && d !== e) {
            throw new Error(`Concat: dim ${i} differs between ${first.describe()} and ${t.describe()}`);
          }
        }
        return d;
      }
      const sizes = xs.map((t) => t.shape[ax]!);
      return sizes.every((s): s is number => typeof s === 'number') ? sizes.reduce((p, s) => p + s, 0) : unknownDim();
    });
    return this.node('Concat', xs, { axis: ax }, first.dtype, shape);
  }

  /** x[..., start:end, ...] along one axis (numpy rules for negative and out-of-range bounds). */
  slice(x: Tensor, axis: number, start: number, end?: number): Tensor {
    const e = end ?? SLICE_END;
    return this.sliceDynamic(x, axis, this.const([start], { dtype: 'int64' }), this.const([e], { dtype: 'int64' }));
  }

  /** Slice with int64 [1] start/end tensors computed in the graph. */
  sliceDynamic(x: Tensor, axis: number, start: Tensor, end: Tensor): Tensor {
    this.own(x, 'Slice');
    const ax = normalizeAxis(axis, x.rank, 'Slice');
    const axesT = this.const([ax], { dtype: 'int64' });
    const shape = x.shape.map((d, i) => (i === ax ? slicedDim(d, start, end) : d));
    return this.node('Slice', [x, start, end, axesT], {}, x.dtype, shape);
  }

  /** Zero-pads with `pads` = [begin per axis..., end per axis...] (the gradient of Slice). */
  pad(x: Tensor, pads: readonly number[]): Tensor {
    this.own(x, 'Pad');
    if (pads.length !== 2 * x.rank) throw new Error(`Pad: need ${2 * x.rank} pads for ${x.describe()}`);
    const shape = x.shape.map((d, i) =>
      typeof d === 'number' ? d + pads[i]! + pads[i + x.rank]! : pads[i] === 0 && pads[i + x.rank] === 0 ? d : unknownDim(),
    );
    return this.node('Pad', [x, this.const(pads, { dtype: 'int64' })], {}, x.dtype, shape);
  }

  /** Broadcasts x to the run-time shape of `like` (numpy rules). */
  expandAs(x: Tensor, like: Tensor): Tensor {
    this.own(x, 'Expand');
    const shape = broadcastShapes(x.shape, like.shape, 'Expand');
    return this.node('Expand', [x, this.shapeOf(like)], {}, x.dtype, shape);
  }

  cast(x: Tensor, dtype: DType): Tensor {
    this.own(x, 'Cast');
    if (x.dtype === dtype) return x;
    return this.node('Cast', [x], { to: dtype }, dtype, x.shape);
  }

  // ---- run-time shape queries (int64, no gradient) ---------------------------------

  /** The run-time shape of x as int64 [rank], or dims [start, end) of it. */
  shapeOf(x: Tensor, start?: number, end?: number): Tensor {
    this.own(x, 'Shape');
    const s = start === undefined ? 0 : normalizeAxis(start, x.rank, 'Shape');
    const e = end === undefined ? x.rank : end < 0 ? end + x.rank : end;
    const attrs: Record<string, number> = {};
    if (start !== undefined) attrs.start = s;
    if (end !== undefined) attrs.end = e;
    return this.node('Shape', [x], attrs, 'int64', [e - s]);
  }

  /** The number of elements of x, as an int64 scalar. */
  size(x: Tensor): Tensor {
    this.own(x, 'Size');
    return this.node('Size', [x], {}, 'int64', []);
  }

  /** A tensor of x's run-time shape filled with `value`. */
  fillLike(x: Tensor, value: number, dtype: DType = x.dtype): Tensor {
    return this.fill(this.shapeOf(x), value, dtype, x.shape);
  }

  /** A tensor of the run-time shape `shapeT` (int64 [rank]) filled with `value`; `shape` is what is known of it. */
  fill(shapeT: Tensor, value: number, dtype: DType, shape: Shape): Tensor {
    this.own(shapeT, 'ConstantOfShape');
    this.requireDtype('ConstantOfShape', shapeT, 'int64');
    const fill: ConstValue = { dtype, shape: [1], data: toHostArray([value], dtype) };
    return this.node('ConstantOfShape', [shapeT], { value: { tensor: fill } }, dtype, shape);
  }

  zerosLike(x: Tensor): Tensor {
    return this.fillLike(x, 0);
  }

  /**
   * Any ONNX op, for ops this builder does not wrap: of the default domain, or of `domain`
   * (ORT_DOMAIN: onnxruntime's fused kernels, for graphs that are only run forward). You state
   * the output dtype and shape; such an op has no gradient rule unless one is added to
   * gradients.ts. A domain's op is named `<domain>:<op>` (opOfDomain).
   */
  custom(op: string, inputs: readonly Tensor[], out: { dtype: DType; shape: Shape; attrs?: Attrs; domain?: string }): Tensor {
    for (const t of inputs) this.own(t, op);
    if (RESERVED_OPS.has(op)) throw new Error(`custom: '${op}' is built in; use its own method`);
    if (op.includes(':')) throw new Error(`custom: '${op}': give the domain as \`domain\`, not in the op's name`);
    return this.node(out.domain ? `${out.domain}:${op}` : op, inputs, out.attrs ?? {}, out.dtype, out.shape);
  }

  /**
   * A custom op of several outputs (onnxruntime's GroupQueryAttention: the attention and the
   * cache it wrote): one tensor per output, in order. The first is the node itself; each later one
   * is an OUTPUT_OF node reading it, which the model writer names among the node's outputs.
   */
  customOutputs(op: string, inputs: readonly Tensor[], outs: readonly { dtype: DType; shape: Shape }[], options: { attrs?: Attrs; domain?: string } = {}): Tensor[] {
    if (outs.length === 0) throw new Error(`customOutputs: '${op}' needs at least one output`);
    const first = this.custom(op, inputs, { ...outs[0]!, ...options });
    return [first, ...outs.slice(1).map((out, i) => this.node(OUTPUT_OF, [first], { index: i + 1 }, out.dtype, out.shape))];
  }

  /** An optional input left out, as ONNX writes it (an empty name), where a custom op's later inputs are given. */
  absent(): Tensor {
    return this.memo('absent', () => this.node(ABSENT, [], {}, 'float32', []));
  }

  // ---- internals -------------------------------------------------------------------

  /**
   * ones[1, rows] for x [rows, width]. A symbolic row count ('B') takes its run-time size
   * from a graph input with that dim, once per graph, so the many bias gradients of a
   * backward pass share one small subgraph instead of building one each.
   */
  private onesRow(x: Tensor): Tensor {
    const rows = x.shape[0]!;
    if (typeof rows === 'number') return this.const(new Array<number>(rows).fill(1), { dtype: x.dtype, shape: [1, rows] });
    const input = isUnknownDim(rows) ? undefined : this.inputs().find((t) => t.shape.includes(rows));
    const build = (source: Tensor, axis: number) => {
      const shape = this.concat([this.const([1], { dtype: 'int64' }), this.shapeOf(source, axis, axis + 1)], 0);
      return this.fill(shape, 1, x.dtype, [1, rows]);
    };
    // Only a row built from an input is safe to share: one built from x belongs to x's subgraph.
    if (!input) return build(x, 0);
    return this.memo(`onesRow:${x.dtype}:${rows}`, () => build(input, input.shape.indexOf(rows)));
  }

  private declare(name: string, op: 'Input' | 'Param', dtype: DType, shape: Shape): Tensor {
    if (name === '' || name.startsWith('_')) {
      throw new Error(`${op.toLowerCase()} '${name}': names must be non-empty and not start with '_' (reserved for generated names)`);
    }
    if (this.named.has(name)) throw new Error(`${op.toLowerCase()} '${name}': name already declared in this graph`);
    const t = this.node(op, [], {}, dtype, shape, name);
    this.named.set(name, t);
    return t;
  }

  private node(op: string, inputs: readonly Tensor[], attrs: Attrs, dtype: DType, shape: Shape, name?: string, value?: ConstValue): Tensor {
    if (op !== 'Cast' && (inputs.some((t) => t.dtype === 'float16') || (dtype === 'float16' && op !== 'Input' && op !== 'Param'))) refuseHalf(op, inputs, dtype);
    const t = new Tensor(this, this.nodeList.length, op, inputs, attrs, dtype, [...shape], name, value);
    this.nodeList.push(t);
    return t;
  }

  private own(t: Tensor, op: string): void {
    if (!(t instanceof Tensor)) throw new Error(`${op}: expected a Tensor, got ${typeof t}`);
    if (t.graph !== this) throw new Error(`${op}: ${t.describe()} belongs to another graph`);
  }

  /** Turns number operands into scalars of the tensor operand's dtype. */
  private lift(op: string, a: Operand, b: Operand): [Tensor, Tensor] {
    if (typeof a === 'number' && typeof b === 'number') throw new Error(`${op}: at least one operand must be a tensor`);
    const ta = typeof a === 'number' ? this.scalar(a, (b as Tensor).dtype) : a;
    const tb = typeof b === 'number' ? this.scalar(b, ta.dtype) : b;
    this.own(ta, op);
    this.own(tb, op);
    this.sameDtype(op, ta, tb);
    return [ta, tb];
  }

  private binary(op: string, a: Operand, b: Operand, outDtype?: DType): Tensor {
    const [ta, tb] = this.lift(op, a, b);
    if (outDtype === undefined && ta.dtype === 'bool') throw new Error(`${op}: not defined for bool tensors`);
    return this.node(op, [ta, tb], {}, outDtype ?? ta.dtype, broadcastShapes(ta.shape, tb.shape, op));
  }

  private unary(op: string, x: Tensor, floatOnly = true): Tensor {
    this.own(x, op);
    if (floatOnly) this.requireFloat(op, x);
    return this.node(op, [x], {}, x.dtype, x.shape);
  }

  private alongAxis(op: string, x: Tensor, axis: number): Tensor {
    this.own(x, op);
    this.requireFloat(op, x);
    return this.node(op, [x], { axis: normalizeAxis(axis, x.rank, op) }, x.dtype, x.shape);
  }

  private reduce(op: string, x: Tensor, options: ReduceOptions): Tensor {
    this.own(x, op);
    if (x.dtype === 'bool') throw new Error(`${op}: not defined for bool tensors`);
    const axes = normalizeAxes(options.axes, x.rank, op);
    const keepdims = options.keepdims ?? false;
    return this.node(op, [x], { axes, keepdims: keepdims ? 1 : 0 }, x.dtype, reducedShape(x.shape, axes, keepdims));
  }

  /** Static view of an int64 shape tensor's values, as far as they are known. */
  private shapeValue(shapeT: Tensor): Dim[] {
    if (shapeT.rank !== 1 || typeof shapeT.shape[0] !== 'number') {
      throw new Error(`shape tensor must be int64 [n] with n known, got ${shapeT.describe()}`);
    }
    if (shapeT.op === 'Shape') {
      const src = shapeT.inputs[0]!;
      const start = (shapeT.attrs.start as number | undefined) ?? 0;
      const end = (shapeT.attrs.end as number | undefined) ?? src.rank;
      return src.shape.slice(start, end);
    }
    if (shapeT.op === 'Const') return [...(shapeT.value!.data as BigInt64Array)].map(Number);
    return Array.from({ length: shapeT.shape[0] }, () => unknownDim());
  }

  private requireFloat(op: string, t: Tensor): void {
    if (!isFloat(t.dtype)) throw new Error(`${op}: needs a float tensor, got ${t.describe()}`);
  }

  private requireDtype(op: string, t: Tensor, dtype: DType): void {
    if (t.dtype !== dtype) throw new Error(`${op}: needs a ${dtype} tensor, got ${t.describe()}`);
  }

  private sameDtype(op: string, a: Tensor, b: Tensor): void {
    if (a.dtype !== b.dtype) {
      throw new Error(`${op}: dtypes differ: ${a.describe()} and ${b.describe()}; cast one of them first`);
    }
  }
}

// Ops with dedicated builders (and leaves), which custom() must not be used to fake.
/** Output `attrs.index` (1 and up) of the multi-output node it reads (Graph.customOutputs). */
export const OUTPUT_OF = 'OutputOf';
/** An optional input left out (Graph.absent): written as an empty name. */
export const ABSENT = 'Absent';

/** onnxruntime's own operator domain (its contrib ops: fused kernels such as RotaryEmbedding). */
export const ORT_DOMAIN = 'com.microsoft';

/** A node's domain and op type: `com.microsoft:RotaryEmbedding` is RotaryEmbedding of com.microsoft; a plain op is of the default domain (''). */
export function opOfDomain(op: string): { readonly domain: string; readonly opType: string } {
  const colon = op.lastIndexOf(':');
  return colon < 0 ? { domain: '', opType: op } : { domain: op.slice(0, colon), opType: op.slice(colon + 1) };
}

const RESERVED_OPS = new Set([OUTPUT_OF, ABSENT, 'Input', 'Param', 'Const', 'StopGradient', CUSTOM_GRADIENT]);

/** The number 1, or a rank-0 constant holding 1. */
function isScalarOne(x: Operand): boolean {
  if (typeof x === 'number') return x === 1;
  return x.op === 'Const' && x.rank === 0 && Number(x.value!.data[0]) === 1;
}

/**
 * A float16 tensor is an input or output of the model that crosses to the device in half the
 * bytes: the graph casts it and computes in float32 (or where mixed-precision.ts lowers it,
 * float16), so every other op on it is refused.
 */
function refuseHalf(op: string, inputs: readonly Tensor[], dtype: DType): never {
  const half = inputs.find((t) => t.dtype === 'float16');
  const what = half ? `reads ${half.describe()}` : `would write ${dtype}`;
  throw new Error(`${op}: ${what}; a Graph only declares float16 inputs and casts to or from float16 (g.cast(x, 'float32'), g.cast(y, 'float16')), precision 'fp16' decides where products compute in float16`);
}

/** Whether `one` multiplies `x` without changing its dtype or shape (a number, or a rank-0 tensor of x's dtype). */
function isScalarOf(one: Operand, x: Tensor): boolean {
  return typeof one === 'number' || (one.dtype === x.dtype && one.rank === 0);
}

/** Static size of one sliced dim, when the bounds are constants. */
function slicedDim(d: Dim, start: Tensor, end: Tensor): Dim {
  if (start.op !== 'Const' || end.op !== 'Const') return unknownDim();
  const s = Number((start.value!.data as BigInt64Array)[0]);
  const e = Number((end.value!.data as BigInt64Array)[0]);
  if (typeof d === 'number') {
    const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + d : v, 0), d);
    return Math.max(clamp(e) - clamp(s), 0);
  }
  if (s >= 0 && e >= s && e < SLICE_END) return e - s;
  if (s === 0 && e === SLICE_END) return d;
  return unknownDim();
}
