// tanh's [-1, 1] mapped onto a Box action's bounds, as CleanRL's SAC and TD3 actors rescale
// their squashed actions (action_scale, action_bias). The actors that squash
// (algorithms/sac/networks.ts, algorithms/module/numeric-networks.ts) share it, so that both
// hold the same float32 scale and bias.
import { spaceSize, type BoxSpace } from '../envs/types.js';
import type { Graph, Tensor } from '../tensor/index.js';

export class BoxAffine {
  /** (high - low) / 2 per action dimension. */
  readonly scale: Float32Array;
  /** (high + low) / 2 per action dimension. */
  readonly bias: Float32Array;

  constructor(box: BoxSpace) {
    const width = spaceSize(box);
    this.scale = Float32Array.from({ length: width }, (_, k) => (box.high[k] - box.low[k]) / 2);
    this.bias = Float32Array.from({ length: width }, (_, k) => (box.high[k] + box.low[k]) / 2);
  }

  /** `y` in [-1, 1] of action dimension `k`, in env units. */
  apply(y: number, k: number): number {
    return y * this.scale[k] + this.bias[k];
  }

  /** `y` [B, A] in [-1, 1] in env units, in `g`; `scale` is the caller's constant of this.scale where it holds one. */
  applyInGraph(g: Graph, y: Tensor, scale: Tensor = g.const(this.scale)): Tensor {
    return g.add(g.mul(y, scale), g.const(this.bias));
  }
}
