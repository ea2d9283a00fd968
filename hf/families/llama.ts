// Llama (Meta; transformers' modeling_llama.py): the Llama layout, with biases on the attention's
// projections only where config.json's attention_bias says so, and Llama 3's rope scaling
// (config-fields.ts rope).
import type { FamilyDefinition } from '../family.js';
import { LLAMA_LAYOUT, readLlamaConfig } from './llama-layout.js';

export const llama: FamilyDefinition<'llama'> = {
  modelType: 'llama',
  displayName: 'Llama',
  readConfig: (f) => readLlamaConfig(f, 'llama', { qkvBias: (bias) => bias, outBias: (bias) => bias, qkNorm: false }),
  ...LLAMA_LAYOUT,
};
