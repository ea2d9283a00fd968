// An actor-critic with a recurrent core (`core: gru(64)` on an mlp or cnn policy), as CleanRL's
// ppo_atari_lstm.py Agent: observations -> encoder (flatten, or the CNN) -> core (GRU or LSTM,
// recurrent-core.ts, shared by actor and critic) -> the mlp's hidden layers -> the heads. The
// hidden layers are separate for actor and critic unless `shared_trunk` (an mlp's setting);
// the core is always shared, so the gradient step is one part (separateNetworks() is null).
//
// The memory is the caller's: a [rows, stateWidth] buffer per set of env copies (PPO's rollout,
// an evaluation), zeroed in the rows whose episode starts. act() keeps one of its own for the
// trainer's evaluations and recorded rollouts, which reset it through resetMemory() and
// endEpisodes() (policy.ts Actor). The export is one step: `obs` [B, obsDim] and `state`
// [B, stateWidth] in, the heads, `value` and `next_state` out (OnnxPolicy carries it).
import { maskValues } from '../envs/action-mask.js';
import { spaceSize } from '../envs/types.js';
import type { Rng } from '../../shared/random.js';
import { buildModel, Graph, WeightStore, type Tensor } from '../tensor/index.js';
import { cellOutput, cellStep } from '../tensor/recurrent.js';
import { cnnEncoder, type CnnSettings } from './cnn-policy.js';
import { Bernoulli, Categorical, DiagGaussian, type ActionBuffer, type ActionDistribution } from './distributions.js';
import type { EncoderDefinition, ObservationEncoder } from './encoder.js';
import type { NetworkFamily } from './family.js';
import { FLATTEN } from './flatten-encoder.js';
import { addLayers, DenseNetwork, layersForward, mlpSpecs, type LayerSpec } from './linear-layers.js';
import { actorCriticInit, type MlpSettings } from './mlp.js';
import { actFromHead, type ActorCriticGraph, type OnnxInterface, type Policy, type PolicySpaces } from './policy.js';
import { RecurrentCore } from './recurrent-core.js';

/** What PPO trains when the policy has a core: an actor-critic over sequences, with memory. */
export interface RecurrentActorCritic extends Policy {
  readonly distribution: ActionDistribution;
  /** Numbers of memory per env copy. */
  readonly stateWidth: number;
  /**
   * The pass in `g` over `steps` steps of `obs` [T, N, obsDim] from `state0` [N, stateWidth],
   * states zeroed where `starts` [T, N] is 1; heads and values of the T*N rows in time-major
   * order (row t * N + n). Declares the weights in `g`.
   */
  buildSequence(g: Graph, steps: number, obs: Tensor, starts: Tensor, state0: Tensor): ActorCriticGraph;
  /** Always null: actor and critic share the core. */
  separateNetworks(): null;
  /**
   * One step outside onnxruntime for `rows` env copies: rows of `state` where `starts` is 1 are
   * zeroed, then advanced by `obs`; writes the actor's head rows and, if given, the values.
   */
  stepRows(obs: Float32Array, rows: number, state: Float32Array, starts: ArrayLike<number> | null, head: Float32Array, value: Float32Array | null): void;
  /** The value of `obs` (one row) after memory `state` (one row), which is left as it was. */
  peekValue(obs: Float32Array, state: Float32Array): number;
  sync(): void;
}

export class RecurrentPolicy implements RecurrentActorCritic {
  readonly weights = new WeightStore();
  readonly distribution: ActionDistribution;
  readonly onnxInterface: OnnxInterface;
  readonly stateWidth: number;
  private readonly encoder: ObservationEncoder;
  private readonly core: RecurrentCore;
  private readonly actor: DenseNetwork;
  private readonly critic: DenseNetwork;

