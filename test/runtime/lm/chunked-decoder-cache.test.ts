// The chunked decoder's cache of fixed capacity (lm/chunked-cache.ts): what the host feeds for a
// chunk says what rows.ts says for the same positions, padded to the capacity; and the graph
// leaves onnxruntime no more unnamed dims at K = 8 than at K = 2. A dim onnxruntime cannot name
// (a Concat along a symbolic axis, a Reshape's -1 over symbolic dims) made session set-up grow
// with the square of the nodes that hold one: 48 s for 24 layers at K = 8 (bench/chunked-load.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixedCacheFeeds, groupQueryFeeds } from '../../../runtime/lm/chunked-cache.js';
import { chunkedDecoderGraph, type ChunkCache } from '../../../runtime/lm/chunked-decoder.js';
import { parseLmConfig } from '../../../hf/config.js';
import { MASKED } from '../../../runtime/lm/model.js';
import { attentionMask, rowPositions } from '../../../runtime/lm/rows.js';
import { weightSpecs } from '../../../hf/weights.js';
import { Graph, type Tensor } from '../../../runtime/tensor/index.js';

describe('the chunked decoder cache of fixed capacity', () => {
  const starts = Int32Array.of(0, 2, 3);
  const [from, count, steps, capacity] = [4, 3, 4, 12];
  const kvHeads = 2;
  const f = fixedCacheFeeds(starts, from, count, steps, capacity, kvHeads);
  const rows = starts.length;

  it("feeds step 0's positions and mask as rows.ts does, the keys past the chunk masked", () => {
    assert.deepEqual(f.positions, rowPositions(starts, from, count));
    const expected = attentionMask(starts, from, count); // [rows, count, from + count]
    for (let r = 0; r < rows; r++) {
      for (let t = 0; t < count; t++) {
        const row = Array.from(f.mask.subarray((r * count + t) * capacity, (r * count + t + 1) * capacity));
        const keys = Array.from(expected.subarray((r * count + t) * (from + count), (r * count + t + 1) * (from + count)));
        assert.deepEqual(row, [...keys, ...new Array<number>(capacity - from - count).fill(MASKED)], `row ${r} query ${t}`);
      }
    }
    // The cache fed (4 positions) joined with step 0's 3 keys holds positions 0..6 in order; the
    // later positions (written by later steps) take the last.
    assert.deepEqual(Array.from(f.cacheSlots, Number), [0, 1, 2, 3, 4, 5, 6, 6, 6, 6, 6, 6]);
  });

  it('feeds each later step one position, its mask and where it writes', () => {
    for (let i = 1; i < steps; i++) {
      const q = from + count - 1 + i; // the position step i feeds
      // ScatterND's indices: (row, head, position) for every row and key/value head.
      const slots = Array.from(f.stepSlots![i - 1]!, Number);
      assert.deepEqual(slots, Array.from({ length: rows * kvHeads }, (_, k) => [Math.floor(k / kvHeads), k % kvHeads, q]).flat(), `step ${i} writes at ${q}`);
      assert.deepEqual(Array.from(f.stepPositions!.subarray((i - 1) * rows, i * rows)), Array.from(rowPositions(starts, q, 1)));
      const expected = attentionMask(starts, q, 1); // [rows, 1, q + 1]
      for (let r = 0; r < rows; r++) {
        const mask = Array.from(f.stepMask!.subarray(((i - 1) * rows + r) * capacity, ((i - 1) * rows + r + 1) * capacity));
        assert.deepEqual(mask, [...expected.subarray(r * (q + 1), (r + 1) * (q + 1)), ...new Array<number>(capacity - q - 1).fill(MASKED)], `step ${i} row ${r}`);
      }
    }
    assert.equal(fixedCacheFeeds(starts, from, count, 1, capacity, kvHeads).stepMask, undefined, 'K = 1 has no later steps');
    // Without the later writes (GroupQueryAttention's graph): the same positions, no masks or indices.
    const grouped = fixedCacheFeeds(starts, from, count, steps, capacity, kvHeads, false);
    assert.deepEqual(grouped.stepPositions, f.stepPositions);
    assert.equal(grouped.stepMask, undefined);
    assert.equal(grouped.stepSlots, undefined);
  });

  it("feeds GroupQueryAttention each later step's slot, the slots it sees and its rows' left padding masked", () => {
    const q = groupQueryFeeds(starts, from, count, steps);
    assert.equal(q.seqlens.length, steps - 1);
    for (let i = 1; i < steps; i++) {
      const slot = from + count - 1 + i; // the position step i feeds, where it writes
      assert.deepEqual(Array.from(q.seqlens[i - 1]!), new Array<number>(rows).fill(slot), `step ${i} writes slot ${slot} in every row`);
      assert.deepEqual(Array.from(q.totals[i - 1]!), [slot + 1]);
      // The bias over slots 0..slot is rows.ts's mask for that position: each row's padding masked.
      assert.deepEqual(Array.from(q.biases[i - 1]!), Array.from(attentionMask(starts, slot, 1)), `step ${i}`);
    }
  });

  it('refuses a capacity that cannot hold the chunk', () => {
    assert.throws(() => fixedCacheFeeds(starts, from, count, steps, from + count + steps - 2, kvHeads), /cannot hold 10/);
  });

  const config = parseLmConfig({ model_type: 'qwen2', vocab_size: 50, hidden_size: 16, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, intermediate_size: 32, max_position_embeddings: 64, rms_norm_eps: 1e-6, rope_theta: 10000, tie_word_embeddings: true, torch_dtype: 'float32' }, 'test config');
  /** The nodes in which onnxruntime's shape inference loses a dim's name: a Concat along a symbolic axis, a Reshape whose -1 stands for symbolic dims. */
  function unnamedDimNodes(cache: ChunkCache, steps: number, mode: 'greedy' | 'sample' = 'greedy'): string[] {
    const g = new Graph();
    const weights = Object.fromEntries(weightSpecs(config).map((s) => [s.name, g.param(s.name, s.shape)]));
    chunkedDecoderGraph(g, config, weights, steps, mode, {}, cache);
    const symbolic = (t: Tensor) => t.shape.some((d) => typeof d === 'string');
    return g.nodes.flatMap((n) => {
      if (n.op === 'Concat' && typeof n.shape[n.attrs.axis as number] !== 'number') return [n.describe()];
      if (n.op === 'Reshape' && symbolic(n.inputs[0]!) && n.inputs[1]!.value && Array.from(n.inputs[1]!.value.data, Number).includes(-1)) return [n.describe()];
      return [];
    });
  }

  it('leaves onnxruntime as many unnamed dims at K = 8 as at K = 2: no Concat grows a symbolic axis per step, no Reshape infers one', () => {
    // Step 0's join of the cache fed with its keys, per layer for keys and values: P + T, read
    // by one Gather that names the capacity.
    const joins = 2 * config.layers;
    for (const mode of ['greedy', 'sample'] as const) {
      for (const steps of [1, 2, 8]) assert.equal(unnamedDimNodes('fixed', steps, mode).length, joins, `${mode}, K = ${steps}: ${unnamedDimNodes('fixed', steps, mode).join('; ')}`);
    }
    // The appended cache (kept for the bench's comparison) grows a dim at every layer and step.
    assert.ok(unnamedDimNodes('appended', 8).length >= joins * 8, 'the appended cache concatenates keys and values per layer and step');
  });
});
