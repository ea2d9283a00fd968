// Loading a Hugging Face model folder's weights into a WeightStore in runtime/'s layout, after
// checking every tensor the config implies is there with the shape the config implies: a
// checkpoint whose dims disagree with its config.json, or a folder of another family, is an
// LmWeightsError naming the file, the tensor and both shapes, before anything is allocated.
import * as path from 'node:path';
import { InputError } from '../../shared/input-error.js';
import { WeightStore } from '../tensor/index.js';
import type { LmConfig } from './config.js';
import { indexModelWeights, readTensor, type StoredTensor, type WeightIndex } from './safetensors.js';
import { transpose2d, weightSpecs, type WeightSpec } from './weights.js';

export class LmWeightsError extends InputError {
  override name = 'LmWeightsError';
}

const sameShape = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((d, i) => d === b[i]);
const show = (shape: readonly number[]) => `[${shape.join(', ')}]`;

/** The stored tensor for each weight the config implies, checked; throws LmWeightsError at the first that is missing or misshapen. */
export function matchWeights(modelDir: string, config: LmConfig, index: WeightIndex = indexModelWeights(modelDir)): Map<WeightSpec, StoredTensor> {
  const found = new Map<WeightSpec, StoredTensor>();
  const where = (t?: StoredTensor) => (t ? t.file : path.join(modelDir, 'model.safetensors'));
  for (const spec of weightSpecs(config)) {
    // GPT-2 checkpoints from OpenAI's conversion name tensors without the `transformer.` prefix.
    const stored = index.tensors.get(spec.name) ?? (config.family === 'gpt2' ? index.tensors.get(spec.name.replace(/^transformer\./, '')) : undefined);
    if (!stored) {
      throw new LmWeightsError(
        `${where()}: no tensor "${spec.name}", which a ${config.family} model with this config.json has; ` +
          `is config.json's model_type (${config.family}) right for these weights? (found ${index.tensors.size} tensors, e.g. ${[...index.tensors.keys()].slice(0, 3).join(', ')})`,
      );
    }
    const expected = spec.transposed ? [...spec.shape].reverse() : spec.shape;
    if (!sameShape(stored.shape, expected)) {
      throw new LmWeightsError(`${stored.file}: tensor "${stored.name}" is ${show(stored.shape)}, but config.json implies ${show(expected)}; the config and the weights disagree (hidden_size, heads, head_dim, intermediate_size or vocab_size)`);
    }
    found.set(spec, stored);
  }
  return found;
}

/** The model's weights as float32 arrays in runtime/'s layout (linear weights [in, out]). */
export function loadLmWeights(modelDir: string, config: LmConfig, index?: WeightIndex): WeightStore {
  const store = new WeightStore();
  // One tensor at a time: the peak is the store plus one tensor's copy, not two models.
  for (const [spec, stored] of matchWeights(modelDir, config, index)) {
    const data = readTensor(stored);
    store.add(spec.name, spec.shape, spec.transposed ? transpose2d(data, stored.shape[0]!, stored.shape[1]!) : data);
  }
  return store;
}
