// The actor the offline learners train (CORL's Actor of td3_bc.py and any_percent_bc.py):
// obs -> MLP -> tanh, rescaled to the Box bounds, deterministic. CORL trains on normalised
// states and wraps the evaluation env to normalise them too; here the normalisation is the
// actor's own, so the policy the trainer evaluates, `rlx eval` runs and the ONNX export all take
// the env's raw observations: act() normalises before its forward pass, the export starts with
// (obs - mean) / std, and the learners' graphs read the dataset already normalised.
import type { BoxSpace } from '../../envs/types.js';
import type { Rng } from '../../../shared/random.js';
import { buildModel, Graph, WeightStore, type Tensor } from '../../tensor/index.js';
import { BoxAffine } from '../../policies/box-affine.js';
import { EncodedMlp } from '../../policies/linear-layers.js';
import type { ActionBuffer } from '../../policies/distributions.js';
import type { MlpSettings } from '../../policies/mlp.js';
import type { OnnxInterface, Policy, PolicySpaces } from '../../policies/policy.js';
import { polyakUpdate } from '../replay/off-policy.js';

/** The exported log-std, as SAC's LOG_STD_MIN: a reader that samples stays within a percent of the action. */
const EXPORTED_LOG_STD = -5;

export class OfflineActor implements Policy {
  readonly kind = 'mlp';
  readonly weights = new WeightStore();
  /** A target copy `target.actor.*` (TD3BC's), started equal; unused by BC. */
  readonly target = new WeightStore();
  readonly onnxInterface: OnnxInterface = { inputs: ['obs'], outputs: ['mean', 'log_std'] };
  readonly actionDim: number;
  readonly low: Float32Array;
  readonly high: Float32Array;
  readonly affine: BoxAffine;
  /** The observation statistics acting and the export normalise with; identity until set. */
  mean: Float32Array;
  std: Float32Array;
  private readonly mlp: EncodedMlp;
  private scratch = new Float32Array(0);
  private readonly arrays: { readonly source: readonly Float32Array[]; readonly target: readonly Float32Array[] };

  constructor(readonly settings: MlpSettings, readonly spaces: PolicySpaces, rng: Rng) {
    if (spaces.actionSpace.kind !== 'box') throw new Error('the offline learners train on continuous (Box) actions'); // the definitions' actions say so first
    const box = spaces.actionSpace as BoxSpace;
    this.actionDim = box.shape.reduce((a, b) => a * b, 1);
    this.low = Float32Array.from({ length: this.actionDim }, (_, k) => box.low[k]!);
    this.high = Float32Array.from({ length: this.actionDim }, (_, k) => box.high[k]!);
    this.affine = new BoxAffine(box);
    this.mean = new Float32Array(spaces.obsDim);
    this.std = new Float32Array(spaces.obsDim).fill(1);
    this.mlp = new EncodedMlp(this.weights, 'actor', spaces, this.actionDim, settings, rng);
    for (const name of this.weights.names) this.target.add(`target.${name}`, this.weights.get(name).shape, this.weights.get(name).data);
    this.arrays = { source: this.weights.values, target: this.target.values };
  }

  /** The action in env units [B, A] from normalised observations [B, obsDim], in `g` (`target`: the target copy's weights). */
  action(g: Graph, normalizedObs: Tensor, target = false): Tensor {
    return this.affine.applyInGraph(g, g.tanh(this.mlp.forward(g, normalizedObs, target ? (n) => `target.${n}` : undefined)));
  }

  /** The actor's action for raw observations; deterministic either way (the offline actor has no distribution). */
  act(obs: Float32Array, rows: number, actions: ActionBuffer, _deterministic: boolean, _rng: Rng): void {
    const d = this.spaces.obsDim;
    if (this.scratch.length < rows * d) this.scratch = new Float32Array(rows * d);
    const x = this.scratch.subarray(0, rows * d);
    for (let i = 0; i < x.length; i++) x[i] = (obs[i]! - this.mean[i % d]!) / this.std[i % d]!;
    const a = this.actionDim;
    const head = this.mlp.run(x, rows);
    for (let i = 0; i < rows * a; i++) actions[i] = this.affine.apply(Math.tanh(head[i]!), i % a);
  }

  /** Makes acting see the current weights; call after each actor step. */
  sync(): void {
    this.mlp.sync();
  }

  /** target = (1 - tau) target + tau actor. */
  updateTarget(tau: number): void {
    polyakUpdate(this.arrays.source, this.arrays.target, tau);
  }

  /**
   * `obs` (raw) -> `mean` (before the squash) and `log_std` (EXPORTED_LOG_STD: deterministic), with `squash: tanh` and the bounds in
   * the metadata, as SAC's actor exports: `rlx eval` acts with tanh(mean) rescaled.
   */
  exportOnnx(metadata: Readonly<Record<string, unknown>>): Uint8Array {
    const g = new Graph();
    const obs = g.input('obs', 'float32', ['B', this.spaces.obsDim]);
    const normalized = g.div(g.sub(obs, g.const(this.mean)), g.const(this.std));
    const mean = this.mlp.forward(g, normalized);
    const logStd = g.add(g.mul(mean, 0), EXPORTED_LOG_STD);
    const docString = JSON.stringify({ ...metadata, squash: 'tanh', low: Array.from(this.low), high: Array.from(this.high), ...this.onnxInterface });
    return buildModel(g, { outputs: { mean, log_std: logStd }, bake: this.weights, graphName: 'rlx_offline_actor', docString }).bytes;
  }
}
