// The networks a numeric learner module trains (runtime/learner/numeric-batch.ts NumericNetworks),
// built from the plan's mlp policy as CleanRL's td3_continuous_action.py builds TD3's:
//
// - DeterministicActor (the trainer's Policy): obs -> A, tanh, rescaled to the Box bounds
//   (CleanRL's Actor); acting adds N(0, exploration_noise * scale) and clips to the bounds; a
//   target copy `target.actor.*`.
// - The twin critics and their targets: SAC's (../replay/twin-critics.ts), Q(s, a) from
//   obs ++ action -> 1.
//
// Weights start as PyTorch's nn.Linear defaults, as CleanRL's (mlpLayers).
import type { BoxSpace } from '../../envs/types.js';
import type { Rng } from '../../../shared/random.js';
import { buildModel, Graph, WeightStore, type Tensor } from '../../tensor/index.js';
import { BoxAffine } from '../../policies/box-affine.js';
import { EncodedMlp } from '../../policies/linear-layers.js';
import type { ActionBuffer } from '../../policies/distributions.js';
import type { MlpSettings } from '../../policies/mlp.js';
import type { NetworkFamily } from '../../policies/family.js';
import type { OnnxInterface, Policy, PolicySpaces } from '../../policies/policy.js';
import { TwinCritics } from '../replay/twin-critics.js';
import { polyakUpdate } from '../replay/off-policy.js';

/** The exported log-std: SAC's LOG_STD_MIN, so a reader that samples stays within a percent of the deterministic action. */
const EXPORTED_LOG_STD = -5;

export class DeterministicActor implements Policy {
  readonly kind = 'mlp';
  readonly weights = new WeightStore();
  /** The target copy, `target.actor.*`, started equal. */
  readonly target = new WeightStore();
  readonly onnxInterface: OnnxInterface = { inputs: ['obs'], outputs: ['mean', 'log_std'] };
  readonly actionDim: number;
  readonly low: Float32Array;
  readonly high: Float32Array;
  /** tanh's [-1, 1] onto the Box. */
  readonly affine: BoxAffine;
  /** The std of acting's Gaussian noise, in units of affine.scale (the learner's exploration_noise); 0 until set. */
  explorationNoise = 0;
  private readonly mlp: EncodedMlp;

  constructor(
    readonly settings: MlpSettings,
    readonly spaces: PolicySpaces,
    rng: Rng,
  ) {
    if (spaces.actionSpace.kind !== 'box') throw new Error('a numeric learner module trains on continuous (Box) actions'); // checkPlan() says so first
    const box = spaces.actionSpace as BoxSpace;
    this.actionDim = box.shape.reduce((a, b) => a * b, 1);
    this.low = Float32Array.from({ length: this.actionDim }, (_, k) => box.low[k]);
    this.high = Float32Array.from({ length: this.actionDim }, (_, k) => box.high[k]);
    this.affine = new BoxAffine(box);
    this.mlp = new EncodedMlp(this.weights, 'actor', spaces, this.actionDim, settings, rng);
    for (const name of this.weights.names) this.target.add(`target.${name}`, this.weights.get(name).shape, this.weights.get(name).data);
    this.arrays = { source: this.weights.values, target: this.target.values };
  }

  private readonly arrays: { readonly source: readonly Float32Array[]; readonly target: readonly Float32Array[] };

  /** The action before the squash, [B, A], in `g` (`target`: the target copy's). */
  preSquash(g: Graph, obs: Tensor, target = false): Tensor {
    return this.mlp.forward(g, obs, target ? (n) => `target.${n}` : undefined);
  }

  /** The action in env units, [B, A]: tanh(preSquash) * scale + bias. */
  action(g: Graph, obs: Tensor, target = false): Tensor {
    return this.affine.applyInGraph(g, g.tanh(this.preSquash(g, obs, target)));
  }

  /** The actor's actions; unless `deterministic`, plus N(0, explorationNoise * scale), clipped to the bounds (CleanRL's). */
  act(obs: Float32Array, rows: number, actions: ActionBuffer, deterministic: boolean, rng: Rng): void {
    const a = this.actionDim;
    const head = this.mlp.run(obs, rows);
    for (let i = 0; i < rows; i++) {
      for (let k = 0; k < a; k++) {
        let x = this.affine.apply(Math.tanh(head[i * a + k]), k);
        if (!deterministic) x = Math.min(this.high[k], Math.max(this.low[k], x + this.explorationNoise * this.affine.scale[k] * rng.normal()));
        actions[i * a + k] = x;
      }
    }
  }

  /** Makes acting see the current weights; call after each actor update. */
  sync(): void {
    this.mlp.sync();
  }

  /** target = (1 - tau) target + tau actor. */
  updateTarget(tau: number): void {
    polyakUpdate(this.arrays.source, this.arrays.target, tau);
  }

  /**
   * `obs` -> `mean` (before the squash) and `log_std` (EXPORTED_LOG_STD: the actor is deterministic), with `squash: tanh` and the bounds in
   * the metadata, as SAC's actor exports: rlx eval acts with tanh(mean) rescaled.
   */
  exportOnnx(metadata: Readonly<Record<string, unknown>>): Uint8Array {
    const g = new Graph();
    const mean = this.preSquash(g, g.input('obs', 'float32', ['B', this.spaces.obsDim]));
    const logStd = g.add(g.mul(mean, 0), EXPORTED_LOG_STD);
    const docString = JSON.stringify({ ...metadata, squash: 'tanh', low: Array.from(this.low), high: Array.from(this.high), ...this.onnxInterface });
    return buildModel(g, { outputs: { mean, log_std: logStd }, bake: this.weights, graphName: 'rlx_deterministic_actor', docString }).bytes;
  }
}

/** A numeric learner's networks, built together from one policy's settings. */
export interface NumericLearnerNetworks {
  readonly actor: DeterministicActor;
  readonly critics: TwinCritics;
}

/** The family: an `mlp` policy's `hidden` and `activation` make the actor, the twin critics and their targets. */
export const NUMERIC_LEARNER_NETWORKS: NetworkFamily<NumericLearnerNetworks> = {
  name: 'numeric-learner',
  what: 'a deterministic actor and twin Q networks',
  overVectors: 'networks over observation vectors',
  hint: '; use an mlp policy',
  kinds: { mlp: (settings: MlpSettings, spaces, rng) => ({ actor: new DeterministicActor(settings, spaces, rng), critics: new TwinCritics(settings, spaces, rng) }) },
  parts: ({ actor, critics }) => ({ actor: actor.weights, targetActor: actor.target, critics: critics.weights, targets: critics.target }),
  sync: ({ actor }) => actor.sync(),
};
