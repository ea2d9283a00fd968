// The chunked decoder writes RMSNorm, the rotary embedding and the later steps' attention as
// onnxruntime's fused kernels (LmOptions.fusedOps): far fewer nodes a decode step (on a GPU each node is a dispatch, and a
// decode step of a small batch is mostly dispatches), the same tokens (chunked-decoder.test.ts
// compares its greedy tokens with the one-step loop's, which keeps the primitives), and a clear
// refusal of a position past the rotation's tables.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { attendsByGroupQuery, ChunkedDecoder, chunkedDecoderGraph } from '../../../runtime/lm/chunked-decoder.js';
import { parseLmConfig, type LmConfig } from '../../../hf/config.js';
import { openModelFolder } from '../../../runtime/lm/model-folder.js';
import { PretrainedLm } from '../../../runtime/lm/pretrained.js';
import { weightSpecs } from '../../../hf/weights.js';
import { Graph } from '../../../runtime/tensor/index.js';
import { HF_TINY } from '../../helpers/pretrained.js';

const qwen3 = parseLmConfig(
  { model_type: 'qwen3', vocab_size: 50, hidden_size: 16, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 4, intermediate_size: 32, max_position_embeddings: 64, rms_norm_eps: 1e-6, rope_theta: 10000, tie_word_embeddings: true, torch_dtype: 'float32' },
  'test config',
);

/** The ops of a chunked graph of K steps over `config`, counted. */
function opCounts(config: LmConfig, steps: number, fused: boolean): Map<string, number> {
  const g = new Graph();
  const weights = Object.fromEntries(weightSpecs(config).map((s) => [s.name, g.param(s.name, s.shape)]));
  chunkedDecoderGraph(g, config, weights, steps, 'greedy', fused ? { fusedOps: { positions: config.context + steps, attention: true } } : {});
  const counts = new Map<string, number>();
  for (const n of g.nodes) if (!n.isLeaf) counts.set(n.op, (counts.get(n.op) ?? 0) + 1);
  return counts;
}
const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

describe('the chunked decoder with fused kernels', () => {
  it("writes each RMSNorm (with its residual add), each rotation and each later step's attention as one node: half the nodes (Qwen3, with its per-head norms)", () => {
    const K = 4;
    const fused = opCounts(qwen3, K, true);
    const primitives = opCounts(qwen3, K, false);
    const { layers } = qwen3;
    // Per layer and step: the two norms around attention and the MLP, and q's and k's per-head
    // norms; then the final norm. Each norm of the residual stream after the first also makes the
    // residual add (SkipSimplifiedLayerNormalization).
    assert.equal(fused.get('SimplifiedLayerNormalization'), K * (2 * layers + 1), "the first layer's input norm and the per-head norms");
    assert.equal(fused.get('com.microsoft:SkipSimplifiedLayerNormalization'), K * 2 * layers, 'every later norm of the stream, with its residual add');
    assert.equal(fused.get('com.microsoft:RotaryEmbedding'), K * 2 * layers);
    for (const op of ['Sqrt', 'ReduceMean', 'Neg', 'Cos', 'Sin']) assert.equal(fused.get(op), undefined, `no ${op} is left`);
    // Steps after the first attend by GroupQueryAttention, which writes the cache itself: the
    // primitives' attention (its softmax, its writes) is left to the prompt's step alone.
    assert.equal(fused.get('com.microsoft:GroupQueryAttention'), (K - 1) * layers);
    assert.equal(fused.get('ScatterND'), undefined, 'no step writes the cache by ScatterND');
    assert.equal(fused.get('Softmax'), layers, "the first step's attention only");
    assert.ok(total(fused) < 0.5 * total(primitives), `${total(fused)} nodes fused against ${total(primitives)}`);
  });

  it('attends by GroupQueryAttention with fused ops and the fixed cache, except on cuda, where it was not checked', () => {
    assert.equal(attendsByGroupQuery({ providers: ['webgpu'] }), true);
    assert.equal(attendsByGroupQuery({ providers: ['cpu'] }), true);
    assert.equal(attendsByGroupQuery({}), true);
    assert.equal(attendsByGroupQuery({ providers: ['cuda'] }), false);
    assert.equal(attendsByGroupQuery({ providers: ['webgpu'], fusedOps: false }), false);
    assert.equal(attendsByGroupQuery({ providers: ['webgpu'], cache: 'appended' }), false);
  });

  it('is the default, and refuses a chunk past the positions its rotation tables hold', async () => {
    const lm = PretrainedLm.load(openModelFolder(path.join(HF_TINY, 'llama')), { providers: ['cpu'] });
    try {
      const decoder = await lm.decoder();
      const K = 4;
      const made = await decoder.companion('fused-test', (options) => ChunkedDecoder.create(lm.config, options, K, 'greedy'));
      const unfused = await decoder.companion('unfused-test', (options) => ChunkedDecoder.create(lm.config, { ...options, fusedOps: false }, K, 'greedy'));
      assert.equal(made.positions, lm.config.context + K);
      assert.equal(made.groupQuery, true, 'its later steps attend by GroupQueryAttention');
      assert.equal(unfused.positions, undefined);
      assert.equal(unfused.groupQuery, false);
      // A chunk fed one past the context: its last step would sit past the tables.
      const state = made.begin(new Int32Array(1));
      state.length = lm.config.context + 1;
      await assert.rejects(made.feed(state, Int32Array.of(1), 1, { mode: 'greedy' }), /reach position 132, past the 132 positions this llama decoder holds \(the model's context 128/);
    } finally {
      await lm.release();
    }
  });
});
