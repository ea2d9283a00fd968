// The least the transformer's sampling step and training step can cost with onnxruntime on
// this machine: their linear layers' matrix products and nothing else, timed in the same run
// as the real steps (bench/text.ts). A step of any implementation over onnxruntime's GEMM
// kernels pays at least this; it tells whether a speed target against PyTorch is reachable at
// all on this CPU, or lies below the arithmetic.
//
// Per block the model has four linear layers (qkv: C -> 3C, out: C -> C, up: C -> 4C,
// down: 4C -> C) and a tied LM head (C -> V). Sampling runs their forward products on one row
// per sequence; training runs, on every position, the forward product, the weight gradient
// (X^T dY) and the input gradient (dY W^T) of each. Attention's own products, the layer norms,
// GELU, softmax and Adam are left out, so the floor is a lower bound.
import { Graph } from '../runtime/tensor/graph.js';
import { Session } from '../runtime/tensor/session.js';
import type { Tensor } from '../runtime/tensor/tensor.js';
import { WeightStore } from '../runtime/tensor/weights.js';
import { seededRandom } from '../test/helpers/random.js';

export interface TransformerSize {
  readonly layers: number;
  readonly width: number;
  readonly vocab: number;
}

/** [in, out] of each linear layer of the model, the LM head last. */
function linearShapes(m: TransformerSize): [number, number][] {
  const C = m.width;
  const block: [number, number][] = [[C, 3 * C], [C, C], [C, 4 * C], [4 * C, C]];
  return [...Array.from({ length: m.layers }, () => block).flat(), [C, m.vocab]];
}

export interface FloorSession {
  /** Runs the products for `rows` rows (sampling: sequences; training: sequences x positions). */
  run(rows: number): Promise<void>;
  release(): Promise<void>;
}

/**
 * The linear layers' products of one step, each on inputs of its own (fed: random values, as
 * the products' cost does not depend on them). The one output, the sum of every result's first
 * element, needs all of them, and the session runs them one after the other on one thread, as
 * the trainer's sessions do.
 */
export async function linearFloor(m: TransformerSize, training: boolean): Promise<FloorSession> {
  const g = new Graph();
  const store = new WeightStore();
  const random = seededRandom(11);
  const filled = (n: number) => Float32Array.from({ length: n }, () => random() - 0.5);
  const outputs: Tensor[] = [];
  const inputs = new Map<string, number>(); // input name -> columns
  linearShapes(m).forEach(([inDim, outDim], i) => {
    store.add(`w${i}`, [inDim, outDim], filled);
    const w = g.param(`w${i}`, [inDim, outDim]);
    const x = g.input(`x${i}`, 'float32', ['R', inDim]);
    inputs.set(`x${i}`, inDim);
    const y = g.matmul(x, w);
    outputs.push(y);
    if (training) {
      const dy = g.input(`dy${i}`, 'float32', ['R', outDim]);
      inputs.set(`dy${i}`, outDim);
      outputs.push(g.gemm(x, dy, undefined, { transA: true })); // weight gradient [in, out]
      outputs.push(g.gemm(dy, w, undefined, { transB: true })); // input gradient [R, in]
    }
  });
  // One scalar output that needs every product: the sum of each result's first element.
  const first = (t: Tensor) => g.slice(g.slice(t, 0, 0, 1), 1, 0, 1);
  const total = outputs.map(first).reduce((a, b) => g.add(a, b));
  const session = await Session.create(g, { total }, { weights: store });
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
