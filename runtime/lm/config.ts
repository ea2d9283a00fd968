// A Hugging Face model folder's config.json, read into the one description of a causal language
// model the rest of runtime/lm builds from (LmConfig). Real checkpoints come in two forms: the
// older (`torch_dtype`, top-level `rope_theta`, `rope_scaling`) that most files on the Hub still
// carry, and transformers 5's (`dtype`, `rope_parameters`); both read the same. A field that is
// missing, of the wrong type or contradicts another is an LmConfigError naming config.json and
// the field; an architecture rlx does not build says which ones it does.
import * as path from 'node:path';
import { InputError } from '../../shared/input-error.js';
import { readInputJson } from '../../shared/input-files.js';

/** The families rlx builds, by config.json's `model_type`. */
export const FAMILIES = ['llama', 'qwen2', 'qwen3', 'gpt2'] as const;
export type Family = (typeof FAMILIES)[number];

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

/** A config.json rlx cannot build a model from; names the file and the field. */
export class LmConfigError extends InputError {
  override name = 'LmConfigError';
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
  if (!(FAMILIES as readonly string[]).includes(modelType)) {
    throw new LmConfigError(`${file}: model_type "${modelType}" is not supported; rlx builds ${FAMILIES.join(', ')} (Llama, Qwen2, Qwen3 and GPT-2 architectures)`);
  }
  const family = modelType as Family;
  const config = family === 'gpt2' ? gpt2Config(fields) : llamaLikeConfig(fields, family);
  return checkConsistent(config, file);
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

function gpt2Config(f: ConfigFields): LmConfig {
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

function llamaLikeConfig(f: ConfigFields, family: 'llama' | 'qwen2' | 'qwen3'): LmConfig {
  const act = f.string('hidden_act', 'silu');
  if (act !== 'silu') f.fail('hidden_act', `is "${act}"; rlx builds ${family} with silu (SwiGLU)`);
  const width = f.count('hidden_size');
  const heads = f.count('num_attention_heads');
  const kvHeads = f.optionalCount('num_key_value_heads') ?? heads;
  // Qwen3 states head_dim (128 in every size, not width / heads); others may.
  const headDim = f.optionalCount('head_dim') ?? (width % heads === 0 ? width / heads : f.fail('num_attention_heads', `(${heads}) does not divide hidden_size (${width}) and head_dim is not given`));
  const attentionBias = f.boolean('attention_bias', false);
  if (family === 'qwen2' && f.boolean('use_sliding_window', false)) f.fail('use_sliding_window', 'is true; rlx builds full attention in every layer');
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
    // Qwen2 always has q/k/v biases (its config has no field for them); Llama and Qwen3 follow attention_bias.
    qkvBias: family === 'qwen2' ? true : attentionBias,
    outBias: family === 'qwen2' ? false : attentionBias,
    mlpBias: f.boolean('mlp_bias', false),
    qkNorm: family === 'qwen3',
    tiedEmbeddings: f.boolean('tie_word_embeddings', false),
    dtype: f.dtype(),
  };
}

function checkConsistent(c: LmConfig, file: string): LmConfig {
  const fail = (field: string, what: string): never => {
    throw new LmConfigError(`${file}: "${field}" ${what}`);
  };
  if (c.heads % c.kvHeads !== 0) fail('num_key_value_heads', `(${c.kvHeads}) must divide num_attention_heads (${c.heads}): each key/value head serves a whole group of query heads`);
  if (!Number.isInteger(c.headDim)) fail(c.family === 'gpt2' ? 'n_head' : 'num_attention_heads', `(${c.heads}) must divide the width (${c.width})`);
  if (c.rope && c.headDim % 2 !== 0) fail('head_dim', `(${c.headDim}) must be even for rotary embeddings`);
  return c;
}

/** Typed access to config.json's fields; every failure names the field. */
class ConfigFields {
  constructor(
    private readonly raw: Readonly<Record<string, unknown>>,
    private readonly file: string,
  ) {}

  fail(field: string, what: string): never {
    throw new LmConfigError(`${this.file}: "${field}" ${what}`);
  }

  private value(field: string): unknown {
    return Object.prototype.hasOwnProperty.call(this.raw, field) ? this.raw[field] : undefined;
  }

