// SAC's networks, as CleanRL builds them, on an `mlp` policy's `hidden` and `activation`:
//
// - SacActor (the trainer's Policy): continuous actions as sac_continuous_action.py's Actor,
//   obs -> (mean, log_std) with log_std squashed into [LOG_STD_MIN, LOG_STD_MAX] by a tanh,
//   actions tanh(mean + std * eps) rescaled to the Box bounds; discrete actions as
//   sac_atari.py's Actor with an MLP trunk, obs -> logits.
// - SacCritics: twin soft Q networks and their target copies. Continuous: Q(s, a) from
//   obs ++ action -> 1 (SoftQNetwork); discrete: obs -> one Q per action.
//
// Each network reads observations through its encoder (../../policies/encoder.ts: flatten
// today), then its MLP (../../policies/linear-layers.ts). Both heads of the continuous actor (fc_mean, fc_logstd in CleanRL) are one layer
// `actor.head` [hidden, 2A] (means first), so acting runs one DenseStack; it is the same
// model. Weights start as PyTorch's nn.Linear defaults (U(+-1/sqrt(fan_in)), biases too), as
// CleanRL's continuous SAC does; the discrete variant keeps them too (sac_atari.py's
// orthogonal layer_init is for its convolutional trunk).
import { maskValues } from '../../envs/action-mask.js';
import { spaceSize, type BoxSpace } from '../../envs/types.js';
import type { Rng } from '../../../shared/random.js';
import { buildModel, Graph, WeightStore, type Tensor } from '../../tensor/index.js';
import { BoxAffine } from '../../policies/box-affine.js';
import { EncodedMlp } from '../../policies/linear-layers.js';
import { argmax, type ActionBuffer } from '../../policies/distributions.js';
import type { MlpSettings } from '../../policies/mlp.js';
import type { NetworkFamily } from '../../policies/family.js';
import type { OnnxInterface, Policy, PolicySpaces } from '../../policies/policy.js';
import { TwinCritics } from '../replay/twin-critics.js';

export const LOG_STD_MIN = -5;
export const LOG_STD_MAX = 2;
const HALF_LOG_2PI = 0.5 * Math.log(2 * Math.PI);

function actionWidth(spaces: PolicySpaces): number {
  const space = spaces.actionSpace;
  return space.kind === 'discrete' ? space.n : spaceSize(space);
}

/** The actor's outputs in a graph: a Gaussian before the squash, or logits. */
export type SacActorOutput = { readonly kind: 'continuous'; readonly mean: Tensor; readonly logStd: Tensor } | { readonly kind: 'discrete'; readonly logits: Tensor };

export class SacActor implements Policy {
  readonly kind = 'mlp';
  readonly weights = new WeightStore();
  readonly onnxInterface: OnnxInterface;
  readonly discrete: boolean;
  /** Action dimension (continuous) or the number of actions (discrete). */
  readonly actionDim: number;
  /** tanh's [-1, 1] onto the Box (continuous); null for discrete actions. */
  readonly affine: BoxAffine | null;
  private readonly mlp: EncodedMlp;

  constructor(
    readonly settings: MlpSettings,
    readonly spaces: PolicySpaces,
    rng: Rng,
  ) {
    const space = spaces.actionSpace;
    this.discrete = space.kind === 'discrete';
    this.actionDim = actionWidth(spaces);
    this.affine = this.discrete ? null : new BoxAffine(space as BoxSpace);
    this.mlp = new EncodedMlp(this.weights, 'actor', spaces, this.discrete ? this.actionDim : 2 * this.actionDim, settings, rng);
    this.onnxInterface = { inputs: ['obs'], outputs: this.discrete ? ['logits'] : ['mean', 'log_std'] };
  }

  /** Numbers the actor's last layer gives per row: logits, or means then raw log-stds. */
  get headWidth(): number {
    return this.discrete ? this.actionDim : 2 * this.actionDim;
  }

  /** The forward pass in `g` from `obs` [B, obsDim]. */
  build(g: Graph, obs: Tensor): SacActorOutput {
    const head = this.mlp.forward(g, obs);
    if (this.discrete) return { kind: 'discrete', logits: head };
    const a = this.actionDim;
    const mean = g.slice(head, 1, 0, a);
    // From SpinUp / Denis Yarats (CleanRL's comment): a tanh keeps log_std in [MIN, MAX] smoothly.
    const logStd = g.add(g.mul(g.add(g.tanh(g.slice(head, 1, a, 2 * a)), 1), 0.5 * (LOG_STD_MAX - LOG_STD_MIN)), LOG_STD_MIN);
    return { kind: 'continuous', mean, logStd };
  }

