// Small pieces most text objectives need, built from LossGraph's ops (so they are part of the
// stable surface without adding ops to it).
import type { LossGraph, LossTensor } from './loss-graph.js';

/** For a [B] vector, each row's group mean (the mean of its `groupSize` consecutive rows), as a [B] vector: a baseline. */
export function groupMean(g: LossGraph, values: LossTensor, groupSize: number): LossTensor {
  const groups = g.reshape(values, [-1, groupSize]); // [B/G, G]
  // Adding the [B/G, 1] means to zeros of the groups' shape spreads each over its group.
  return g.reshape(g.add(g.mul(groups, 0), g.mean(groups, { axes: [1], keepdims: true })), [-1]);
}

/** The mean of x [B, T] over the positions where mask is 1, all rows together (a scalar). */
export function maskedMean(g: LossGraph, x: LossTensor, mask: LossTensor): LossTensor {
  return g.div(g.sum(g.mul(x, mask)), g.max(g.sum(mask), 1));
}

/** Each row's mean of x [B, T] over its masked positions ([B]): a completion's average per token. */
export function sequenceMean(g: LossGraph, x: LossTensor, mask: LossTensor): LossTensor {
  return g.div(g.sum(g.mul(x, mask), { axes: [1] }), g.max(g.sum(mask, { axes: [1] }), 1));
}