  constructor(
    readonly settings: MlpSettings,
    readonly spaces: PolicySpaces,
    rng: Rng,
    encoderDefinition: EncoderDefinition = FLATTEN,
    readonly kind: string = 'mlp',
  ) {
    if (!settings.core) throw new Error('RecurrentPolicy needs a core');
    const space = spaces.actionSpace;
    const headWidth = space.kind === 'discrete' ? space.n : spaceSize(space);
    // Drawn in order: encoder, core, then the layers (actor before critic, as MlpPolicy).
    this.encoder = encoderDefinition.build(spaces, this.weights, 'core.encoder', rng);
    this.core = new RecurrentCore(settings.core, this.encoder.features, this.weights, rng);
    this.stateWidth = this.core.stateWidth;
    const H = this.core.features;
    let actorLayers: LayerSpec[];
    let criticLayers: LayerSpec[];
    if (settings.sharedTrunk) {
      const trunk = mlpSpecs('trunk', H, settings);
      const last = trunk[trunk.length - 1]!.outDim;
      actorLayers = [...trunk, { name: 'actor.out', inDim: last, outDim: headWidth, activation: 'none' }];
      criticLayers = [...trunk, { name: 'critic.out', inDim: last, outDim: 1, activation: 'none' }];
      addLayers(this.weights, [...actorLayers, criticLayers[criticLayers.length - 1]!], rng, actorCriticInit);
    } else {
      actorLayers = mlpSpecs('actor', H, settings, headWidth);
      criticLayers = mlpSpecs('critic', H, settings, 1);
      addLayers(this.weights, [...actorLayers, ...criticLayers], rng, actorCriticInit);
    }
    if (space.kind === 'discrete') this.distribution = new Categorical(headWidth);
    else if (space.kind === 'multibinary') this.distribution = new Bernoulli(headWidth);
    else this.distribution = new DiagGaussian(headWidth, this.weights.add('actor.log_std', [headWidth]), space.low, space.high);
    this.onnxInterface = { inputs: ['obs', 'state'], outputs: [...(space.kind !== 'box' ? ['logits'] : ['mean', 'log_std']), 'value', 'next_state'] };
    this.actor = new DenseNetwork(this.weights, actorLayers);
    this.critic = new DenseNetwork(this.weights, criticLayers);
  }

  buildSequence(g: Graph, steps: number, obs: Tensor, starts: Tensor, state0: Tensor): ActorCriticGraph {
    const p = this.weights.declare(g);
    const obsDim = this.spaces.obsDim;
    // The encoder reads rows: [T, N, obsDim] -> [T*N, obsDim] -> features -> [T, N, F].
    const features = this.encoder.encode(g, g.reshape(obs, [-1, obsDim]));
    const sequence = g.reshape(features, [steps, -1, this.encoder.features]);
    const { outputs } = this.core.sequence(g, steps, sequence, starts, state0);
    return this.heads(g, g.reshape(outputs, [-1, this.core.features]), p['actor.log_std']);
  }

  private heads(g: Graph, h: Tensor, logStd: Tensor | undefined): ActorCriticGraph {
    const head = this.actor.forward(g, h);
    const value = g.squeeze(this.critic.forward(g, h), [1]);
    return { actor: { head, logStd }, value };
  }

  separateNetworks(): null {
    return null;
  }

  private buffers = { features: new Float32Array(0), values: new Float32Array(0), head: new Float32Array(0), scratch: new Float32Array(0), peek: new Float32Array(0) };

  stepRows(obs: Float32Array, rows: number, state: Float32Array, starts: ArrayLike<number> | null, head: Float32Array, value: Float32Array | null): void {
    const S = this.stateWidth;
    if (starts) for (let i = 0; i < rows; i++) if (starts[i] === 1) state.fill(0, i * S, (i + 1) * S);
    const H = this.core.features;
    if (this.buffers.features.length < rows * H) this.buffers.features = new Float32Array(rows * H);
    const h = this.buffers.features;
    this.core.step(this.encoder.encodeRows(obs, rows), rows, state, h);
    this.actor.forwardInto(h, rows, head);
    if (value) value.set(this.critic.run(h, rows).subarray(0, rows));
  }

