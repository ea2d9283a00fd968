// The `mlp` policy: actor and critic multi-layer perceptrons, as CleanRL's Agent.
//
// - Separate actor and critic networks by default; `shared_trunk: true` shares the hidden
//   layers and puts the two heads on top.
// - Orthogonal initialisation as CleanRL's layer_init: gain sqrt(2) for hidden layers,
//   0.01 for the actor head (near-uniform initial policy), 1 for the critic head; biases 0.
// - Continuous actions: the actor outputs the mean; the log-std is a state-independent
//   parameter initialised to 0 (CleanRL ppo_continuous_action.py).
// - MultiBinary actions: the actor outputs one logit per bit (distributions.ts Bernoulli).
//
// Parameters live in one WeightStore, named `actor.0.weight`, `critic.out.bias`,
// `trunk.1.weight`, `actor.log_std`; weights are [in, out] (y = x @ W + b).
import { spaceSize } from '../envs/types.js';
import { PlanParams } from '../plan-params.js';
import type { Rng } from '../../shared/random.js';
import { buildModel, Graph, WeightStore, type Tensor } from '../tensor/index.js';
import { orthogonal } from '../tensor/init.js';
import { DenseStack, type Activation } from './dense.js';
import { Bernoulli, Categorical, DiagGaussian, type ActionBuffer, type ActionDistribution, type ActorOutput } from './distributions.js';
import { actFromHead, type ActorCriticGraph, type ActorCriticPolicy, type OnnxInterface, type PolicySpaces } from './policy.js';

export interface MlpSettings {
  readonly hidden: readonly number[];
  readonly activation: 'tanh' | 'relu';
  readonly sharedTrunk: boolean;
}

/** Reads the plan's `mlp` settings (defaults from the registry); errors name the param. */
export function mlpSettings(params: Readonly<Record<string, unknown>>): MlpSettings {
  const p = PlanParams.of('mlp', params, 'policy mlp');
  return { hidden: p.counts('hidden'), activation: p.option('activation', ['tanh', 'relu']), sharedTrunk: p.flag('shared_trunk') };
}

interface LayerSpec {
  readonly name: string;
  readonly inDim: number;
  readonly outDim: number;
  readonly gain: number;
  readonly activation: Activation;
}

export class MlpPolicy implements ActorCriticPolicy {
  readonly kind = 'mlp';
  readonly weights = new WeightStore();
  readonly distribution: ActionDistribution;
  readonly onnxInterface: OnnxInterface;
  /** The actor's layers in the forward pass used for acting (WebAssembly SIMD, or JS). */
  private readonly actorStack: DenseStack;
  private readonly actorLayers: LayerSpec[];
  private readonly criticLayers: LayerSpec[];

  constructor(
    readonly settings: MlpSettings,
    readonly spaces: PolicySpaces,
    rng: Rng,
  ) {
    const { hidden, activation, sharedTrunk } = settings;
    const space = spaces.actionSpace;
    const headWidth = space.kind === 'discrete' ? space.n : spaceSize(space);
    const stack = (prefix: string): LayerSpec[] =>
      hidden.map((width, i) => ({ name: `${prefix}.${i}`, inDim: i === 0 ? spaces.obsDim : hidden[i - 1], outDim: width, gain: Math.SQRT2, activation }));
    const last = hidden[hidden.length - 1];
    const actorHead: LayerSpec = { name: 'actor.out', inDim: last, outDim: headWidth, gain: 0.01, activation: 'none' };
    const criticHead: LayerSpec = { name: 'critic.out', inDim: last, outDim: 1, gain: 1, activation: 'none' };
    const trunk = sharedTrunk ? stack('trunk') : null;
    this.actorLayers = [...(trunk ?? stack('actor')), actorHead];
    this.criticLayers = [...(trunk ?? stack('critic')), criticHead];

    const random = () => rng.uniform();
    const seen = new Set<string>();
    for (const layer of [...this.actorLayers, ...this.criticLayers]) {
      if (seen.has(layer.name)) continue; // the shared trunk
      seen.add(layer.name);
      this.weights.add(`${layer.name}.weight`, [layer.inDim, layer.outDim], () => orthogonal(random, layer.inDim, layer.outDim, layer.gain));
      this.weights.add(`${layer.name}.bias`, [layer.outDim]);
    }
    if (space.kind === 'discrete') {
      this.distribution = new Categorical(headWidth);
    } else if (space.kind === 'multibinary') {
      this.distribution = new Bernoulli(headWidth);
    } else {
      const logStd = this.weights.add('actor.log_std', [headWidth]);
      this.distribution = new DiagGaussian(headWidth, logStd, space.low, space.high);
    }
    this.onnxInterface = { inputs: ['obs'], outputs: space.kind !== 'box' ? ['logits', 'value'] : ['mean', 'log_std', 'value'] };
    this.actorStack = new DenseStack(
      this.actorLayers.map((layer) => ({
        weight: this.weights.get(`${layer.name}.weight`).data,
        bias: this.weights.get(`${layer.name}.bias`).data,
        inDim: layer.inDim,
        outDim: layer.outDim,
        activation: layer.activation,
      })),
    );
  }