  /**
   * A reparameterised squashed sample in `g` (CleanRL's get_action): with `eps` ~ N(0, 1) fed
   * [B, A], x = mean + std eps, the action tanh(x) * scale + bias [B, A] and its
   * log-probability [B]: log N(x; mean, std) - sum log(scale (1 - tanh(x)^2) + 1e-6).
   */
  squashedSample(g: Graph, out: Extract<SacActorOutput, { kind: 'continuous' }>, eps: Tensor): { action: Tensor; logProb: Tensor } {
    const x = g.add(out.mean, g.mul(g.exp(out.logStd), eps));
    const y = g.tanh(x);
    const affine = this.affine!;
    const scale = g.const(affine.scale);
    const action = affine.applyInGraph(g, y, scale);
    // log N(x; mean, std) = -eps^2 / 2 - log std - log(2 pi) / 2, eps being (x - mean) / std.
    const gaussian = g.sub(g.sub(g.mul(g.square(eps), -0.5), out.logStd), HALF_LOG_2PI);
    const squash = g.log(g.add(g.mul(scale, g.sub(1, g.square(y))), 1e-6));
    return { action, logProb: g.reduceSum(g.sub(gaussian, squash), { axes: [-1] }) };
  }

  /** The last layer's rows for `rows` observations, outside onnxruntime. */
  forwardHead(obs: Float32Array, rows: number): Float32Array {
    return this.mlp.run(obs, rows);
  }

  /**
   * Actions for `rows` observations: deterministic, tanh(mean) rescaled (continuous) or the
   * most likely action (discrete); else a sample of the squashed Gaussian or the softmax.
   */
  act(obs: Float32Array, rows: number, actions: ActionBuffer, deterministic: boolean, rng: Rng, mask?: Uint8Array | null): void {
    const head = this.forwardHead(obs, rows);
    const a = this.actionDim;
    const w = this.headWidth;
    if (mask && this.discrete) maskValues(head, rows, w, mask);
    for (let i = 0; i < rows; i++) {
      if (this.discrete) {
        actions[i] = deterministic ? argmax(head, i * w, a) : sampleLogits(head, i * w, a, rng);
        continue;
      }
      for (let k = 0; k < a; k++) {
        let x = head[i * w + k];
        if (!deterministic) x += Math.exp(squashLogStd(head[i * w + a + k])) * rng.normal();
        actions[i * a + k] = this.affine!.apply(Math.tanh(x), k);
      }
    }
  }

  /** Makes acting see the current weights; call after each actor update. */
  sync(): void {
    this.mlp.sync();
  }

  /**
   * `obs` -> `mean`, `log_std` (before the squash; the metadata records `squash: tanh` and the
   * bounds, so that a reader acts as the trainer does) or `logits`; weights baked in.
   */
  exportOnnx(metadata: Readonly<Record<string, unknown>>): Uint8Array {
    const g = new Graph();
    const out = this.build(g, g.input('obs', 'float32', ['B', this.spaces.obsDim]));
    const outputs: Record<string, Tensor> = out.kind === 'discrete' ? { logits: out.logits } : { mean: out.mean, log_std: out.logStd };
    const box = this.spaces.actionSpace as BoxSpace;
    const squash = this.discrete ? {} : { squash: 'tanh', low: box.low, high: box.high };
    const docString = JSON.stringify({ ...metadata, ...squash, ...this.onnxInterface });
    return buildModel(g, { outputs, bake: this.weights, graphName: 'rlx_sac_actor', docString }).bytes;
  }
}

/** The actor's log-std from the raw head value, as build() computes it. */
export function squashLogStd(raw: number): number {
  return LOG_STD_MIN + 0.5 * (LOG_STD_MAX - LOG_STD_MIN) * (Math.tanh(raw) + 1);
}

/** An index drawn from softmax(logits) by the inverse CDF of one uniform draw. */
export function sampleLogits(logits: ArrayLike<number>, from: number, n: number, rng: Rng): number {
  let max = -Infinity;
  for (let k = 0; k < n; k++) if (logits[from + k] > max) max = logits[from + k];
  let total = 0;
  for (let k = 0; k < n; k++) total += Math.exp(logits[from + k] - max);
  let u = rng.uniform() * total;
  // A masked action's logit is -Infinity (probability exactly 0): rounding's leftover goes to the last possible one.
  let lastPossible = 0;
  for (let k = 0; k < n; k++) {
    const p = Math.exp(logits[from + k] - max);
    if (p === 0) continue;
    lastPossible = k;
    u -= p;
    if (u < 0) return k;
  }
  return lastPossible;
}

/** SAC's twin soft Q networks and their targets: the off-policy learners' shared ones (../replay/twin-critics.ts). */
export { TwinCritics as SacCritics } from '../replay/twin-critics.js';

/** SAC's networks, built together from one policy's settings. */
export interface SacNetworks {
  readonly actor: SacActor;
  readonly critics: TwinCritics;
}

/** SAC's family: an `mlp` policy's `hidden` and `activation` make the actor and the twin critics. */
export const SAC_NETWORKS: NetworkFamily<SacNetworks> = {
  name: 'sac',
  what: 'an actor and twin Q networks',
  overVectors: 'networks over observation vectors',
  hint: '; use an mlp policy',
  kinds: { mlp: (settings: MlpSettings, spaces, rng) => ({ actor: new SacActor(settings, spaces, rng), critics: new TwinCritics(settings, spaces, rng) }) },
  parts: ({ actor, critics }) => ({ actor: actor.weights, critics: critics.weights, targets: critics.target }),
  sync: ({ actor }) => actor.sync(),
};