  peekValue(obs: Float32Array, state: Float32Array): number {
    if (this.buffers.peek.length < this.stateWidth) this.buffers.peek = new Float32Array(this.stateWidth);
    const copy = this.buffers.peek;
    copy.set(state.subarray(0, this.stateWidth));
    const H = this.core.features;
    if (this.buffers.features.length < H) this.buffers.features = new Float32Array(H);
    this.core.step(this.encoder.encodeRows(obs, 1), 1, copy, this.buffers.features);
    return this.critic.run(this.buffers.features, 1)[0]!;
  }

  /** The memory act() carries for the trainer's evaluations and recorded rollouts. */
  private memory = new Float32Array(0);

  resetMemory(rows: number): void {
    this.memory = new Float32Array(rows * this.stateWidth);
  }

  endEpisodes(terminated: Uint8Array, truncated: Uint8Array): void {
    const S = this.stateWidth;
    for (let i = 0; i * S < this.memory.length; i++) if (terminated[i] === 1 || truncated[i] === 1) this.memory.fill(0, i * S, (i + 1) * S);
  }

  act(obs: Float32Array, rows: number, actions: ActionBuffer, deterministic: boolean, rng: Rng, mask?: Uint8Array | null): void {
    const dist = this.distribution;
    if (this.memory.length !== rows * this.stateWidth) this.resetMemory(rows);
    if (this.buffers.head.length < rows * dist.headWidth) {
      this.buffers.head = new Float32Array(rows * dist.headWidth);
      this.buffers.scratch = new Float32Array(rows * dist.encodedWidth);
    }
    this.stepRows(obs, rows, this.memory, null, this.buffers.head, null);
    if (mask) maskValues(this.buffers.head, rows, dist.headWidth, mask);
    actFromHead(dist, this.buffers.head, rows, actions, deterministic, rng, this.buffers.scratch);
  }

  sync(): void {
    this.encoder.sync();
    this.actor.sync();
    this.critic.sync();
  }

  /**
   * One step as a standalone ONNX model: `obs` [B, obsDim] and `state` [B, stateWidth] (zeros
   * at an episode's start) -> `logits` (or `mean`, `log_std`), `value` and `next_state`, which
   * the caller feeds back as `state` at the next step. `state_width` is in the metadata.
   */
  exportOnnx(metadata: Readonly<Record<string, unknown>>): Uint8Array {
    const g = new Graph();
    const obs = g.input('obs', 'float32', ['B', this.spaces.obsDim]);
    const state = g.input('state', 'float32', ['B', this.stateWidth]);
    const p = this.weights.declare(g);
    const { kind, size } = this.core.settings;
    const gx = g.linear(this.encoder.encode(g, obs), p['core.wx']!, p['core.bx']!);
    const next = cellStep(g, kind, size, gx, state, { wh: p['core.wh']!, bh: p['core.bh']! });
    const { actor, value } = this.heads(g, cellOutput(g, kind, size, next), p['actor.log_std']);
    const outputs: Record<string, Tensor> =
      this.distribution.kind !== 'continuous'
        ? { logits: actor.head, value, next_state: g.identity(next) }
        : { mean: actor.head, log_std: g.expandAs(actor.logStd!, actor.head), value, next_state: g.identity(next) };
    const docString = JSON.stringify({ ...metadata, ...this.onnxInterface, state_width: this.stateWidth });
    return buildModel(g, { outputs, bake: this.weights, graphName: 'rlx_policy', docString }).bytes;
  }
}

/** The recurrent actor-critic family: an mlp or cnn policy with a core, which only algorithms that carry memory ask for (PPO). */
export const RECURRENT_ACTOR_CRITIC: NetworkFamily<RecurrentActorCritic> = {
  name: 'actor-critic',
  what: 'a recurrent actor-critic',
  overVectors: 'a recurrent actor-critic over observation vectors',
  carriesCore: true,
  kinds: {
    mlp: (settings: MlpSettings, spaces, rng) => new RecurrentPolicy(settings, spaces, rng),
    cnn: (settings: CnnSettings, spaces, rng) => new RecurrentPolicy(settings, spaces, rng, cnnEncoder(settings), 'cnn'),
  },
  parts: (policy) => ({ policy: policy.weights }),
  sync: (policy) => policy.sync(),
};
