// GPT-2 (OpenAI 2019; transformers' modeling_gpt2.py): LayerNorm, a learned position table,
// gelu_new over c_fc and c_proj, one fused c_attn for q, k and v, and Conv1D layers that store
// their weights [in, out]. It is also the shape of the character-level `transformer` policy
// built from scratch (config.ts gpt2Dims).
import type { ConfigFields } from '../config-fields.js';
import type { LmConfig } from '../config.js';
import { linearNames as linear, type FamilyDefinition } from '../family.js';

function readConfig(f: ConfigFields): LmConfig {
  const width = f.count('n_embd');
  const act = f.string('activation_function', 'gelu_new');
  // gelu_pytorch_tanh is the same function as gelu_new (tanh approximation).
  if (act !== 'gelu_new' && act !== 'gelu_pytorch_tanh') f.fail('activation_function', `is "${act}"; rlx builds GPT-2 with gelu_new (the tanh approximation)`);
  if (f.boolean('scale_attn_by_inverse_layer_idx', false)) f.fail('scale_attn_by_inverse_layer_idx', 'is true; rlx builds GPT-2 with scale_attn_by_inverse_layer_idx false');
  if (!f.boolean('scale_attn_weights', true)) f.fail('scale_attn_weights', 'is false; rlx builds GPT-2 with attention scaled by 1/sqrt(head_dim)');
  if (f.boolean('add_cross_attention', false)) f.fail('add_cross_attention', 'is true; rlx builds decoder-only GPT-2');
  const heads = f.count('n_head');
  return {
    family: 'gpt2',
    vocab: f.count('vocab_size'),
    width,
    layers: f.count('n_layer'),
    heads,
    kvHeads: heads,
    headDim: width / heads,
    mlpWidth: f.optionalCount('n_inner') ?? 4 * width,
    context: f.count('n_positions'),
    norm: { kind: 'layer', epsilon: f.positive('layer_norm_epsilon', 1e-5) },
    mlp: 'gelu',
    qkvBias: true,
    outBias: true,
    mlpBias: true,
    qkNorm: false,
    tiedEmbeddings: f.boolean('tie_word_embeddings', true),
    dtype: f.dtype(),
  };
}

export const gpt2: FamilyDefinition<'gpt2'> = {
  modelType: 'gpt2',
  displayName: 'GPT-2',
  readConfig,
  headsField: 'n_head',
  contextField: 'n_positions',
  modelWeightNames: () => ({ embed: 'transformer.wte.weight', positionTable: 'transformer.wpe.weight', finalNorm: linear('transformer.ln_f', true) }),
  layerWeightNames: (_c, l) => {
    const p = `transformer.h.${l}`;
    return {
      attentionNorm: linear(`${p}.ln_1`, true),
      qkv: linear(`${p}.attn.c_attn`, true),
      out: linear(`${p}.attn.c_proj`, true),
      mlpNorm: linear(`${p}.ln_2`, true),
      up: linear(`${p}.mlp.c_fc`, true),
      down: linear(`${p}.mlp.c_proj`, true),
    };
  },
  linearStoredTransposed: false, // Conv1D stores [in, out]
  // GPT-2 names both projections c_proj: PEFT's target c_proj adapts both.
  linearModules: { qkv: 'c_attn', out: 'c_proj', up: 'c_fc', down: 'c_proj' },
  defaultLoraTargets: ['c_attn'],
  // Checkpoints from OpenAI's conversion name tensors without the `transformer.` prefix.
  storedAliases: (name) => (name.startsWith('transformer.') ? [name.slice('transformer.'.length)] : []),
};
