// The weights a run's checkpoint holds, checked against the model they are loaded over: one
// validation for every reader of a run (generate and eval load them, export writes them out;
// issue 43 items 8 and 11), so a record claiming LoRA rank 10^9 or a checkpoint missing a
// weight is the same LmWeightsError everywhere, before anything of that size is built.
import { WeightStore, type WeightSnapshot } from '../tensor/index.js';
import { LmWeightsError } from '../../hf/match-weights.js';

/** Weights a run trained (a checkpoint's), and the file they came from for messages. */
export interface TrainedWeights {
  readonly weights: WeightSnapshot;
  readonly file: string;
}

/**
 * A store of exactly the weights `expected` names, at their shapes, taken from `trained`; one
 * missing or of another shape is an LmWeightsError naming the checkpoint: it was trained on
 * another model (or another LoRA setting) than the one it is loaded over.
 */
export function trainedStore(trained: TrainedWeights, expected: readonly { readonly name: string; readonly shape: readonly number[] }[]): WeightStore {
  const store = new WeightStore();
  const show = (shape: readonly number[]) => `[${shape.join(', ')}]`;
  for (const { name, shape } of expected) {
    const w = trained.weights[name];
    if (!w) throw new LmWeightsError(`${trained.file} holds no weight "${name}", which the model implies; the checkpoint belongs to another model or LoRA setting`);
    if (w.shape.length !== shape.length || w.shape.some((d, i) => d !== shape[i]) || w.data.length !== w.shape.reduce((a, b) => a * b, 1)) {
      throw new LmWeightsError(`${trained.file}: weight "${name}" is ${show(w.shape)}, but the model implies ${show(shape)}; the checkpoint belongs to another model or LoRA setting`);
    }
    store.add(name, shape, w.data);
  }
  return store;
}
