// MLP layers with PyTorch's nn.Linear default initialisation (U(-1/sqrt(fan_in), 1/sqrt(fan_in))
// for weights and biases), as CleanRL builds its DQN and SAC networks: the layers' weights in a
// WeightStore, their forward pass in a graph, and the same pass outside onnxruntime (DenseStack)
// for acting. The `mlp` policy's actor-critic (mlp.ts) keeps PPO's orthogonal init instead.
import type { Rng } from '../../shared/random.js';
import type { Graph, Tensor, WeightStore } from '../tensor/index.js';
import { linearDefault } from '../tensor/init.js';
import { DenseStack, type Activation } from './dense.js';
import type { MlpSettings } from './mlp.js';

export interface LayerSpec {
  readonly name: string;
  readonly inDim: number;
  readonly outDim: number;
  readonly activation: Activation;
}

/**
 * Hidden layers `${prefix}.i` (the mlp's `hidden` and `activation`) then `${prefix}.out`
 * (linear), their weights added to `store`, each layer's weight then bias drawn from `rng`.
 */
export function mlpLayers(store: WeightStore, prefix: string, inDim: number, outDim: number, settings: MlpSettings, rng: Rng): LayerSpec[] {
  const { hidden, activation } = settings;
  const widths = [inDim, ...hidden, outDim];
  const random = () => rng.uniform();
  return widths.slice(1).map((width, i) => {
    const last = i === widths.length - 2;
    const layer: LayerSpec = { name: last ? `${prefix}.out` : `${prefix}.${i}`, inDim: widths[i], outDim: width, activation: last ? 'none' : activation };
    store.add(`${layer.name}.weight`, [layer.inDim, width], (size) => linearDefault(random, size, layer.inDim));
    store.add(`${layer.name}.bias`, [width], (size) => linearDefault(random, size, layer.inDim));
    return layer;
  });
}

/**
 * The layers in `g` from `x`; each weight is declared once per graph (a network may appear
 * twice), under `rename(name)` (a target network's copy, say).
 */
export function layersForward(g: Graph, store: WeightStore, layers: readonly LayerSpec[], x: Tensor, rename: (name: string) => string = (n) => n): Tensor {
  const param = (name: string) => g.byName(rename(name)) ?? g.param(rename(name), store.get(name).shape);
  return layers.reduce((h, layer) => {
    const y = g.linear(h, param(`${layer.name}.weight`), param(`${layer.name}.bias`));
    return layer.activation === 'tanh' ? g.tanh(y) : layer.activation === 'relu' ? g.relu(y) : y;
  }, x);
}

/** The layers' forward pass outside onnxruntime, over `store`'s arrays (sync() it after they change). */
function layersStack(store: WeightStore, layers: readonly LayerSpec[]): DenseStack {
  return new DenseStack(layers.map((l) => ({ weight: store.get(`${l.name}.weight`).data, bias: store.get(`${l.name}.bias`).data, inDim: l.inDim, outDim: l.outDim, activation: l.activation })));
}

/**
 * One MLP of mlpLayers() in `store`, with both its passes: in a graph (training, export) and
 * outside onnxruntime (acting), the networks DQN, SAC and numeric learner modules act with.
 */
export class LinearMlp {
  readonly layers: readonly LayerSpec[];
  private readonly stack: DenseStack;
  private out = new Float32Array(0);

  constructor(
    readonly store: WeightStore,
    prefix: string,
    inDim: number,
    readonly outDim: number,
    settings: MlpSettings,
    rng: Rng,
  ) {
    this.layers = mlpLayers(store, prefix, inDim, outDim, settings, rng);
    this.stack = layersStack(store, this.layers);
  }

  /** The pass in `g` from `x` (layersForward: `rename` reads a copy, a target network's say). */
  forward(g: Graph, x: Tensor, rename?: (name: string) => string): Tensor {
    return layersForward(g, this.store, this.layers, x, rename);
  }

  /** The pass outside onnxruntime: outputs [rows, outDim] into `out`. */
  forwardInto(x: Float32Array, rows: number, out: Float32Array): void {
    this.stack.forward(x, rows, out);
  }

  /** The pass outside onnxruntime into a buffer this network reuses (the next call overwrites it). */
  run(x: Float32Array, rows: number): Float32Array {
    if (this.out.length < rows * this.outDim) this.out = new Float32Array(rows * this.outDim);
    this.stack.forward(x, rows, this.out);
    return this.out;
  }

  /** Makes the pass outside onnxruntime see the current weights; call after each update. */
  sync(): void {
    this.stack.sync();
  }
}
