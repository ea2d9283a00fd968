// Twin Q networks and their target copies, as CleanRL's SAC and TD3 build them (SoftQNetwork,
// QNetwork): shared by SAC (../sac/) and numeric learner modules (../module/). Continuous
// actions: Q(s, a) from encoded obs ++ action -> 1; discrete (SAC's): encoded obs -> one Q per
// action. Each network has its observation encoder (../../policies/encoder.ts: flatten today).
import type { Rng } from '../../../shared/random.js';
import { Graph, WeightStore, type Tensor } from '../../tensor/index.js';
import type { ObservationEncoder } from '../../policies/encoder.js';
import { encoderFor } from '../../policies/encoders.js';
import { layersForward, mlpLayers, type LayerSpec } from '../../policies/linear-layers.js';
import type { MlpSettings } from '../../policies/mlp.js';
import { spaceSize } from '../../envs/types.js';
import type { PolicySpaces } from '../../policies/policy.js';
import { polyakUpdate } from './off-policy.js';

function actionWidth(spaces: PolicySpaces): number {
  const space = spaces.actionSpace;
  return space.kind === 'discrete' ? space.n : spaceSize(space);
}

/** Twin soft Q networks `q1`, `q2` and their targets (`target.q1`, `target.q2`, started as copies). */
export class TwinCritics {
  readonly weights = new WeightStore();
  readonly target = new WeightStore();
  readonly discrete: boolean;
  private readonly layers: { readonly q1: LayerSpec[]; readonly q2: LayerSpec[] };
  private readonly encoders: { readonly q1: ObservationEncoder; readonly q2: ObservationEncoder };

  constructor(
    readonly settings: MlpSettings,
    readonly spaces: PolicySpaces,
    rng: Rng,
  ) {
    this.discrete = spaces.actionSpace.kind === 'discrete';
    const a = actionWidth(spaces);
    const network = (prefix: string): [ObservationEncoder, LayerSpec[]] => {
      const encoder = encoderFor(spaces, this.weights, `${prefix}.encoder`, rng);
      const [inDim, outDim] = this.discrete ? [encoder.features, a] : [encoder.features + a, 1];
      return [encoder, mlpLayers(this.weights, prefix, inDim, outDim, settings, rng)];
    };
    const [[e1, q1], [e2, q2]] = [network('q1'), network('q2')];
    this.layers = { q1, q2 };
    this.encoders = { q1: e1, q2: e2 };
    for (const name of this.weights.names) this.target.add(`target.${name}`, this.weights.get(name).shape, this.weights.get(name).data);
    this.arrays = { source: this.weights.values, target: this.target.values };
  }

  private readonly arrays: { readonly source: readonly Float32Array[]; readonly target: readonly Float32Array[] };

  /**
   * Q of network `which` in `g`: continuous, Q(obs, action) [B] with `action` [B, A] in env
   * units; discrete, one Q per action [B, n] (`action` absent). `target` reads the target copy.
   */
  q(g: Graph, which: 'q1' | 'q2', obs: Tensor, action: Tensor | null, target = false): Tensor {
    const rename = target ? (n: string) => `target.${n}` : undefined;
    const features = this.encoders[which].encode(g, obs, rename);
    const x = this.discrete ? features : g.concat([features, action!], 1);
    const out = layersForward(g, this.weights, this.layers[which], x, rename);
    return this.discrete ? out : g.squeeze(out, [1]);
  }

  /** target = (1 - tau) target + tau online, weight by weight (Polyak averaging). */
  updateTarget(tau: number): void {
    polyakUpdate(this.arrays.source, this.arrays.target, tau);
  }
}
