// What Llama, Qwen2 and Qwen3 share (transformers' modeling_llama.py and its copies): RMSNorm,
// rotary embeddings, SwiGLU, grouped-query attention and nn.Linear layers under `model.layers.N`.
// Each family's file says how it differs (which biases it has, Qwen3's q/k norms, what it refuses).
import type { ConfigFields } from '../config-fields.js';
import type { LmConfig } from '../config.js';
import { linearNames as linear, type FamilyDefinition } from '../family.js';

export interface LlamaQuirks {
  /** Biases on q/k/v and on the output projection, given config.json's attention_bias. */
  readonly qkvBias: (attentionBias: boolean) => boolean;
  readonly outBias: (attentionBias: boolean) => boolean;
  /** An RMSNorm over each head's queries and keys before rope (Qwen3). */
  readonly qkNorm: boolean;
  /** Settings of config.json this family has and rlx does not build, refused by field. */
  readonly refuse?: (f: ConfigFields) => void;
}

/** config.json of a Llama-shaped family, read with its quirks. */
export function readLlamaConfig(f: ConfigFields, family: LmConfig['family'], quirks: LlamaQuirks): LmConfig {
  const act = f.string('hidden_act', 'silu');
  if (act !== 'silu') f.fail('hidden_act', `is "${act}"; rlx builds ${family} with silu (SwiGLU)`);
  const width = f.count('hidden_size');
  const heads = f.count('num_attention_heads');
  const kvHeads = f.optionalCount('num_key_value_heads') ?? heads;
  // Qwen3 states head_dim (128 in every size, not width / heads); others may.
  const headDim = f.optionalCount('head_dim') ?? (width % heads === 0 ? width / heads : f.fail('num_attention_heads', `(${heads}) does not divide hidden_size (${width}) and head_dim is not given`));
  const attentionBias = f.boolean('attention_bias', false);
  quirks.refuse?.(f);
  return {
    family,
    vocab: f.count('vocab_size'),
    width,
    layers: f.count('num_hidden_layers'),
    heads,
    kvHeads,
    headDim,
    mlpWidth: f.count('intermediate_size'),
    context: f.count('max_position_embeddings'),
    norm: { kind: 'rms', epsilon: f.positive('rms_norm_eps', 1e-6) },
    rope: f.rope(),
    mlp: 'swiglu',
    qkvBias: quirks.qkvBias(attentionBias),
    outBias: quirks.outBias(attentionBias),
    mlpBias: f.boolean('mlp_bias', false),
    qkNorm: quirks.qkNorm,
    tiedEmbeddings: f.boolean('tie_word_embeddings', false),
    dtype: f.dtype(),
  };
}

/** Weight names, layout, LoRA modules and defaults of the Llama layout (all but modelType, displayName, readConfig). */
export const LLAMA_LAYOUT = {
  headsField: 'num_attention_heads',
  contextField: 'max_position_embeddings',
  modelWeightNames: (c: LmConfig) => ({ embed: 'model.embed_tokens.weight', finalNorm: linear('model.norm', false), ...(c.tiedEmbeddings ? {} : { head: 'lm_head.weight' }) }),
  layerWeightNames: (c: LmConfig, l: number) => {
    const p = `model.layers.${l}`;
    return {
      attentionNorm: linear(`${p}.input_layernorm`, false),
      q: linear(`${p}.self_attn.q_proj`, c.qkvBias),
      k: linear(`${p}.self_attn.k_proj`, c.qkvBias),
      v: linear(`${p}.self_attn.v_proj`, c.qkvBias),
      ...(c.qkNorm ? { qNorm: `${p}.self_attn.q_norm.weight`, kNorm: `${p}.self_attn.k_norm.weight` } : {}),
      out: linear(`${p}.self_attn.o_proj`, c.outBias),
      mlpNorm: linear(`${p}.post_attention_layernorm`, false),
      gate: linear(`${p}.mlp.gate_proj`, c.mlpBias),
      up: linear(`${p}.mlp.up_proj`, c.mlpBias),
      down: linear(`${p}.mlp.down_proj`, c.mlpBias),
    };
  },
  linearStoredTransposed: true,
  linearModules: { q: 'q_proj', k: 'k_proj', v: 'v_proj', out: 'o_proj', gate: 'gate_proj', up: 'up_proj', down: 'down_proj' },
  defaultLoraTargets: ['q_proj', 'v_proj'],
} satisfies Omit<FamilyDefinition, 'modelType' | 'displayName' | 'readConfig'>;
