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
// Observations go through an encoder (encoder.ts: flatten today) before the layers, which
// linear-layers.ts lays out and initialises as it does DQN's and SAC's networks.
// Parameters live in one WeightStore, named `actor.0.weight`, `critic.out.bias`,
// `trunk.1.weight`, `actor.log_std`; weights are [in, out] (y = x @ W + b).
import { maskValues } from '../envs/action-mask.js';
import { spaceSize } from '../envs/types.js';
import { PlanParams } from '../plan-params.js';
import type { Rng } from '../../shared/random.js';
import { buildModel, Graph, WeightStore, type Tensor } from '../tensor/index.js';
import type { EncoderDefinition, ObservationEncoder } from './encoder.js';
import { FLATTEN } from './flatten-encoder.js';
import { coreSetting, type CoreSettings } from './recurrent-core.js';
import { addLayers, DenseNetwork, layersForward, mlpSpecs, type LayerInit, type LayerSpec } from './linear-layers.js';
import { Bernoulli, Categorical, DiagGaussian, type ActionBuffer, type ActionDistribution, type ActorOutput } from './distributions.js';
import { actFromHead, type ActorCriticGraph, type ActorCriticPolicy, type OnnxInterface, type PolicySpaces } from './policy.js';

export interface MlpSettings {
  readonly hidden: readonly number[];
  readonly activation: 'tanh' | 'relu';
  readonly sharedTrunk: boolean;
  /** A recurrent core between the encoder and the layers (recurrent-policy.ts); null: none. */
  readonly core?: CoreSettings | null;
}

/** Reads the plan's `mlp` settings (defaults from the registry); errors name the param. */
export function mlpSettings(params: Readonly<Record<string, unknown>>): MlpSettings {
  const p = PlanParams.of('mlp', params, 'policy mlp');
  return { hidden: p.counts('hidden'), activation: p.option('activation', ['tanh', 'relu']), sharedTrunk: p.flag('shared_trunk'), core: coreSetting(p) };
}

/** CleanRL's layer_init gains: sqrt(2) hidden, 0.01 the actor's head, 1 the critic's. */
export function actorCriticInit(layer: LayerSpec): LayerInit {
  const gain = layer.name === 'actor.out' ? 0.01 : layer.name === 'critic.out' ? 1 : Math.SQRT2;
  return { kind: 'orthogonal', gain };
}

export class MlpPolicy implements ActorCriticPolicy {
  readonly weights = new WeightStore();
  readonly distribution: ActionDistribution;
  readonly onnxInterface: OnnxInterface;
  /** What the actor and the critic read of an observation (the trunk's, or each network's). */
  private readonly encoders: { readonly actor: ObservationEncoder; readonly critic: ObservationEncoder };
  /** The actor's layers, with the pass used for acting (WebAssembly SIMD, or JS). */
  private readonly actor: DenseNetwork;
  private readonly criticLayers: readonly LayerSpec[];

  constructor(
    readonly settings: MlpSettings,
    readonly spaces: PolicySpaces,
    rng: Rng,
    /** What reads the observations: flatten for an `mlp` policy, a CNN for a `cnn` one (cnn-policy.ts). */
    encoderDefinition: EncoderDefinition = FLATTEN,
    /** The language's policy kind this network is. */
    readonly kind: string = 'mlp',
  ) {
    const { sharedTrunk } = settings;
    const space = spaces.actionSpace;
    const headWidth = space.kind === 'discrete' ? space.n : spaceSize(space);
    // The encoders, then every layer's weights (a shared trunk once), actor before critic: the
    // order the seeded draws have always had, which every seeded run's weights depend on.
    const encoder = (prefix: string) => encoderDefinition.build(spaces, this.weights, `${prefix}.encoder`, rng);
    let actorLayers: LayerSpec[];
    if (sharedTrunk) {
      const trunkEncoder = encoder('trunk');
      const trunk = mlpSpecs('trunk', trunkEncoder.features, settings);
      const last = trunk[trunk.length - 1].outDim;
      actorLayers = [...trunk, { name: 'actor.out', inDim: last, outDim: headWidth, activation: 'none' }];
      this.criticLayers = [...trunk, { name: 'critic.out', inDim: last, outDim: 1, activation: 'none' }];
      this.encoders = { actor: trunkEncoder, critic: trunkEncoder };
      addLayers(this.weights, [...actorLayers, this.criticLayers[this.criticLayers.length - 1]], rng, actorCriticInit);
    } else {
      const actorEncoder = encoder('actor');
      actorLayers = mlpSpecs('actor', actorEncoder.features, settings, headWidth);
      const criticEncoder = encoder('critic');
      this.criticLayers = mlpSpecs('critic', criticEncoder.features, settings, 1);
      this.encoders = { actor: actorEncoder, critic: criticEncoder };
      addLayers(this.weights, [...actorLayers, ...this.criticLayers], rng, actorCriticInit);
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
    this.actor = new DenseNetwork(this.weights, actorLayers);
  }

  /** The forward pass in `g` from `obs` [B, obsDim]; declares the parameters in `g`. */
  build(g: Graph, obs: Tensor): ActorCriticGraph {
    const p = this.weights.declare(g);
    const actorFeatures = this.encoders.actor.encode(g, obs);
    const criticFeatures = this.settings.sharedTrunk ? actorFeatures : this.encoders.critic.encode(g, obs);
    const actor: ActorOutput = { head: this.actor.forward(g, actorFeatures), logStd: p['actor.log_std'] };
    const value = g.squeeze(layersForward(g, this.weights, this.criticLayers, criticFeatures), [1]);
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
    this.actor.forwardInto(this.encoders.actor.encodeRows(obs, rows), rows, out);
  }

  /** Head rows and encoded samples for act(), grown to the largest batch asked for. */
  private actBuffers = { head: new Float32Array(0), scratch: new Float32Array(0) };

  act(obs: Float32Array, rows: number, actions: ActionBuffer, deterministic: boolean, rng: Rng, mask?: Uint8Array | null): void {
    const dist = this.distribution;
    if (this.actBuffers.head.length < rows * dist.headWidth) {
      this.actBuffers = { head: new Float32Array(rows * dist.headWidth), scratch: new Float32Array(rows * dist.encodedWidth) };
    }
    this.actorForward(obs, rows, this.actBuffers.head);
    if (mask) maskValues(this.actBuffers.head, rows, dist.headWidth, mask);
    actFromHead(dist, this.actBuffers.head, rows, actions, deterministic, rng, this.actBuffers.scratch);
  }

  /** Makes the JS forward pass see the current parameters; call after each update. */
  sync(): void {
    this.encoders.actor.sync();
    this.actor.sync();
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
