// Loading a Hugging Face model folder's weights into a WeightStore in runtime/'s layout, after
// checking every tensor the config implies is there with the shape the config implies: a
// checkpoint whose dims disagree with its config.json, or a folder of another family, is an
// LmWeightsError naming the file, the tensor and both shapes, before anything is allocated.
import { WeightStore } from '../tensor/index.js';
import type { LmConfig } from '../../hf/config.js';
import { checkFiniteHalfWeights, checkFiniteWeights } from '../../hf/finite-weights.js';
import { matchWeights } from '../../hf/match-weights.js';
import { readTensor, readTensorAsHalf, type WeightIndex } from '../../hf/safetensors.js';
import { transpose2d } from '../../hf/weights.js';

export { LmWeightsError, matchWeights } from '../../hf/match-weights.js';

/** The model's weights as float32 arrays in runtime/'s layout (linear weights [in, out]). */
export function loadLmWeights(modelDir: string, config: LmConfig, index?: WeightIndex): WeightStore {
  const store = new WeightStore();
  // One tensor at a time: the peak is the store plus one tensor's copy, not two models.
  for (const [spec, stored] of matchWeights(modelDir, config, index)) {
    const data = readTensor(stored);
    checkFiniteWeights(data, stored.name, stored.file);
    store.add(spec.name, spec.shape, spec.transposed ? transpose2d(data, stored.shape[0]!, stored.shape[1]!) : data);
  }
  return store;
}

/**
 * The weights as float16 bits (WeightStore.addHalf), for a frozen base kept in half precision:
 * half the memory of loadLmWeights. Undefined where a tensor is stored in float32, or holds a
 * value float16 cannot (readTensorAsHalf): the caller loads in float32 then.
 */
export function loadLmWeightsHalf(modelDir: string, config: LmConfig, index?: WeightIndex): WeightStore | undefined {
  const matched = [...matchWeights(modelDir, config, index)];
  if (matched.some(([, stored]) => stored.dtype === 'F32')) return undefined;
  const store = new WeightStore();
  for (const [spec, stored] of matched) {
    const bits = readTensorAsHalf(stored);
    if (!bits) return undefined;
    checkFiniteHalfWeights(bits, stored.name, stored.file);
    store.addHalf(spec.name, spec.shape, spec.transposed ? transpose2d(bits, stored.shape[0]!, stored.shape[1]!) : bits);
  }
  return store;
}
