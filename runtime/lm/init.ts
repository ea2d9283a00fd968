// GPT-2's random initialisation (Radford et al. 2019, as transformers' GPT2PreTrainedModel
// draws it): every embedding and linear weight normal(0, 0.02), the two projections each block
// adds to the residual stream (attention's c_proj and the MLP's c_proj) scaled down by
// 1/sqrt(2 layers), biases 0, LayerNorm scales 1. Drawn in weightSpecs' order, one weight after
// another from one generator, so a seed gives the same model every time.
import type { Rng } from '../../shared/random.js';
import { normal } from '../tensor/init.js';
import type { LmConfig } from '../../hf/config.js';
import { layerWeightNames, weightSpecs, type WeightSpec } from '../../hf/weights.js';

/** GPT-2's initializer_range. */
export const GPT2_INIT_STD = 0.02;

/** Every weight of a GPT-2 of config `c`, freshly drawn, in weightSpecs' order. */
export function gpt2InitialWeights(c: LmConfig, rng: Rng): { spec: WeightSpec; data: Float32Array }[] {
  if (c.family !== 'gpt2') throw new Error(`gpt2InitialWeights: a ${c.family} model, not gpt2`);
  const residual = new Set<string>();
  for (let l = 0; l < c.layers; l++) {
    const n = layerWeightNames(c, l);
    residual.add(n.out.weight).add(n.down.weight);
  }
  const residualStd = GPT2_INIT_STD / Math.sqrt(2 * c.layers);
  const random = () => rng.uniform();
  return weightSpecs(c).map((spec) => {
    const size = spec.shape.reduce((a, b) => a * b, 1);
    switch (spec.role) {
      case 'embedding':
      case 'linear':
        return { spec, data: normal(random, size, residual.has(spec.name) ? residualStd : GPT2_INIT_STD) };
      case 'norm':
        return { spec, data: new Float32Array(size).fill(1) };
      case 'bias':
      case 'normBias':
        return { spec, data: new Float32Array(size) };
    }
  });
}
