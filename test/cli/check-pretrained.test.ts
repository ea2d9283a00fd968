// `rlx check` on a spec with a pretrained model: the memory estimate, read against this machine's
// free memory, is a warning with the figures (issue 29 item 9), and a missing folder an error.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scratch } from './scratch.js';

const { rlx, write } = scratch('rlx-pretrained-');

/** Qwen3-0.6B's config.json (its sizes; the weights themselves are not read by the checker). */
const QWEN3_0_6B = JSON.stringify({
  architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3', hidden_size: 1024, num_hidden_layers: 28, num_attention_heads: 16,
  num_key_value_heads: 8, head_dim: 128, intermediate_size: 3072, vocab_size: 151936, max_position_embeddings: 40960,
  rms_norm_eps: 1e-6, rope_theta: 1000000, tie_word_embeddings: true, torch_dtype: 'bfloat16', hidden_act: 'silu',
});

describe('rlx check with pretrained("...")', () => {
  test('a run far past any machine\'s memory is a warning naming the parts; exit 0', () => {
    write('models/Qwen3-0.6B/config.json', QWEN3_0_6B);
    write('models/Qwen3-0.6B/tokenizer.json', '{}');
    write('models/Qwen3-0.6B/model.safetensors', '');
    // 100k prompts x 1024 completions sampled at once: petabytes, whatever the machine.
    const file = write('big.rlx', 'env Arith = TextTask\npolicy Base = pretrained("./models/Qwen3-0.6B")\n'
      + 'algorithm Huge = GRPO { prompts_per_update: 100000, group_size: 1024 }\nexperiment E { env: Arith, policy: Base, algorithm: Huge, budget: 1k }\n');
    const r = rlx('check', file);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /big\.rlx:4:36: warning exceeds-memory: this run needs about [\d.]+ GiB, more than the [\d.]+ (GiB|MiB) of memory free on this machine \(`rlx train` will refuse it\): weights \(float32\) 2\.2 GiB, KL reference copy 2\.2 GiB, gradients 2\.2 GiB, Adam state 4\.4 GiB, KV cache/);
    assert.match(r.stdout, /estimated for GRPO 100000 prompts x 1024 completions, sequences of 264 tokens/);
  });

  test('a folder that is not there: an error at the path, exit 1', () => {
    const r = rlx('check', write('missing.rlx', 'policy Base = pretrained("./models/nowhere")\n'));
    assert.equal(r.code, 1);
    assert.match(r.stdout, /missing\.rlx:1:26: error model-not-found: cannot find the model folder '\.\/models\/nowhere'/);
  });
});
