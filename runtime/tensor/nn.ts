// Losses and distributions built from graph primitives, so they are differentiable
// without rules of their own. Each takes its graph from its first tensor. The categorical
// distribution lives with the policies (runtime/policies/distributions.ts), where its
// closed-form gradients are.

import type { Operand } from './graph.js';
import type { Tensor } from './tensor.js';

const LOG_2PI = Math.log(2 * Math.PI);

/** Mean squared error over all elements. */
export function mse(pred: Tensor, target: Operand): Tensor {
  const g = pred.graph;
  return g.mean(g.square(g.sub(pred, target)));
}

/**
 * Elementwise Huber (smooth L1) of x: 0.5 x^2 inside [-delta, delta], linear outside. Its
 * gradient is the closed form clip(x, -delta, delta): two nodes instead of the derived Where,
 * Square and Abs gradients, and no Sign, which onnxruntime's WebGPU provider runs on the CPU.
 */
export function huber(x: Tensor, delta = 1): Tensor {
  const g = x.graph;
  const ax = g.abs(x);
  const y = g.where(g.less(ax, delta), g.mul(g.square(x), 0.5), g.mul(g.sub(ax, 0.5 * delta), delta));
  return g.withGradient(y, [x], (dy) => [g.mul(dy, g.clip(x, -delta, delta))]);
}

/** log(sum(exp(x))) along `axis`, shifted by the (gradient-free) max for stability. */
export function logSumExp(x: Tensor, axis = -1, keepdims = false): Tensor {
  const g = x.graph;
  const shift = g.stopGradient(g.reduceMax(x, { axes: [axis], keepdims: true }));
  const lse = g.add(g.log(g.reduceSum(g.exp(g.sub(x, shift)), { axes: [axis], keepdims: true })), shift);
  return keepdims ? lse : g.squeeze(lse, [axis < 0 ? axis + x.rank : axis]);
}

/** log N(x; mean, exp(logStd)^2) summed over the last (action) axis; result [...]. */
export function gaussianLogProb(x: Tensor, mean: Tensor, logStd: Tensor): Tensor {
  const g = x.graph;
  const z = g.mul(g.sub(x, mean), g.exp(g.neg(logStd)));
  const perDim = g.sub(g.sub(g.mul(g.square(z), -0.5), logStd), 0.5 * LOG_2PI);
  return g.reduceSum(perDim, { axes: [-1] });
}

/** Entropy of a diagonal Gaussian summed over the last axis: sum(logStd + 0.5 (1 + log 2 pi)). */
export function gaussianEntropy(logStd: Tensor): Tensor {
  const g = logStd.graph;
  return g.reduceSum(g.add(logStd, 0.5 * (1 + LOG_2PI)), { axes: [-1] });
}
