// The gradient table: one rule per primitive op, (gradOut, node) -> one gradient per
// input (null where none flows). Rules emit ordinary graph ops, so gradient graphs are
// themselves differentiable wherever their ops have rules. Composite ops (square, gemm,
// linear, gatherLast, ...) have no entries: they are built from the ops below.

import { CUSTOM_GRADIENT, type Graph } from './graph.js';
import type { Tensor } from './tensor.js';
import { isFloat } from './types.js';

export type GradientRule = (gradOut: Tensor, node: Tensor) => readonly (Tensor | null)[];

/**
 * Sums a gradient of broadcast shape back to the shape of the input it came from:
 * leading axes the input lacks are summed away, axes where the input has size 1 are
 * summed with keepdims. Symbolic dims are assumed never to be broadcast.
 */
export function unbroadcast(grad: Tensor, input: Tensor): Tensor {
  const g = grad.graph;
  let y = grad;
  const lead = y.rank - input.rank;
  if (lead > 0) y = g.sumLeadingAxes(y, lead);
  const axes = input.shape.flatMap((d, i) => (d === 1 && y.shape[i] !== 1 ? [i] : []));
  if (axes.length > 0) y = g.reduceSum(y, { axes, keepdims: true });
  return y;
}

function swapLastTwo(g: Graph, t: Tensor): Tensor {
  const perm = [...Array(t.rank).keys()];
  [perm[t.rank - 2], perm[t.rank - 1]] = [perm[t.rank - 1]!, perm[t.rank - 2]!];
  return g.transpose(t, perm);
}

/**
 * d(a @ b)/db. A linear layer's weight b [K, N] applied to rows with batch dims, a [..., M, K]:
 * one product over every row, a[-1, K]^T @ dy[-1, N]. The general form, a batched a^T @ dy
 * summed over the batch dims, makes a [..., K, N] product per batch element out of M-row
 * slices (13 positions of a text batch) and then sums them: in a transformer's SFT step at
 * batch 256 those products and sums took about a third of the step.
 */
function matmulRightGradient(g: Graph, a: Tensor, b: Tensor, dy: Tensor): Tensor {
  const [k, n] = b.shape;
  if (b.rank === 2 && a.rank > 2 && typeof k === 'number' && typeof n === 'number') {
    return g.gemm(g.reshape(a, [-1, k]), g.reshape(dy, [-1, n]), undefined, { transA: true });
  }
  return unbroadcast(g.matmul(swapLastTwo(g, a), dy), b);
}

/** The reduced gradient put back with the reduced axes as size 1, so it broadcasts over x. */
function keepReducedAxes(g: Graph, t: Tensor, node: Tensor): Tensor {
  return node.attrs.keepdims ? t : g.unsqueeze(t, node.attrs.axes as number[]);
}

/** Gradient for one side of Min/Max: all of it where this side wins, half on ties. */
function minMaxShare(g: Graph, dy: Tensor, wins: Tensor, ties: Tensor): Tensor {
  return g.where(wins, dy, g.where(ties, g.mul(dy, 0.5), 0));
}

const axesOf = (node: Tensor): number[] => node.attrs.axes as number[];
const constInt = (t: Tensor): number | undefined =>
  t.op === 'Const' ? Number((t.value!.data as BigInt64Array)[0]) : undefined;

