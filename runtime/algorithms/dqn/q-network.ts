// The Q-network family (DQN): an MLP from the observation to one Q-value per action, as
// CleanRL dqn.py's QNetwork, from the `mlp` policy's `hidden` and `activation`.
//
// Initialisation is PyTorch's nn.Linear default (U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for
// weights and biases), as CleanRL's QNetwork has no layer_init; the mlp's orthogonal
// actor-critic init is PPO's. Weights are named `q.0.weight`, ..., `q.out.bias`, [in, out].
//
// Observations go through the encoder (../../policies/encoder.ts) before the MLP: flatten for
// an `mlp` policy, a CNN for a `cnn` one (CleanRL dqn_atari.py's QNetwork: NatureCNN, 512, out).
// Acting runs outside onnxruntime (DenseStack, as the actor of mlp.ts): greedy argmax when
// deterministic (evaluation), else epsilon-greedy with the `epsilon` the learner sets.
// The export is `obs` -> `q_values`; its metadata says the action is their argmax.
import { maskValues, randomLegal } from '../../envs/action-mask.js';
import type { Rng } from '../../../shared/random.js';
import { buildModel, Graph, WeightStore, type Tensor } from '../../tensor/index.js';
import { EncodedMlp } from '../../policies/linear-layers.js';
import { argmax, type ActionBuffer } from '../../policies/distributions.js';
import type { MlpSettings } from '../../policies/mlp.js';
import type { EncoderDefinition } from '../../policies/encoder.js';
import { cnnEncoder, type CnnSettings } from '../../policies/cnn-policy.js';
import type { NetworkFamily } from '../../policies/family.js';
import type { OnnxInterface, Policy, PolicySpaces } from '../../policies/policy.js';

export interface QNetworkPolicy extends Policy {
  readonly actions: number;
  /** Probability of a uniformly random action when acting non-deterministically. */
  epsilon: number;
  /** Q-values [B, actions] of `obs` [B, obsDim] in `g`; declares the weights in `g`. */
  build(g: Graph, obs: Tensor): Tensor;
  /** Q-values [rows, actions] of `rows` observations, outside onnxruntime (fast). */
  qValues(obs: Float32Array, rows: number, out: Float32Array): void;
  /** Makes the fast forward pass see the current weights; call after each update. */
  sync(): void;
}

export class MlpQNetwork implements QNetworkPolicy {
  readonly weights = new WeightStore();
  readonly onnxInterface: OnnxInterface = { inputs: ['obs'], outputs: ['q_values'] };
  readonly actions: number;
  epsilon = 0;
  private readonly mlp: EncodedMlp;

  constructor(
    readonly settings: MlpSettings,
    readonly spaces: PolicySpaces,
    rng: Rng,
    encoder?: EncoderDefinition,
    /** The language's policy kind this network is. */
    readonly kind: string = 'mlp',
  ) {
    const space = spaces.actionSpace;
    if (space.kind !== 'discrete') throw new Error('a Q-network needs a discrete action space');
    this.actions = space.n;
    this.mlp = new EncodedMlp(this.weights, 'q', spaces, space.n, settings, rng, encoder);
  }

  build(g: Graph, obs: Tensor): Tensor {
    return this.mlp.forward(g, obs);
  }

  qValues(obs: Float32Array, rows: number, out: Float32Array): void {
    this.mlp.forwardInto(obs, rows, out);
  }

  act(obs: Float32Array, rows: number, actions: ActionBuffer, deterministic: boolean, rng: Rng, mask?: Uint8Array | null): void {
    const n = this.actions;
    const q = this.mlp.run(obs, rows);
    // Under a mask the greedy action is the best legal one, the random one uniform over the legal ones.
    if (mask) maskValues(q, rows, n, mask);
    for (let i = 0; i < rows; i++) {
      // CleanRL draws one number per step for all copies; one per copy explores them independently.
      const explore = !deterministic && rng.uniform() < this.epsilon;
      actions[i] = !explore ? argmax(q, i * n, n) : mask ? randomLegal(mask, i * n, n, rng) : rng.int(n);
    }
  }

  sync(): void {
    this.mlp.sync();
  }

  exportOnnx(metadata: Readonly<Record<string, unknown>>): Uint8Array {
    const g = new Graph();
    const q = this.build(g, g.input('obs', 'float32', ['B', this.spaces.obsDim]));
    const docString = JSON.stringify({ ...metadata, ...this.onnxInterface, action: 'argmax(q_values)' });
    return buildModel(g, { outputs: { q_values: q }, bake: this.weights, graphName: 'rlx_q_network', docString }).bytes;
  }
}


/** DQN's family: an `mlp` policy's `hidden` and `activation` make the Q-network. */
export const Q_NETWORK: NetworkFamily<QNetworkPolicy> = {
  name: 'q-network',
  what: 'a Q-network',
  overVectors: 'a Q-network over observation vectors',
  hint: '; use an mlp or cnn policy',
  kinds: {
    mlp: (settings: MlpSettings, spaces, rng) => new MlpQNetwork(settings, spaces, rng),
    cnn: (settings: CnnSettings, spaces, rng) => new MlpQNetwork(settings, spaces, rng, cnnEncoder(settings), 'cnn'),
  },
  parts: (q) => ({ q: q.weights }),
  sync: (q) => q.sync(),
};