  /** The forward pass in `g` from `obs` [B, obsDim]; declares the parameters in `g`. */
  build(g: Graph, obs: Tensor): ActorCriticGraph {
    const p = this.weights.declare(g);
    const run = (layers: readonly LayerSpec[], x: Tensor): Tensor =>
      layers.reduce((h, layer) => {
        const y = g.linear(h, p[`${layer.name}.weight`], p[`${layer.name}.bias`]);
        return layer.activation === 'tanh' ? g.tanh(y) : layer.activation === 'relu' ? g.relu(y) : y;
      }, x);
    const actor: ActorOutput = { head: run(this.actorLayers, obs), logStd: p['actor.log_std'] };
    const value = g.squeeze(run(this.criticLayers, obs), [1]);
    return { actor, value };
  }

  /**
   * The parameters of the actor and of the critic when they are separate networks (each
   * gradient then comes from its own model, computed at once); null with a shared trunk.
   */
  separateNetworks(): { readonly actor: readonly string[]; readonly critic: readonly string[] } | null {
    if (this.settings.sharedTrunk) return null;
    const names = this.weights.names;
    return { actor: names.filter((n) => n.startsWith('actor.')), critic: names.filter((n) => n.startsWith('critic.')) };
  }

  /** The actor's output rows (logits or mean) for `rows` observations, outside onnxruntime. */
  actorForward(obs: Float32Array, rows: number, out: Float32Array): void {
    this.actorStack.forward(obs, rows, out);
  }

  /** Head rows and encoded samples for act(), grown to the largest batch asked for. */
  private actBuffers = { head: new Float32Array(0), scratch: new Float32Array(0) };

  act(obs: Float32Array, rows: number, actions: ActionBuffer, deterministic: boolean, rng: Rng): void {
    const dist = this.distribution;
    if (this.actBuffers.head.length < rows * dist.headWidth) {
      this.actBuffers = { head: new Float32Array(rows * dist.headWidth), scratch: new Float32Array(rows * dist.encodedWidth) };
    }
    this.actorForward(obs, rows, this.actBuffers.head);
    actFromHead(dist, this.actBuffers.head, rows, actions, deterministic, rng, this.actBuffers.scratch);
  }

  /** Makes the JS forward pass see the current parameters; call after each update. */
  sync(): void {
    this.actorStack.sync();
  }

  /**
   * The policy as a standalone ONNX model: input `obs` [B, obsDim]; outputs `logits`
   * (discrete: one per action; multibinary: one per bit) or `mean` and `log_std` (continuous), and `value`; weights baked in.
   * `metadata` is stored as JSON in the model's doc_string, with the inputs and outputs.
   */
  exportOnnx(metadata: Readonly<Record<string, unknown>>): Uint8Array {
    const g = new Graph();
    const obs = g.input('obs', 'float32', ['B', this.spaces.obsDim]);
    const { actor, value } = this.build(g, obs);
    const outputs: Record<string, Tensor> =
      this.distribution.kind !== 'continuous'
        ? { logits: actor.head, value }
        : { mean: actor.head, log_std: g.expandAs(actor.logStd!, actor.head), value };
    const docString = JSON.stringify({ ...metadata, ...this.onnxInterface });
    return buildModel(g, { outputs, bake: this.weights, graphName: 'rlx_policy', docString }).bytes;
  }
}