  optionalCount(field: string): number | undefined {
    const v = this.value(field);
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) return this.fail(field, `must be a positive whole number, got ${JSON.stringify(v)}`);
    return v;
  }

  count(field: string): number {
    return this.optionalCount(field) ?? this.fail(field, 'is missing');
  }

  positive(field: string, fallback: number): number {
    const v = this.value(field) ?? fallback;
    if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) return this.fail(field, `must be a positive number, got ${JSON.stringify(v)}`);
    return v;
  }

  boolean(field: string, fallback: boolean): boolean {
    const v = this.value(field) ?? fallback;
    if (typeof v !== 'boolean') return this.fail(field, `must be true or false, got ${JSON.stringify(v)}`);
    return v;
  }

  string(field: string, fallback: string): string {
    const v = this.value(field) ?? fallback;
    if (typeof v !== 'string') return this.fail(field, `must be a string, got ${JSON.stringify(v)}`);
    return v;
  }

  dtype(): string | undefined {
    const v = this.value('dtype') ?? this.value('torch_dtype');
    return typeof v === 'string' ? v : undefined;
  }

  /**
   * Rotary settings. transformers 5 writes `rope_parameters` {rope_theta, rope_type, ...};
   * older files a top-level `rope_theta` and `rope_scaling` {type or rope_type, factor, ...}.
   */
  rope(): { theta: number; scaling: RopeScaling } {
    const params = this.value('rope_parameters');
    const legacy = this.value('rope_scaling');
    const where = params !== undefined && params !== null ? 'rope_parameters' : 'rope_scaling';
    const block = (params ?? legacy ?? {}) as Record<string, unknown>;
    if (typeof block !== 'object' || Array.isArray(block)) return this.fail(where, `must be an object, got ${JSON.stringify(block)}`);
    const theta = block.rope_theta ?? this.value('rope_theta') ?? 10000;
    if (typeof theta !== 'number' || !(theta > 0)) return this.fail(params ? 'rope_parameters.rope_theta' : 'rope_theta', `must be a positive number, got ${JSON.stringify(theta)}`);
    const type = block.rope_type ?? block.type ?? 'default';
    const number = (key: string, fallback?: number): number => {
      const v = block[key] ?? fallback;
      if (typeof v !== 'number' || !(v > 0)) return this.fail(`${where}.${key}`, `must be a positive number for rope_type "${String(type)}", got ${JSON.stringify(v)}`);
      return v;
    };
    switch (type) {
      case 'default':
        return { theta, scaling: { type: 'default' } };
      case 'linear':
        return { theta, scaling: { type: 'linear', factor: number('factor') } };
      case 'llama3':
        return {
          theta,
          scaling: {
            type: 'llama3',
            factor: number('factor'),
            lowFreqFactor: number('low_freq_factor'),
            highFreqFactor: number('high_freq_factor'),
            originalContext: number('original_max_position_embeddings'),
          },
        };
      default:
        return this.fail(`${where}.rope_type`, `is ${JSON.stringify(type)}; rlx reads rope_type default, linear and llama3`);
    }
  }
}

/** Parameters of the model (embedding, blocks, final norm, and the head when untied). */
export function parameterCount(c: LmConfig): number {
  const C = c.width;
  const [q, kv] = [c.heads * c.headDim, c.kvHeads * c.headDim];
  const norm = c.norm.kind === 'layer' ? 2 * C : C;
  const attention = C * (q + 2 * kv) + q * C + (c.qkvBias ? q + 2 * kv : 0) + (c.outBias ? C : 0) + (c.qkNorm ? 2 * c.headDim : 0);
  const mlp = c.mlp === 'swiglu' ? 3 * C * c.mlpWidth + (c.mlpBias ? 2 * c.mlpWidth + C : 0) : 2 * C * c.mlpWidth + (c.mlpBias ? c.mlpWidth + C : 0);
  const embeddings = c.vocab * C + (c.family === 'gpt2' ? c.context * C : 0);
  return embeddings + c.layers * (attention + mlp + 2 * norm) + norm + (c.tiedEmbeddings ? 0 : c.vocab * C);
}
