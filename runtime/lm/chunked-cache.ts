// The chunked decoder's key/value cache of fixed capacity (chunked-decoder.ts): inside the graph
// each layer's cache is [B, KV, C, D], C the chunk's end (a named dim); each step writes its keys
// and values in place at their positions and attention masks the positions past each query.
// Every shape in the graph then has static or named dims: grown by a Concat per step, the cache's
// length dim was a new unnamed one at each of the K x layers Concats, and onnxruntime's session
// set-up grew about with their square (its allocation planner compares each new tensor with every
// freed one, and a tensor with an unnamed dim matches none; bench/chunked-load.ts).
//
// The writes, as onnxruntime's CPU and WebGPU providers both run them: step 0 joins the cache fed
// [B, KV, P, D] and its T keys by a Concat, and a Gather along the length with C indices gives
// [B, KV, C, D] (the Gather's output takes its dims from the indices: named); a later step writes
// its one key at its position by a ScatterND (which onnxruntime's CPU provider can run in place:
// per step it touches that key alone, where a Concat copied the whole cache; a Where over a
// one-hot position, tried first, cost about 20% more per chunk than the Concat). Both copy values: nothing is rounded.
// The cache crosses to the device as long as it is (P), as before.
//
// With fused ops (LmOptions.fusedOps) a later step writes its keys and attends in one kernel,
// onnxruntime's GroupQueryAttention, over the capacity: at the slot fed as its length, over the
// slots below the total fed, its mask an attention bias over those slots (groupQueryFeeds).
//
// This module builds what the host feeds for one chunk: where step 0's join puts each position,
// where each later step writes, and each step's positions and mask over the capacity.
import { MASKED } from './model.js';
import { attentionMask } from './rows.js';

/** Inputs of the fixed-capacity graph beside DECODER_IO's (whose `positions` and `mask` are step 0's). */
export const FIXED_CACHE_IO = {
  /** int64 [C]: for each position of the capacity, its index in the cache fed joined with step 0's T keys (later positions: any index, the last; later steps write them). */
  cacheSlots: 'cache_slots',
  /** int64 [K - 1, B]: the position (in its row) of the token step i >= 1 feeds, at i - 1. */
  stepPositions: 'step_positions',
  /** float32 [K - 1, B, C]: step i's additive attention mask over the capacity, at i - 1. */
  stepMask: 'step_mask',
  /** int64 [B, KV, 1, 3], one input per step i >= 1: ScatterND's indices (row, key/value head, position) of the step's keys. Apart, not gathered from one input: int64 ops run on the CPU under webgpu, and each would cost a copy per step. */
  stepSlots: (i: number) => `step_slots.${i}`,
  /** With GroupQueryAttention (fused ops), per step i >= 1: int32 [B], the slot the step writes (every row's the same). */
  stepSeqlens: (i: number) => `step_seqlens.${i}`,
  /** int32 [1]: the slots step i attends to, its own included. */
  stepTotal: (i: number) => `step_total.${i}`,
  /** float32 [B, 1, 1, S_i]: step i's additive mask over those slots (each row's left padding). */
  stepBias: (i: number) => `step_bias.${i}`,
} as const;

/** One chunk's feeds of a fixed-capacity graph, besides the tokens and the cache. */
export interface FixedCacheFeeds {
  /** [B, T] and [B, T, C]: step 0's positions and mask. */
  readonly positions: BigInt64Array;
  readonly mask: Float32Array;
  readonly cacheSlots: BigInt64Array;
  /** Absent at K = 1 (no later steps). */
  readonly stepPositions?: BigInt64Array;
  readonly stepMask?: Float32Array;
  /** Steps 1..K-1's ScatterND indices, at i - 1. */
  readonly stepSlots?: readonly BigInt64Array[];
}

