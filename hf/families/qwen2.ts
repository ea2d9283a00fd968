// Qwen2 and Qwen2.5 (Alibaba; transformers' modeling_qwen2.py): the Llama layout with biases on
// q, k and v always (its config.json has no field for them) and none on the output projection.
import type { FamilyDefinition } from '../family.js';
import { LLAMA_LAYOUT, readLlamaConfig } from './llama-layout.js';

export const qwen2: FamilyDefinition<'qwen2'> = {
  modelType: 'qwen2',
  displayName: 'Qwen2',
  readConfig: (f) => readLlamaConfig(f, 'qwen2', {
    qkvBias: () => true,
    outBias: () => false,
    qkNorm: false,
    refuse: (fields) => {
      if (fields.boolean('use_sliding_window', false)) fields.fail('use_sliding_window', 'is true; rlx builds full attention in every layer');
    },
  }),
  ...LLAMA_LAYOUT,
};