export const GRADIENTS: Readonly<Record<string, GradientRule>> = {
  Identity: (dy) => [dy],
  StopGradient: () => [null],
  // withGradient(): the passed-through value gets nothing, the rule's targets what it says.
  [CUSTOM_GRADIENT]: (dy, node) => {
    const grads = node.graph.customGradientRule(node)(dy);
    if (grads.length !== node.inputs.length - 1) {
      throw new Error(`withGradient: the rule of ${node.describe()} gave ${grads.length} gradients for ${node.inputs.length - 1} tensors`);
    }
    return [null, ...grads];
  },

  Add: (dy, { inputs: [a, b] }) => [unbroadcast(dy, a!), unbroadcast(dy, b!)],
  Sub: (dy, { graph: g, inputs: [a, b] }) => [unbroadcast(dy, a!), unbroadcast(g.neg(dy), b!)],
  Mul: (dy, { graph: g, inputs: [a, b] }) => [unbroadcast(g.mul(dy, b!), a!), unbroadcast(g.mul(dy, a!), b!)],
  Div: (dy, y) => {
    const g = y.graph;
    const [a, b] = y.inputs;
    // d(a/b)/db = -a/b^2 = -y/b
    return [unbroadcast(g.div(dy, b!), a!), unbroadcast(g.neg(g.div(g.mul(dy, y), b!)), b!)];
  },
  Pow: (dy, y) => {
    const g = y.graph;
    const [a, b] = y.inputs;
    const da = g.mul(dy, g.mul(b!, g.pow(a!, g.sub(b!, 1))));
    // Only meaningful for a > 0; pruned from the model when the exponent needs no gradient.
    const db = g.mul(dy, g.mul(y, g.log(a!)));
    return [unbroadcast(da, a!), unbroadcast(db, b!)];
  },
  Min: (dy, { graph: g, inputs: [a, b] }) => {
    const ties = g.equal(a!, b!);
    return [unbroadcast(minMaxShare(g, dy, g.less(a!, b!), ties), a!), unbroadcast(minMaxShare(g, dy, g.less(b!, a!), ties), b!)];
  },
  Max: (dy, { graph: g, inputs: [a, b] }) => {
    const ties = g.equal(a!, b!);
    return [
      unbroadcast(minMaxShare(g, dy, g.greater(a!, b!), ties), a!),
      unbroadcast(minMaxShare(g, dy, g.greater(b!, a!), ties), b!),
    ];
  },
  Where: (dy, { graph: g, inputs: [cond, a, b] }) => [
    null,
    unbroadcast(g.where(cond!, dy, 0), a!),
    unbroadcast(g.where(cond!, 0, dy), b!),
  ],

  Neg: (dy, { graph: g }) => [g.neg(dy)],
  Abs: (dy, { graph: g, inputs: [x] }) => [g.mul(dy, g.sign(x!))],
  Sign: () => [null],
  Exp: (dy, y) => [y.graph.mul(dy, y)],
  Log: (dy, { graph: g, inputs: [x] }) => [g.div(dy, x!)],
  Sqrt: (dy, y) => [y.graph.div(y.graph.mul(dy, 0.5), y)],
  Tanh: (dy, y) => {
    const g = y.graph;
    return [g.mul(dy, g.sub(1, g.mul(y, y)))];
  },
  Sigmoid: (dy, y) => {
    const g = y.graph;
    return [g.mul(dy, g.mul(y, g.sub(1, y)))];
  },
  Relu: (dy, { graph: g, inputs: [x] }) => [g.where(g.greater(x!, 0), dy, 0)],
  Softplus: (dy, { graph: g, inputs: [x] }) => [g.mul(dy, g.sigmoid(x!))],
  // Gradient passes at the bounds themselves, as in PyTorch's clamp.
  Clip: (dy, { graph: g, inputs: [x, lo, hi] }) => [
    g.where(g.and(g.greaterOrEqual(x!, lo!), g.lessOrEqual(x!, hi!)), dy, 0),
    null,
    null,
  ],

  Softmax: (dy, y) => {
    const g = y.graph;
    const axes = [y.attrs.axis as number];
    const dot = g.reduceSum(g.mul(dy, y), { axes, keepdims: true });
    return [g.mul(y, g.sub(dy, dot))];
  },
  LogSoftmax: (dy, y) => {
    const g = y.graph;
    const axes = [y.attrs.axis as number];
    return [g.sub(dy, g.mul(g.exp(y), g.reduceSum(dy, { axes, keepdims: true })))];
  },

  ReduceSum: (dy, node) => {
    const g = node.graph;
    return [g.expandAs(keepReducedAxes(g, dy, node), node.inputs[0]!)];
  },
  ReduceMean: (dy, node) => {
    const g = node.graph;
    const x = node.inputs[0]!;
    const reduced = axesOf(node).map((a) => x.shape[a]!);
    // The count is a constant when the reduced dims are known, else Size(x) / Size(y) at run time.
    const count = reduced.every((d): d is number => typeof d === 'number')
      ? reduced.reduce((p, d) => p * d, 1)
      : g.cast(g.div(g.size(x), g.size(node)), x.dtype);
    return [g.div(g.expandAs(keepReducedAxes(g, dy, node), x), count)];
  },
  ReduceMax: (dy, node) => {
    const g = node.graph;
    const x = node.inputs[0]!;
    // Ties share the gradient evenly, like torch.amax.
    const mask = g.cast(g.equal(x, keepReducedAxes(g, node, node)), x.dtype);
    const count = g.reduceSum(mask, { axes: axesOf(node), keepdims: true });
    return [g.div(g.mul(mask, keepReducedAxes(g, dy, node)), count)];
  },

  // A 2-D weight against a batched input (x [B, T, D] @ w [D, E]) gets one product over all
  // rows, x[BT, D]^T @ dy[BT, E] (matmulRightGradient). An earlier measurement found it no
  // faster than [B, D, E] products summed over B, for B up to 16; at a text batch's B of 64-256
  // the summed form was a third of the SFT step.
  MatMul: (dy, { graph: g, inputs: [a, b] }) => [unbroadcast(g.matmul(dy, swapLastTwo(g, b!)), a!), matmulRightGradient(g, a!, b!, dy)],

  LayerNormalization: (dy, node) => {
    const g = node.graph;
    const [x, scale, bias] = node.inputs;
    const axes = [-1];
    const mean = (t: Tensor) => g.reduceMean(t, { axes, keepdims: true });
    // The normalised x and 1 / sigma, recomputed: our nodes have one output, so the kernel's
    // optional Mean and InvStdDev outputs are out of reach.
    const centred = g.sub(x!, mean(x!));
    // The attribute is a float32 in the model, so the kernel adds fround(epsilon).
    const epsilon = Math.fround((node.attrs.epsilon as { float: number }).float);
    const invStd = g.pow(g.add(mean(g.mul(centred, centred)), epsilon), -0.5);
    const normalised = g.mul(centred, invStd);
    const dNormalised = g.mul(dy, scale!);
    // dx = (dn - mean(dn) - n * mean(dn * n)) / sigma, the mean over the normalised axis.
    const dx = g.mul(g.sub(g.sub(dNormalised, mean(dNormalised)), g.mul(normalised, mean(g.mul(dNormalised, normalised)))), invStd);
    return [dx, unbroadcast(g.mul(dy, normalised), scale!), unbroadcast(dy, bias!)];
  },

  // dx: the transposed convolution of dy by the same weight. dw[o, c, i, j] = sum over n and
  // output positions of dy[n, o] x[n, c] shifted by (i, j): a Conv of x with channels and batch
  // swapped ([C, N, H, W]) by dy as the kernel ([O, N, H', W'], dilated by the stride),
  // cropped to the kernel's size and swapped back. db sums dy over batch and positions.
  Conv: (dy, node) => {
    const g = node.graph;
    const [x, w, b] = node.inputs;
    const stride = (node.attrs.strides as number[])[0]!;
    const pad = (node.attrs.pads as number[])[0]!;
    const dilation = (node.attrs.dilations as number[])[0]!;
    const [, , kh, kw] = w!.shape as number[];
    const size = [x!.shape[2], x!.shape[3]] as [number, number];
    const dx = g.convTranspose2d(dy, w!, size, { stride, pad, dilation });
    const swap = (t: Tensor) => g.transpose(t, [1, 0, 2, 3]);
    const spread = g.conv2d(swap(x!), swap(dy), undefined, { pad, stride: dilation, dilation: stride });
    const [, , sh, sw] = spread.shape as number[];
    const cropped = sh === kh && sw === kw ? spread : g.slice(g.slice(spread, 2, 0, kh!), 3, 0, kw!);
    const dw = swap(cropped);
    return b ? [dx, dw, g.reduceSum(dy, { axes: [0, 2, 3] })] : [dx, dw];
  },
  // dy goes to where each window's maximum sat, accumulated where windows overlap.
  MaxPool: (dy, node) => {
    const g = node.graph;
    const x = node.inputs[0]!;
    const flat = (t: Tensor) => g.reshape(t, [1, -1]);
    const routed = g.scatterAdd(g.zerosLike(flat(x)), flat(g.maxPoolIndices(node)), flat(dy), 1);
    return [g.reshapeLike(routed, x)];
  },

  GatherElements: (dy, node) => {
    const g = node.graph;
    const [x, index] = node.inputs;
    return [g.scatterAdd(g.zerosLike(x!), index!, dy, node.attrs.axis as number), null];
  },
  // An embedding's gradient: each looked-up row's gradient added back into its row. ScatterND
  // touches each gradient row once, where a one-hot MatMul (onehot(index)^T @ dy) also
  // multiplies it by V-1 zeros; at vocabularies 16-64, widths 64-128 and 256-2048 lookups it
  // was faster in 21 of 24 CPU timings (typically 2-4x, up to ~10x at 2048 lookups; the
  // three exceptions single outliers on a loaded machine). npm run bench -- tensor.
  Gather: (dy, { graph: g, inputs: [table, index] }) => [g.scatterAddRows(g.zerosLike(table!), index!, dy), null],
  ScatterND: (dy, { graph: g, inputs: [, rows] }) => [dy, null, g.gather(dy, g.squeeze(rows!, [rows!.rank - 1]))],
  ScatterElements: (dy, node) => {
    const g = node.graph;
    if (node.attrs.reduction !== 'add') throw new Error(`no gradient for ScatterElements with reduction '${String(node.attrs.reduction)}'`);
    const index = node.inputs[1]!;
    return [dy, null, g.gatherElements(dy, index, node.attrs.axis as number)];
  },

  Reshape: (dy, { graph: g, inputs: [x] }) => [g.reshapeLike(dy, x!), null],
  Expand: (dy, { inputs: [x] }) => [unbroadcast(dy, x!), null],
  Transpose: (dy, node) => {
    const perm = node.attrs.perm as number[];
    const inverse = perm.map((_, i) => perm.indexOf(i));
    return [node.graph.transpose(dy, inverse)];
  },
  Unsqueeze: (dy, node) => [node.graph.squeeze(dy, axesOf(node))],
  Squeeze: (dy, node) => [node.graph.unsqueeze(dy, axesOf(node))],
  Cast: (dy, { graph: g, inputs: [x] }) => [isFloat(x!.dtype) ? g.cast(dy, x!.dtype) : null],

  Concat: (dy, node) => {
    const g = node.graph;
    const axis = node.attrs.axis as number;
    const sizes = node.inputs.map((t) => t.shape[axis]!);
    if (sizes.every((s): s is number => typeof s === 'number')) {
      let offset = 0;
      return sizes.map((s) => g.slice(dy, axis, offset, (offset += s)));
    }
    // Some sizes are only known at run time: compute the offsets in the graph.
    let start = g.const([0], { dtype: 'int64' });
    return node.inputs.map((t) => {
      const end = g.add(start, g.shapeOf(t, axis, axis + 1));
      const piece = g.sliceDynamic(dy, axis, start, end);
      start = end;
      return piece;
    });
  },
  Slice: (dy, node) => {
    const g = node.graph;
    const [x, startT, endT, axesT] = node.inputs;
    const axis = constInt(axesT!)!;
    const d = x!.shape[axis];
    const start = constInt(startT!);
    const end = constInt(endT!);
    if (typeof d !== 'number' || start === undefined || end === undefined) {
      throw new Error(`no gradient for Slice of ${x!.describe()} on axis ${axis}: needs constant bounds and a known size on that axis`);
    }
    const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + d : v, 0), d);
    const pads = new Array<number>(2 * x!.rank).fill(0);
    pads[axis] = clamp(start);
    pads[axis + x!.rank] = d - Math.max(clamp(end), clamp(start));
    return [g.pad(dy, pads), null, null, null];
  },
};
