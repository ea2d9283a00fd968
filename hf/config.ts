// A Hugging Face model folder's config.json, read into the one description of a causal language
// model the rest of runtime/lm builds from (LmConfig). Real checkpoints come in two forms: the
// older (`torch_dtype`, top-level `rope_theta`, `rope_scaling`) that most files on the Hub still
// carry, and transformers 5's (`dtype`, `rope_parameters`); both read the same. A field that is
// missing, of the wrong type or contradicts another is an LmConfigError naming config.json and
// the field; an architecture rlx does not build says which ones it does. What differs between
// families (which fields they read, their quirks) is each family's definition (hf/families/).
import * as path from 'node:path';
import { readInputJson } from '../shared/input-files.js';
import { ConfigFields, LmConfigError } from './config-fields.js';
import { definitionOf, FAMILIES, familyDefinition, type Family } from './families/index.js';
import { modelWeightNames } from './weights.js';

export { LmConfigError };
export { FAMILIES, type Family };

/** How rotary position embeddings stretch past the trained context (transformers' rope_type). */
export type RopeScaling =
  | { readonly type: 'default' }
  | { readonly type: 'linear'; readonly factor: number }
  | { readonly type: 'llama3'; readonly factor: number; readonly lowFreqFactor: number; readonly highFreqFactor: number; readonly originalContext: number };

export interface LmConfig {
  readonly family: Family;
  /** V: rows of the embedding table (config.json's vocab_size; may exceed the tokenizer's size). */
  readonly vocab: number;
  /** C: the residual stream's width (hidden_size, n_embd). */
  readonly width: number;
  readonly layers: number;
  /** Query heads H, key/value heads KV (grouped-query attention: H a multiple of KV), and D per head. */
  readonly heads: number;
  readonly kvHeads: number;
  readonly headDim: number;
  /** The MLP's inner width (intermediate_size, n_inner). */
  readonly mlpWidth: number;
  /** Longest sequence the model was made for (max_position_embeddings, n_positions). */
  readonly context: number;
  readonly norm: { readonly kind: 'rms' | 'layer'; readonly epsilon: number };
  /** Rotary embeddings (Llama, Qwen); GPT-2 learns a position table instead. */
  readonly rope?: { readonly theta: number; readonly scaling: RopeScaling };
  /** The MLP: SwiGLU (gate, up, down) or GPT-2's gelu_new over c_fc, c_proj. */
  readonly mlp: 'swiglu' | 'gelu';
  /** Biases on q/k/v projections (Qwen2; Llama's attention_bias), on the output projection, on the MLP. */
  readonly qkvBias: boolean;
  readonly outBias: boolean;
  readonly mlpBias: boolean;
  /** Qwen3: an RMSNorm over each head's queries and keys before rope. */
  readonly qkNorm: boolean;
  /** The LM head is the embedding table (no lm_head.weight stored). */
  readonly tiedEmbeddings: boolean;
  /** The dtype config.json declares the weights in (dtype / torch_dtype), if any. */
  readonly dtype?: string;
}

/** The largest config.json read (real ones are a few KiB). */
const MAX_CONFIG_BYTES = 4 * 2 ** 20;

/** Reads `modelDir`/config.json. */
export function readLmConfig(modelDir: string): LmConfig {
  const file = path.join(modelDir, 'config.json');
  const json = readInputJson(file, { what: 'model config', maxBytes: MAX_CONFIG_BYTES });
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new LmConfigError(`${file} must hold a JSON object`);
  return parseLmConfig(json as Record<string, unknown>, file);
}

/** The LmConfig of a parsed config.json; `file` names it in errors. */
export function parseLmConfig(raw: Readonly<Record<string, unknown>>, file = 'config.json'): LmConfig {
  const fields = new ConfigFields(raw, file);
  const modelType = raw.model_type;
  if (typeof modelType !== 'string') {
    throw new LmConfigError(`${file}: "model_type" is missing; rlx builds ${FAMILIES.join(', ')} models (a Hugging Face model folder's config.json names its model_type)`);
  }
  const definition = familyDefinition(modelType);
  if (!definition) {
    throw new LmConfigError(`${file}: model_type "${modelType}" is not supported; rlx builds ${FAMILIES.join(', ')} (${displayNames()} architectures)`);
  }
  return checkConsistent(definition.readConfig(fields), file);
}

/** The dimensions of a GPT-2 built from scratch (the `transformer` policy's settings and its tokenizer's size). */
export interface Gpt2Dims {
  readonly layers: number;
  readonly width: number;
  readonly heads: number;
  readonly context: number;
  readonly vocab: number;
}

/**
 * The LmConfig of a GPT-2 of these dimensions, as a config.json with only n_layer, n_embd,
 * n_head, n_positions and vocab_size would give it: gelu_new, an MLP four times the width,
 * LayerNorm epsilon 1e-5, tied embeddings.
 */
export function gpt2Dims(d: Gpt2Dims): LmConfig {
  return parseLmConfig({ model_type: 'gpt2', n_layer: d.layers, n_embd: d.width, n_head: d.heads, n_positions: d.context, vocab_size: d.vocab }, 'the GPT-2 dimensions');
}

/** "Llama, Qwen2, Qwen3 and GPT-2": the families' own names, for the refusal of another. */
function displayNames(): string {
  const names = FAMILIES.map((family) => definitionOf({ family }).displayName);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names.join('');
}

function checkConsistent(c: LmConfig, file: string): LmConfig {
  const fail = (field: string, what: string): never => {
    throw new LmConfigError(`${file}: "${field}" ${what}`);
  };
  if (c.heads % c.kvHeads !== 0) fail('num_key_value_heads', `(${c.kvHeads}) must divide num_attention_heads (${c.heads}): each key/value head serves a whole group of query heads`);
  if (!Number.isInteger(c.headDim)) fail(definitionOf(c).headsField, `(${c.heads}) must divide the width (${c.width})`);
  if (c.rope && c.headDim % 2 !== 0) fail('head_dim', `(${c.headDim}) must be even for rotary embeddings`);
  return c;
}

/** Parameters of the model (embedding, blocks, final norm, and the head when untied). */
export function parameterCount(c: LmConfig): number {
  const C = c.width;
  const [q, kv] = [c.heads * c.headDim, c.kvHeads * c.headDim];
  const norm = c.norm.kind === 'layer' ? 2 * C : C;
  const attention = C * (q + 2 * kv) + q * C + (c.qkvBias ? q + 2 * kv : 0) + (c.outBias ? C : 0) + (c.qkNorm ? 2 * c.headDim : 0);
  const mlp = c.mlp === 'swiglu' ? 3 * C * c.mlpWidth + (c.mlpBias ? 2 * c.mlpWidth + C : 0) : 2 * C * c.mlpWidth + (c.mlpBias ? c.mlpWidth + C : 0);
  const embeddings = c.vocab * C + (modelWeightNames(c).positionTable ? c.context * C : 0);
  return embeddings + c.layers * (attention + mlp + 2 * norm) + norm + (c.tiedEmbeddings ? 0 : c.vocab * C);
}
