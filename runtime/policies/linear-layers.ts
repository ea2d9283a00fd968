// THE MLP builder of the networks over observations: the actor-critic (mlp.ts), DQN's
// Q-network (../algorithms/dqn/q-network.ts), SAC's actor and the twin critics
// (../algorithms/sac/networks.ts, ../algorithms/replay/twin-critics.ts) and numeric learner
// modules all lay out, initialise and run their dense layers here:
//
// - mlpSpecs(): hidden layers `${prefix}.i` (the mlp's `hidden` and `activation`), then a
//   linear `${prefix}.out` when it has an output width;
// - addLayers(): their weights in a WeightStore, [in, out] (y = x @ W + b), each layer's weight
//   then bias drawn in order: PyTorch's nn.Linear default (U(-1/sqrt(fan_in), 1/sqrt(fan_in))
//   for both), as CleanRL builds its DQN and SAC networks, or CleanRL's layer_init (orthogonal
//   weight with a gain, zero bias), as its PPO agent;
// - DenseNetwork: the layers' pass in a graph (training, export) and the same pass outside
//   onnxruntime (DenseStack: dense.ts, wasm-dense.ts) for acting, behind the network's
//   observation encoder (encoder.ts) when it reads observations (EncodedMlp).
import type { Rng } from '../../shared/random.js';
import type { Graph, Tensor, WeightStore } from '../tensor/index.js';
import { linearDefault, orthogonal } from '../tensor/init.js';
import { DenseStack, type Activation } from './dense.js';
import type { EncoderDefinition, ObservationEncoder } from './encoder.js';
import { FLATTEN } from './flatten-encoder.js';
import type { PolicySpaces } from './policy.js';

/** What the builder reads of an `mlp` policy's settings (mlp.ts MlpSettings). */
export interface HiddenLayers {
  readonly hidden: readonly number[];
  readonly activation: 'tanh' | 'relu';
}

export interface LayerSpec {
  readonly name: string;
  readonly inDim: number;
  readonly outDim: number;
  readonly activation: Activation;
}

/** How a layer starts: PyTorch's nn.Linear default, or CleanRL's layer_init with `gain`. */
export type LayerInit = { readonly kind: 'pytorch' } | { readonly kind: 'orthogonal'; readonly gain: number };

export const PYTORCH_LINEAR: LayerInit = { kind: 'pytorch' };

/** Hidden layers `${prefix}.i` from `inDim`, then `${prefix}.out` (linear) if `outDim` is given. */
export function mlpSpecs(prefix: string, inDim: number, settings: HiddenLayers, outDim?: number): LayerSpec[] {
  const { hidden, activation } = settings;
  const widths = [inDim, ...hidden];
  const layers: LayerSpec[] = hidden.map((width, i) => ({ name: `${prefix}.${i}`, inDim: widths[i], outDim: width, activation }));
  if (outDim !== undefined) layers.push({ name: `${prefix}.out`, inDim: widths[widths.length - 1], outDim, activation: 'none' });
  return layers;
}

/** Adds `layers`' weights to `store` in order, each weight then bias, as `init` says for that layer. */
export function addLayers(store: WeightStore, layers: readonly LayerSpec[], rng: Rng, init: (layer: LayerSpec) => LayerInit = () => PYTORCH_LINEAR): void {
  const random = () => rng.uniform();
  for (const layer of layers) {
    const how = init(layer);
    const { inDim, outDim } = layer;
    if (how.kind === 'orthogonal') {
      store.add(`${layer.name}.weight`, [inDim, outDim], () => orthogonal(random, inDim, outDim, how.gain));
      store.add(`${layer.name}.bias`, [outDim]);
    } else {
      store.add(`${layer.name}.weight`, [inDim, outDim], (size) => linearDefault(random, size, inDim));
      store.add(`${layer.name}.bias`, [outDim], (size) => linearDefault(random, size, inDim));
    }
  }
}

