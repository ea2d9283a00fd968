// The least a gradient step of the CartPole MLP can cost with onnxruntime on this machine: the
// bench's baseline for PPO's gradient step, measured in the same run.
//
// Any gradient of a 4-64-64-k tanh MLP must run its three forward matrix products, the three
// weight-gradient products and two input-gradient products; this graph runs those and nothing
// else (the output gradient is softmax - onehot for the actor, out - target for the critic: no
// clipping, no entropy, no metrics). PPO's actor and critic parts can only be slower. On two
// threads the two networks run at once, so the floor of a step is the slower of the two.
import { Graph } from '../runtime/tensor/graph.js';
import { seededRandom } from '../test/helpers/random.js';
import { WeightStore } from '../runtime/tensor/weights.js';
import { Session } from '../runtime/tensor/session.js';
import type { Tensor } from '../runtime/tensor/tensor.js';

const HIDDEN = 64;

/** Multiply-adds of one gradient of a [obsDim, HIDDEN, HIDDEN, outDim] MLP, per row. */
export function mlpGradientMacsPerRow(obsDim: number, outDim: number): number {
  const forward = obsDim * HIDDEN + HIDDEN * HIDDEN + HIDDEN * outDim;
  const inputGradients = HIDDEN * outDim + HIDDEN * HIDDEN; // none for the observations
  return 2 * forward + inputGradients; // forward, weight gradients (same sizes), input gradients
}

/** Forward and backward of one MLP; returns the flattened parameter gradients. */
function mlpGradient(g: Graph, store: WeightStore, x: Tensor, obsDim: number, prefix: string, outDim: number, outputGradient: (out: Tensor) => Tensor): Tensor {
  const random = seededRandom(7);
  const param = (name: string, shape: number[]) => {
    store.add(prefix + name, shape, (n) => Float32Array.from({ length: n }, () => random() - 0.5));
    return g.param(prefix + name, shape);
  };
  const [w1, b1] = [param('w1', [obsDim, HIDDEN]), param('b1', [HIDDEN])];
  const [w2, b2] = [param('w2', [HIDDEN, HIDDEN]), param('b2', [HIDDEN])];
  const [w3, b3] = [param('w3', [HIDDEN, outDim]), param('b3', [outDim])];
  const h1 = g.tanh(g.gemm(x, w1, b1));
  const h2 = g.tanh(g.gemm(h1, w2, b2));
  const d3 = outputGradient(g.gemm(h2, w3, b3));
  const d2 = g.mul(g.gemm(d3, w3, undefined, { transB: true }), g.sub(1, g.mul(h2, h2)));
  const d1 = g.mul(g.gemm(d2, w2, undefined, { transB: true }), g.sub(1, g.mul(h1, h1)));
  const grads = [
    g.gemm(x, d1, undefined, { transA: true }),
    g.reduceSum(d1, { axes: [0] }),
    g.gemm(h1, d2, undefined, { transA: true }),
    g.reduceSum(d2, { axes: [0] }),
    g.gemm(h2, d3, undefined, { transA: true }),
    g.reduceSum(d3, { axes: [0] }),
  ];
  return g.concat(grads.map((t) => g.reshape(t, [-1])), 0);
}

export interface FloorSessions {
  actor: Session;
  critic: Session;
  /** Feeds for `rows` rows, by input name. */
  feeds(rows: number): Record<string, { data: Float32Array; dims: number[] }>;
  release(): Promise<void>;
}

/** The actor's (2 discrete actions) and the critic's minimal gradient sessions for CartPole. */
export async function floorSessions(): Promise<FloorSessions> {
  const obsDim = 4;
  const make = async (outDim: number, prefix: string, outputGradient: (g: Graph, out: Tensor) => Tensor) => {
    const g = new Graph();
    const store = new WeightStore();
    const x = g.input('obs', 'float32', ['B', obsDim]);
    const flat = mlpGradient(g, store, x, obsDim, prefix, outDim, (out) => outputGradient(g, out));
    return Session.create(g, { flat }, { weights: store });
  };
  const actor = await make(2, 'actor.', (g, out) => g.sub(g.softmax(out), g.input('onehot', 'float32', ['B', 2])));
  const critic = await make(1, 'critic.', (g, out) => g.sub(out, g.input('target', 'float32', ['B', 1])));
  const random = seededRandom(3);
  const filled = (n: number) => Float32Array.from({ length: n }, () => random());
  return {
    actor,
    critic,
    feeds: (rows) => ({
      obs: { data: filled(rows * obsDim), dims: [rows, obsDim] },
      onehot: { data: Float32Array.from({ length: rows * 2 }, (_, i) => (i % 2 === 0 ? 1 : 0)), dims: [rows, 2] },
      target: { data: filled(rows), dims: [rows, 1] },
    }),
    release: async () => {
      await actor.release();
      await critic.release();
    },
  };
}