/** What GroupQueryAttention reads of each later step i (at i - 1): the slot it writes, the slots it sees, its mask over them. */
export interface GroupQueryFeeds {
  readonly seqlens: readonly Int32Array[];
  readonly totals: readonly Int32Array[];
  readonly biases: readonly Float32Array[];
}

/**
 * The later steps' GroupQueryAttention feeds (steps 1..K-1) of the chunk fixedCacheFeeds lays out:
 * step i writes slot q = from + count - 1 + i in every row and sees slots start..q: its bias
 * [rows, q + 1] is rows.ts's mask of that one position.
 */
export function groupQueryFeeds(starts: Int32Array, from: number, count: number, steps: number): GroupQueryFeeds {
  const rows = starts.length;
  const seqlens: Int32Array[] = [];
  const totals: Int32Array[] = [];
  const biases: Float32Array[] = [];
  for (let i = 1; i < steps; i++) {
    const q = from + count - 1 + i;
    seqlens.push(new Int32Array(rows).fill(q));
    totals.push(Int32Array.of(q + 1));
    biases.push(attentionMask(starts, q, 1));
  }
  return { seqlens, totals, biases };
}

/**
 * The feeds of a chunk of `steps` steps whose step 0 feeds `count` tokens at absolute positions
 * from..from+count-1, step i > 0 one token at from+count-1+i, over a cache of `capacity` (at
 * least from + count + steps - 1) with `kvHeads` key/value heads, for rows starting at `starts`
 * (their left padding). A query at q sees the keys at positions start..q, as rows.ts's
 * attentionMask. `laterWrites` false leaves out the later steps' masks and ScatterND indices,
 * which a graph whose later steps attend by GroupQueryAttention does not read (groupQueryFeeds).
 */
export function fixedCacheFeeds(starts: Int32Array, from: number, count: number, steps: number, capacity: number, kvHeads: number, laterWrites = true): FixedCacheFeeds {
  const rows = starts.length;
  if (capacity < from + count + steps - 1) throw new Error(`chunked decoder: a cache of ${capacity} positions cannot hold ${from + count + steps - 1}`);
  const position = (r: number, q: number) => BigInt(Math.max(0, q - starts[r]!));
  const maskRow = (out: Float32Array, offset: number, r: number, q: number) => {
    for (let j = 0; j < capacity; j++) out[offset + j] = j <= q && j >= starts[r]! ? 0 : MASKED;
  };
  const positions = new BigInt64Array(rows * count);
  const mask = new Float32Array(rows * count * capacity);
  for (let r = 0; r < rows; r++) {
    for (let t = 0; t < count; t++) {
      positions[r * count + t] = position(r, from + t);
      maskRow(mask, (r * count + t) * capacity, r, from + t);
    }
  }
  // The cache fed and step 0's keys, joined, hold positions 0..from+count-1 in order.
  const cacheSlots = BigInt64Array.from({ length: capacity }, (_, c) => BigInt(Math.min(c, from + count - 1)));
  if (steps === 1) return { positions, mask, cacheSlots };
  const later = steps - 1;
  const stepPositions = new BigInt64Array(later * rows);
  for (let i = 0; i < later; i++) for (let r = 0; r < rows; r++) stepPositions[i * rows + r] = position(r, from + count + i);
  if (!laterWrites) return { positions, mask, cacheSlots, stepPositions };
  const stepMask = new Float32Array(later * rows * capacity);
  const stepSlots: BigInt64Array[] = [];
  for (let i = 0; i < later; i++) {
    const q = from + count + i; // step i + 1's position
    const slots = new BigInt64Array(rows * kvHeads * 3);
    for (let r = 0; r < rows; r++) {
      maskRow(stepMask, (i * rows + r) * capacity, r, q);
      for (let h = 0; h < kvHeads; h++) slots.set([BigInt(r), BigInt(h), BigInt(q)], (r * kvHeads + h) * 3);
    }
    stepSlots.push(slots);
  }
  return { positions, mask, cacheSlots, stepPositions, stepMask, stepSlots };
}
