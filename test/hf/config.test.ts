import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { isInputError } from '../../shared/input-error.js';
import { LmConfigError, parameterCount, parseLmConfig, readLmConfig } from '../../hf/config.js';
import { inverseFrequencies } from '../../hf/rope.js';
import { repoRoot } from '../helpers/repo.js';

const fixture = (name: string) => path.join(repoRoot(), 'test/fixtures/hf-tiny', name);

// Real configs as published (old form: torch_dtype, top-level rope_theta, rope_scaling).
const QWEN3_0_6B = {
  architectures: ['Qwen3ForCausalLM'], attention_bias: false, bos_token_id: 151643, eos_token_id: 151645, head_dim: 128, hidden_act: 'silu',
  hidden_size: 1024, intermediate_size: 3072, max_position_embeddings: 40960, model_type: 'qwen3', num_attention_heads: 16,
  num_hidden_layers: 28, num_key_value_heads: 8, rms_norm_eps: 1e-6, rope_scaling: null, rope_theta: 1000000, sliding_window: null,
  tie_word_embeddings: true, torch_dtype: 'bfloat16', use_sliding_window: false, vocab_size: 151936,
};
const LLAMA_3_2_1B = {
  architectures: ['LlamaForCausalLM'], attention_bias: false, head_dim: 64, hidden_act: 'silu', hidden_size: 2048, intermediate_size: 8192,
  max_position_embeddings: 131072, mlp_bias: false, model_type: 'llama', num_attention_heads: 32, num_hidden_layers: 16, num_key_value_heads: 8,
  rms_norm_eps: 1e-5, rope_scaling: { factor: 32.0, high_freq_factor: 4.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
  rope_theta: 500000.0, tie_word_embeddings: true, torch_dtype: 'bfloat16', vocab_size: 128256,
};
const QWEN2_5_0_5B = {
  architectures: ['Qwen2ForCausalLM'], hidden_act: 'silu', hidden_size: 896, intermediate_size: 4864, max_position_embeddings: 32768,
  model_type: 'qwen2', num_attention_heads: 14, num_hidden_layers: 24, num_key_value_heads: 2, rms_norm_eps: 1e-6, rope_theta: 1000000.0,
  sliding_window: 32768, tie_word_embeddings: true, torch_dtype: 'bfloat16', use_sliding_window: false, vocab_size: 151936,
};
const GPT2_SMALL = { activation_function: 'gelu_new', model_type: 'gpt2', n_ctx: 1024, n_embd: 768, n_head: 12, n_layer: 12, n_positions: 1024, vocab_size: 50257, layer_norm_epsilon: 1e-5 };

test('the fixtures (transformers 5 form: dtype, rope_parameters) read as their architectures', () => {
  const qwen2 = readLmConfig(fixture('qwen2'));
  assert.deepEqual(
    { family: qwen2.family, heads: qwen2.heads, kvHeads: qwen2.kvHeads, headDim: qwen2.headDim, qkvBias: qwen2.qkvBias, outBias: qwen2.outBias, tied: qwen2.tiedEmbeddings, rope: qwen2.rope },
    { family: 'qwen2', heads: 4, kvHeads: 2, headDim: 16, qkvBias: true, outBias: false, tied: true, rope: { theta: 1e6, scaling: { type: 'default' } } },
  );
  const llama = readLmConfig(fixture('llama'));
  assert.equal(llama.tiedEmbeddings, false);
  assert.equal(llama.qkvBias, false);
  assert.equal(llama.rope?.theta, 1e4);
  const gpt2 = readLmConfig(fixture('gpt2'));
  assert.deepEqual([gpt2.mlp, gpt2.norm.kind, gpt2.mlpWidth, gpt2.context, gpt2.rope], ['gelu', 'layer', 256, 128, undefined]);
});

test('published configs in the older form read with their parameter counts', () => {
  const qwen3 = parseLmConfig(QWEN3_0_6B);
  assert.deepEqual([qwen3.headDim, qwen3.kvHeads, qwen3.qkNorm, qwen3.qkvBias, qwen3.dtype], [128, 8, true, false, 'bfloat16']);
  // Published sizes: Qwen3-0.6B 0.6B (0.44B without embeddings), Llama-3.2-1B 1.24B, Qwen2.5-0.5B 0.49B, GPT-2 124M.
  assert.equal(Math.round(parameterCount(qwen3) / 1e6), 596);
  assert.equal(Math.round(parameterCount(parseLmConfig(LLAMA_3_2_1B)) / 1e6), 1236);
  assert.equal(Math.round(parameterCount(parseLmConfig(QWEN2_5_0_5B)) / 1e6), 494);
  assert.equal(parameterCount(parseLmConfig(GPT2_SMALL)), 124439808);
});

test('rope_scaling in either form: llama3 scales low frequencies by the factor and keeps high ones', () => {
  const old = parseLmConfig(LLAMA_3_2_1B);
  const { rope_scaling, rope_theta, ...rest } = LLAMA_3_2_1B;
  const modern = parseLmConfig({ ...rest, rope_parameters: { ...rope_scaling, rope_theta } });
  assert.deepEqual(modern.rope, old.rope);
  assert.equal(old.rope?.scaling.type, 'llama3');
  const scaled = inverseFrequencies(old);
  const plain = inverseFrequencies(parseLmConfig({ ...rest, rope_theta }));
  assert.equal(scaled[0], plain[0]); // the highest frequency is unchanged
  assert.ok(Math.abs(scaled[31]! - plain[31]! / 32) < 1e-12 * plain[31]!); // the lowest is divided by the factor
  const linear = parseLmConfig({ ...rest, rope_theta, rope_scaling: { type: 'linear', factor: 4 } });
  assert.ok(Math.abs(inverseFrequencies(linear)[5]! - plain[5]! / 4) < 1e-9);
});

test('an unsupported or inconsistent config names the field and what is supported', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ ...QWEN3_0_6B, model_type: 'mistral' }, /model_type "mistral" is not supported; rlx builds llama, qwen2, qwen3, gpt2/],
    [{ ...QWEN3_0_6B, model_type: undefined }, /"model_type" is missing/],
    [{ ...QWEN3_0_6B, hidden_size: undefined }, /"hidden_size" is missing/],
    [{ ...QWEN3_0_6B, num_key_value_heads: 5 }, /"num_key_value_heads" \(5\) must divide num_attention_heads \(16\)/],
    [{ ...QWEN3_0_6B, num_attention_heads: 2.5 }, /"num_attention_heads" must be a positive whole number, got 2.5/],
    [{ ...QWEN3_0_6B, hidden_act: 'gelu' }, /"hidden_act" is "gelu"; rlx builds qwen3 with silu/],
    [{ ...LLAMA_3_2_1B, rope_scaling: { rope_type: 'yarn', factor: 4 } }, /"rope_scaling.rope_type" is "yarn"; rlx reads rope_type default, linear and llama3/],
    [{ ...LLAMA_3_2_1B, rope_scaling: { rope_type: 'llama3', factor: 8 } }, /"rope_scaling.low_freq_factor" must be a positive number/],
    [{ ...QWEN2_5_0_5B, use_sliding_window: true }, /"use_sliding_window" is true/],
    [{ ...GPT2_SMALL, activation_function: 'relu' }, /"activation_function" is "relu"/],
  ];
  for (const [raw, message] of cases) {
    assert.throws(() => parseLmConfig(raw, 'models/x/config.json'), (err: unknown) => err instanceof LmConfigError && isInputError(err) && message.test((err as Error).message) && (err as Error).message.startsWith('models/x/config.json'), String(message));
  }
  assert.throws(() => readLmConfig(fixture('no-such-model')), /cannot read the model config .*config\.json: no such file/);
});
