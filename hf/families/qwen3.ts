// Qwen3 (Alibaba; transformers' modeling_qwen3.py): the Llama layout with an RMSNorm over each
// head's queries and keys before rope (q_norm, k_norm), biases where attention_bias says, and a
// head_dim config.json states (128 in every size, not width / heads).
import type { FamilyDefinition } from '../family.js';
import { LLAMA_LAYOUT, readLlamaConfig } from './llama-layout.js';

export const qwen3: FamilyDefinition<'qwen3'> = {
  modelType: 'qwen3',
  displayName: 'Qwen3',
  readConfig: (f) => readLlamaConfig(f, 'qwen3', { qkvBias: (bias) => bias, outBias: (bias) => bias, qkNorm: true }),
  ...LLAMA_LAYOUT,
};
