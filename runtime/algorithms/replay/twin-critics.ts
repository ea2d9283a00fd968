// Twin Q networks and their target copies, as CleanRL's SAC and TD3 build them (SoftQNetwork,
// QNetwork): shared by SAC (../sac/) and numeric learner modules (../module/). Continuous
// actions: Q(s, a) from obs ++ action -> 1; discrete (SAC's): obs -> one Q per action.
import type { Rng } from '../../../shared/random.js';
import { Graph, WeightStore, type Tensor } from '../../tensor/index.js';
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

  constructor(
    readonly settings: MlpSettings,
    readonly spaces: PolicySpaces,
    rng: Rng,
  ) {
    this.discrete = spaces.actionSpace.kind === 'discrete';
    const a = actionWidth(spaces);
    const [inDim, outDim] = this.discrete ? [spaces.obsDim, a] : [spaces.obsDim + a, 1];
    this.layers = { q1: mlpLayers(this.weights, 'q1', inDim, outDim, settings, rng), q2: mlpLayers(this.weights, 'q2', inDim, outDim, settings, rng) };
    for (const name of this.weights.names) this.target.add(`target.${name}`, this.weights.get(name).shape, this.weights.get(name).data);
    this.arrays = { source: this.weights.values, target: this.target.values };
  }

  private readonly arrays: { readonly source: readonly Float32Array[]; readonly target: readonly Float32Array[] };

  /**
   * Q of network `which` in `g`: continuous, Q(obs, action) [B] with `action` [B, A] in env
   * units; discrete, one Q per action [B, n] (`action` absent). `target` reads the target copy.
   */
  q(g: Graph, which: 'q1' | 'q2', obs: Tensor, action: Tensor | null, target = false): Tensor {
    const x = this.discrete ? obs : g.concat([obs, action!], 1);
    const store = this.weights;
    const out = layersForward(g, store, this.layers[which], x, target ? (n) => `target.${n}` : undefined);
    return this.discrete ? out : g.squeeze(out, [1]);
  }

  /** target = (1 - tau) target + tau online, weight by weight (Polyak averaging). */
  updateTarget(tau: number): void {
    polyakUpdate(this.arrays.source, this.arrays.target, tau);
  }
}
