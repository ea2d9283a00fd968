// An actor-critic with a recurrent core (`core: gru(64)` on an mlp or cnn policy): observations
// -> encoder (flatten, or the CNN) -> core (GRU or LSTM, recurrent-core.ts) -> the mlp's hidden
// layers -> the heads. As the mlp's own layers, actor and critic are separate networks, each
// with its own encoder and core (SB3-contrib's RecurrentPPO default, enable_critic_lstm), unless
// `shared_trunk` (a cnn policy always shares), where one core feeds both (CleanRL's
// ppo_atari_lstm.py). A shared core carries the value loss's large gradients into what the
// actor reads: on CartPoleNoVel the actor then hardly learned (tried: returns ~25 at 60k steps).
// A row's memory is the actor core's state, then the critic core's.
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
  /** The weights of actor and critic when they are separate networks (cores included); null when they share a trunk. */
  separateNetworks(): { readonly actor: readonly string[]; readonly critic: readonly string[] } | null;
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
  /** The actor's network, and the critic's (the same object under a shared trunk). */
  private readonly actorNet: CoreNetwork;
  private readonly criticNet: CoreNetwork;
  private readonly actor: DenseNetwork;
  private readonly critic: DenseNetwork;

  constructor(
    readonly settings: MlpSettings,
    readonly spaces: PolicySpaces,
    rng: Rng,
    encoderDefinition: EncoderDefinition = FLATTEN,
    readonly kind: string = 'mlp',
  ) {
    const core = settings.core;
    if (!core) throw new Error('RecurrentPolicy needs a core');
    const space = spaces.actionSpace;
    const headWidth = space.kind === 'discrete' ? space.n : spaceSize(space);
    // Drawn in order: each network's encoder and core, then the layers (actor before critic, as MlpPolicy).
    const network = (prefix: string, offset: number): CoreNetwork => {
      const encoder = encoderDefinition.build(spaces, this.weights, `${prefix}.encoder`, rng);
      return { encoder, core: new RecurrentCore(core, encoder.features, this.weights, rng, `${prefix}.core`), offset };
    };
    let actorLayers: LayerSpec[];
    let criticLayers: LayerSpec[];
    if (settings.sharedTrunk) {
      this.actorNet = this.criticNet = network('trunk', 0);
      const H = this.actorNet.core.features;
      const trunk = mlpSpecs('trunk', H, settings);
      const last = trunk[trunk.length - 1]!.outDim;
      actorLayers = [...trunk, { name: 'actor.out', inDim: last, outDim: headWidth, activation: 'none' }];
      criticLayers = [...trunk, { name: 'critic.out', inDim: last, outDim: 1, activation: 'none' }];
      addLayers(this.weights, [...actorLayers, criticLayers[criticLayers.length - 1]!], rng, actorCriticInit);
      this.stateWidth = this.actorNet.core.stateWidth;
    } else {
      this.actorNet = network('actor', 0);
      this.criticNet = network('critic', this.actorNet.core.stateWidth);
      actorLayers = mlpSpecs('actor', this.actorNet.core.features, settings, headWidth);
      criticLayers = mlpSpecs('critic', this.criticNet.core.features, settings, 1);
      addLayers(this.weights, [...actorLayers, ...criticLayers], rng, actorCriticInit);
      this.stateWidth = this.actorNet.core.stateWidth + this.criticNet.core.stateWidth;
    }
    if (space.kind === 'discrete') this.distribution = new Categorical(headWidth);
    else if (space.kind === 'multibinary') this.distribution = new Bernoulli(headWidth);
    else this.distribution = new DiagGaussian(headWidth, this.weights.add('actor.log_std', [headWidth]), space.low, space.high);
    this.onnxInterface = { inputs: ['obs', 'state'], outputs: [...(space.kind !== 'box' ? ['logits'] : ['mean', 'log_std']), 'value', 'next_state'] };
    this.actor = new DenseNetwork(this.weights, actorLayers);
    this.critic = new DenseNetwork(this.weights, criticLayers);
  }

  private get shared(): boolean {
    return this.actorNet === this.criticNet;
  }

  buildSequence(g: Graph, steps: number, obs: Tensor, starts: Tensor, state0: Tensor): ActorCriticGraph {
    const p = this.weights.declare(g);
    const obsDim = this.spaces.obsDim;
    const rows = g.reshape(obs, [-1, obsDim]);
    // Each network reads rows: [T, N, obsDim] -> [T*N, obsDim] -> features -> [T, N, F] -> its core -> [T*N, H].
    const through = (net: CoreNetwork) => {
      const features = g.reshape(net.encoder.encode(g, rows), [steps, -1, net.encoder.features]);
      const { outputs } = net.core.sequence(g, steps, features, starts, this.stateOf(g, state0, net));
      return g.reshape(outputs, [-1, net.core.features]);
    };
    const actorH = through(this.actorNet);
    return this.heads(g, actorH, this.shared ? actorH : through(this.criticNet), p['actor.log_std']);
  }

  /** A network's part of the memory [N, its stateWidth]. */
  private stateOf(g: Graph, state: Tensor, net: CoreNetwork): Tensor {
    return this.shared ? state : g.slice(state, -1, net.offset, net.offset + net.core.stateWidth);
  }

  private heads(g: Graph, actorH: Tensor, criticH: Tensor, logStd: Tensor | undefined): ActorCriticGraph {
    const head = this.actor.forward(g, actorH);
    const value = g.squeeze(this.critic.forward(g, criticH), [1]);
    return { actor: { head, logStd }, value };
  }

  separateNetworks(): { readonly actor: readonly string[]; readonly critic: readonly string[] } | null {
    if (this.shared) return null;
    const names = this.weights.names;
    return { actor: names.filter((n) => n.startsWith('actor.')), critic: names.filter((n) => n.startsWith('critic.')) };
  }

  private buffers = { actorH: new Float32Array(0), criticH: new Float32Array(0), head: new Float32Array(0), scratch: new Float32Array(0), peek: new Float32Array(0) };

  /** Each network's core output rows for `obs`, its part of `state` advanced; the critic's only when `critic`. */
  private coreRows(obs: Float32Array, rows: number, state: Float32Array, stride: number, critic: boolean, actor = true): void {
    const b = this.buffers;
    if (b.actorH.length < rows * this.actorNet.core.features) b.actorH = new Float32Array(rows * this.actorNet.core.features);
    if (b.criticH.length < rows * this.criticNet.core.features) b.criticH = new Float32Array(rows * this.criticNet.core.features);
    if (actor) this.actorNet.core.step(this.actorNet.encoder.encodeRows(obs, rows), rows, state, b.actorH, stride, this.actorNet.offset);
    if (critic && !this.shared) this.criticNet.core.step(this.criticNet.encoder.encodeRows(obs, rows), rows, state, b.criticH, stride, this.criticNet.offset);
  }

  stepRows(obs: Float32Array, rows: number, state: Float32Array, starts: ArrayLike<number> | null, head: Float32Array, value: Float32Array | null): void {
    const S = this.stateWidth;
    if (starts) for (let i = 0; i < rows; i++) if (starts[i] === 1) state.fill(0, i * S, (i + 1) * S);
    // Acting alone (evaluation) still advances the critic's memory: a later value would need it.
    this.coreRows(obs, rows, state, S, true);
    this.actor.forwardInto(this.buffers.actorH, rows, head);
    if (value) value.set(this.critic.run(this.shared ? this.buffers.actorH : this.buffers.criticH, rows).subarray(0, rows));
  }

  peekValue(obs: Float32Array, state: Float32Array): number {
    if (this.buffers.peek.length < this.stateWidth) this.buffers.peek = new Float32Array(this.stateWidth);
    const copy = this.buffers.peek;
    copy.set(state.subarray(0, this.stateWidth));
    this.coreRows(obs, 1, copy, this.stateWidth, true, this.shared);
    return this.critic.run(this.shared ? this.buffers.actorH : this.buffers.criticH, 1)[0]!;
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
    this.actorNet.encoder.sync();
    this.criticNet.encoder.sync();
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
    const step = (net: CoreNetwork) => {
      const { kind, size } = net.core.settings;
      const w = net.core.graphWeights(g);
      const next = cellStep(g, kind, size, g.linear(net.encoder.encode(g, obs), w.wx, w.bx), this.stateOf(g, state, net), w);
      return { next, h: cellOutput(g, kind, size, next) };
    };
    const a = step(this.actorNet);
    const c = this.shared ? a : step(this.criticNet);
    const { actor, value } = this.heads(g, a.h, c.h, p['actor.log_std']);
    const next = g.identity(this.shared ? a.next : g.concat([a.next, c.next], -1));
    const outputs: Record<string, Tensor> =
      this.distribution.kind !== 'continuous'
        ? { logits: actor.head, value, next_state: next }
        : { mean: actor.head, log_std: g.expandAs(actor.logStd!, actor.head), value, next_state: next };
    const docString = JSON.stringify({ ...metadata, ...this.onnxInterface, state_width: this.stateWidth });
    return buildModel(g, { outputs, bake: this.weights, graphName: 'rlx_policy', docString }).bytes;
  }
}

/** One network's encoder and core, and where its state sits in a row of the memory. */
interface CoreNetwork {
  readonly encoder: ObservationEncoder;
  readonly core: RecurrentCore;
  readonly offset: number;
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
