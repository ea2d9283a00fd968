// A state-value network V(s) (IQL's ValueFunction in CORL's iql.py): encoded obs -> MLP -> 1.
import type { Rng } from '../../../shared/random.js';
import { Graph, WeightStore, type Tensor } from '../../tensor/index.js';
import type { ObservationEncoder } from '../../policies/encoder.js';
import { encoderFor } from '../../policies/encoders.js';
import { layersForward, mlpLayers, type LayerSpec } from '../../policies/linear-layers.js';
import type { MlpSettings } from '../../policies/mlp.js';
import type { PolicySpaces } from '../../policies/policy.js';

export class ValueNetwork {
  readonly weights = new WeightStore();
  private readonly encoder: ObservationEncoder;
  private readonly layers: LayerSpec[];

  constructor(settings: MlpSettings, spaces: PolicySpaces, rng: Rng) {
    this.encoder = encoderFor(spaces, this.weights, 'v.encoder', rng);
    this.layers = mlpLayers(this.weights, 'v', this.encoder.features, 1, settings, rng);
  }

  /** V(obs), [B]. */
  v(g: Graph, obs: Tensor): Tensor {
    return g.squeeze(layersForward(g, this.weights, this.layers, this.encoder.encode(g, obs)), [1]);
  }
}