/** mlpSpecs() with an output layer, their weights added to `store` with PyTorch's default init. */
export function mlpLayers(store: WeightStore, prefix: string, inDim: number, outDim: number, settings: HiddenLayers, rng: Rng): LayerSpec[] {
  const layers = mlpSpecs(prefix, inDim, settings, outDim);
  addLayers(store, layers, rng);
  return layers;
}

/** Weight `name` of `store` in `g`, declared once per graph (a network may appear twice) under `rename(name)`. */
export function graphParam(g: Graph, store: WeightStore, name: string, rename: (name: string) => string = (n) => n): Tensor {
  return g.byName(rename(name)) ?? g.param(rename(name), store.get(name).shape);
}

/** The layers in `g` from `x`; `rename` reads a copy of the weights (a target network's, say). */
export function layersForward(g: Graph, store: WeightStore, layers: readonly LayerSpec[], x: Tensor, rename?: (name: string) => string): Tensor {
  return layers.reduce((h, layer) => {
    const y = g.linear(h, graphParam(g, store, `${layer.name}.weight`, rename), graphParam(g, store, `${layer.name}.bias`, rename));
    return layer.activation === 'tanh' ? g.tanh(y) : layer.activation === 'relu' ? g.relu(y) : y;
  }, x);
}

/**
 * Dense layers of `store` with both their passes: in a graph (training, export) and outside
 * onnxruntime (acting), over `store`'s arrays (sync() it after they change).
 */
export class DenseNetwork {
  readonly outDim: number;
  private readonly stack: DenseStack;
  private out = new Float32Array(0);

  constructor(
    readonly store: WeightStore,
    readonly layers: readonly LayerSpec[],
  ) {
    this.outDim = layers[layers.length - 1].outDim;
    this.stack = new DenseStack(layers.map((l) => ({ weight: store.get(`${l.name}.weight`).data, bias: store.get(`${l.name}.bias`).data, inDim: l.inDim, outDim: l.outDim, activation: l.activation })));
  }

  /** The pass in `g` from `x` (`rename` reads a copy, a target network's say). */
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

/**
 * An MLP over observations: the observation encoder of `spaces` (its weights, if any, as
 * `${prefix}.encoder.*`), then mlpLayers() to `outDim` with PyTorch's default init: the
 * networks DQN, SAC and numeric learner modules act with. Its passes take observation rows.
 */
export class EncodedMlp {
  readonly encoder: ObservationEncoder;
  readonly network: DenseNetwork;

  constructor(
    readonly store: WeightStore,
    prefix: string,
    spaces: PolicySpaces,
    readonly outDim: number,
    settings: HiddenLayers,
    rng: Rng,
    /** What reads the observations (flatten, or a `cnn` policy's CNN). */
    encoder: EncoderDefinition = FLATTEN,
  ) {
    this.encoder = encoder.build(spaces, store, `${prefix}.encoder`, rng);
    this.network = new DenseNetwork(store, mlpLayers(store, prefix, this.encoder.features, outDim, settings, rng));
  }

  get layers(): readonly LayerSpec[] {
    return this.network.layers;
  }

  /** The pass in `g` from observations `obs` [B, obsDim] (`rename` reads a copy of the weights). */
  forward(g: Graph, obs: Tensor, rename?: (name: string) => string): Tensor {
    return this.network.forward(g, this.encoder.encode(g, obs, rename), rename);
  }

  /** The pass outside onnxruntime: outputs [rows, outDim] into `out`. */
  forwardInto(obs: Float32Array, rows: number, out: Float32Array): void {
    this.network.forwardInto(this.encoder.encodeRows(obs, rows), rows, out);
  }

  /** The pass outside onnxruntime into a buffer this network reuses (the next call overwrites it). */
  run(obs: Float32Array, rows: number): Float32Array {
    return this.network.run(this.encoder.encodeRows(obs, rows), rows);
  }

  /** Makes the passes outside onnxruntime see the current weights; call after each update. */
  sync(): void {
    this.encoder.sync();
    this.network.sync();
  }
}
