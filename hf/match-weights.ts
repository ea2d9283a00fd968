// The tensors of a model folder's weights that its config.json implies, found by name and checked
// for shape and dtype from the safetensors headers alone (no tensor data is read): load.ts reads
// them, and the checker (dsl/) refuses, as the user types, a folder rlx train would refuse.
import * as path from 'node:path';
import { InputError } from '../shared/input-error.js';
import type { LmConfig } from './config.js';
import { definitionOf } from './families/index.js';
import { indexModelWeights, readableDType, unreadableTensor, type StoredTensor, type WeightIndex } from './safetensors.js';
import { weightSpecs, type WeightSpec } from './weights.js';

export class LmWeightsError extends InputError {
  override name = 'LmWeightsError';
}

const sameShape = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((d, i) => d === b[i]);
const show = (shape: readonly number[]) => `[${shape.join(', ')}]`;

/** The stored tensor for each weight the config implies, checked; throws LmWeightsError at the first that is missing or misshapen. */
export function matchWeights(modelDir: string, config: LmConfig, index: WeightIndex = indexModelWeights(modelDir)): Map<WeightSpec, StoredTensor> {
  const found = new Map<WeightSpec, StoredTensor>();
  const where = (t?: StoredTensor) => (t ? t.file : path.join(modelDir, 'model.safetensors'));
  const aliases = definitionOf(config).storedAliases ?? (() => []);
  for (const spec of weightSpecs(config)) {
    // A family may store a weight under another name too (GPT-2 from OpenAI's conversion: no `transformer.` prefix).
    const stored = index.tensors.get(spec.name) ?? aliases(spec.name).map((alias) => index.tensors.get(alias)).find((t) => t !== undefined);
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
    // A checkpoint may hold tensors rlx does not read (I64 position ids, quantization state) beside the weights; a weight itself must be readable.
    if (!readableDType(stored.dtype)) throw unreadableTensor(stored);
    found.set(spec, stored);
  }
  return found;
}
