// How rows of different lengths share one batch: each is left-padded to the batch's width, so
// all rows decode in lockstep with one key/value cache, and the model is told where each row
// starts (its positions count from there, and no query sees a padding key). This is what
// transformers does with an attention mask and position ids computed from it; it makes a
// batched completion equal to the same prompt completed alone.
import { MASKED } from './model.js';

/** Left-padded rows: `ids` [rows, width] and each row's first real position. */
export interface PaddedRows {
  readonly rows: number;
  readonly width: number;
  readonly ids: Int32Array;
  readonly starts: Int32Array;
}

/** Left-pads `sequences` to their longest length with `padId`. */
export function leftPad(sequences: readonly (readonly number[])[], padId: number): PaddedRows {
  const rows = sequences.length;
  const width = Math.max(1, ...sequences.map((s) => s.length));
  const ids = new Int32Array(rows * width).fill(padId);
  const starts = new Int32Array(rows);
  sequences.forEach((s, r) => {
    starts[r] = width - s.length;
    ids.set(s, r * width + starts[r]!);
  });
  return { rows, width, ids, starts };
}

/** Positions [rows, count] of absolute positions from..from+count-1: 0 at each row's start (0 before it too). */
export function rowPositions(starts: Int32Array, from: number, count: number): BigInt64Array {
  const rows = starts.length;
  const out = new BigInt64Array(rows * count);
  for (let r = 0; r < rows; r++) for (let i = 0; i < count; i++) out[r * count + i] = BigInt(Math.max(0, from + i - starts[r]!));
  return out;
}

/**
 * The additive attention mask [rows, count, from + count] for queries at absolute positions
 * from..from+count-1 over keys 0..from+count-1: 0 where the key is at or before the query and
 * at or after the row's start, MASKED elsewhere.
 */
export function attentionMask(starts: Int32Array, from: number, count: number): Float32Array {
  const rows = starts.length;
  const keys = from + count;
  const out = new Float32Array(rows * count * keys);
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < count; i++) {
      const row = (r * count + i) * keys;
      const query = from + i;
      for (let j = 0; j < keys; j++) out[row + j] = j <= query && j >= starts[r]! ? 0 : MASKED;
    }
  }
  return out;
}

/**
 * Rows packed with independent segments (a dialogue's turns where the chat template re-rendered
 * the history differently: text/chat-dialogue.ts): `first` [rows, width] holds, for each
 * position, the first position of its segment (for left padding, the row's first real
 * position). A position counts from its segment's start and sees only the keys of its own
 * segment up to itself; with one segment per row this is rowPositions and attentionMask.
 */
export function segmentPositions(first: Int32Array, rows: number, width: number): BigInt64Array {
  const out = new BigInt64Array(rows * width);
  for (let r = 0; r < rows; r++) for (let i = 0; i < width; i++) out[r * width + i] = BigInt(Math.max(0, i - first[r * width + i]!));
  return out;
}

/** The additive attention mask [rows, width, width] of packed segments (see segmentPositions). */
export function segmentMask(first: Int32Array, rows: number, width: number): Float32Array {
  const out = new Float32Array(rows * width * width);
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < width; i++) {
      const row = (r * width + i) * width;
      const from = first[r * width + i]!;
      for (let j = 0; j < width; j++) out[row + j] = j <= i && j >= from ? 0 : MASKED;
    }
  }
  return out;
}
