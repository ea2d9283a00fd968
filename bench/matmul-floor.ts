// The least a step made of given linear layers can cost with onnxruntime on this machine: the
// layers' matrix products and nothing else (no activations, losses, optimiser), on one thread,
// as the trainer's sessions run. A step of any implementation over onnxruntime's GEMM kernels
// pays at least this; the benches time it beside the real step to tell whether a speed target
// is reachable at all on this CPU or lies below the arithmetic (text-floor.ts, offpolicy-floor.ts).

import { Graph } from '../runtime/tensor/graph.js';
import { Session } from '../runtime/tensor/session.js';
import type { Tensor } from '../runtime/tensor/tensor.js';
import { WeightStore } from '../runtime/tensor/weights.js';
import { seededRandom } from '../test/helpers/random.js';

/** One linear layer [inDim, outDim] of a step, and which of its products the step needs. */
export interface LinearUse {
  readonly inDim: number;
  readonly outDim: number;
  /** X^T dY: the layer's weights are trained in this step. */
  readonly weightGradient: boolean;
  /** dY W^T: a gradient flows through the layer to what feeds it. */
  readonly inputGradient: boolean;
}

export interface FloorSession {
  /** Runs the products for `rows` rows (every layer on the same rows). */
  run(rows: number): Promise<void>;
  release(): Promise<void>;
}

/**
 * The products of `layers`, each on inputs of its own (fed: random values, as the products' cost
 * does not depend on them). The one output, the sum of every result's first element, needs all
 * of them, and the session runs them one after the other, each split across `threads` threads
 * (1 as the trainer's small sessions run; a large model's steps use more, Compute.opThreads).
 */
export async function matmulFloor(layers: readonly LinearUse[], threads = 1): Promise<FloorSession> {
  const g = new Graph();
  const store = new WeightStore();
  const random = seededRandom(11);
  const filled = (n: number) => Float32Array.from({ length: n }, () => random() - 0.5);
  const outputs: Tensor[] = [];
  const inputs = new Map<string, number>(); // input name -> columns
  layers.forEach(({ inDim, outDim, weightGradient, inputGradient }, i) => {
    store.add(`w${i}`, [inDim, outDim], filled);
    const w = g.param(`w${i}`, [inDim, outDim]);
    const x = g.input(`x${i}`, 'float32', ['R', inDim]);
    inputs.set(`x${i}`, inDim);
    outputs.push(g.matmul(x, w));
    if (weightGradient || inputGradient) {
      const dy = g.input(`dy${i}`, 'float32', ['R', outDim]);
      inputs.set(`dy${i}`, outDim);
      if (weightGradient) outputs.push(g.gemm(x, dy, undefined, { transA: true })); // [in, out]
      if (inputGradient) outputs.push(g.gemm(dy, w, undefined, { transB: true })); // [R, in]
    }
  });
  // One scalar output that needs every product: the sum of each result's first element.
  const first = (t: Tensor) => g.slice(g.slice(t, 0, 0, 1), 1, 0, 1);
  const total = outputs.map(first).reduce((a, b) => g.add(a, b));
  const session = await Session.create(g, { total }, { weights: store, intraOpNumThreads: threads });
  const feedsByRows = new Map<number, Record<string, { data: Float32Array; dims: number[] }>>();
  return {
    async run(rows) {
      let feeds = feedsByRows.get(rows);
      if (!feeds) {
        feeds = {};
        for (const [name, cols] of inputs) feeds[name] = { data: filled(rows * cols), dims: [rows, cols] };
        feedsByRows.set(rows, feeds);
      }
      await session.run(feeds);
    },
    release: () => session.release(),
  };
}
