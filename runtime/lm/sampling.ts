// Choosing a token from next-token logits, for every language model rlx decodes (generate.ts,
// and the character-level policy's loop in policies/transformer/sampling.ts).
//
// The sampling controls follow Hugging Face transformers' logits processors, in the order its
// generate() applies them: RepetitionPenaltyLogitsProcessor, then TemperatureLogitsWarper,
// TopKLogitsWarper, TopPLogitsWarper, MinPLogitsWarper (each keeping at least one token). A
// control at its neutral value (top_p 1, min_p 0, repetition_penalty 1, no top_k) is skipped,
// as transformers skips it, so sampling with none set is draw() itself, bit for bit.
import type { Rng } from '../../shared/random.js';

/** What narrows the distribution a token is drawn from, beside the temperature (absent: off). */
export interface SamplingControls {
  /** Keep the k most likely tokens (ties with the k-th kept too, as transformers' TopK). */
  readonly topK?: number;
  /** Keep the most likely tokens whose probabilities sum to at least top_p (nucleus sampling), in (0, 1]. */
  readonly topP?: number;
  /** Keep tokens at least min_p times as likely as the most likely one, in [0, 1). */
  readonly minP?: number;
  /** Logits of tokens already in the row (prompt and completion) divided by it (multiplied where negative), > 0. */
  readonly repetitionPenalty?: number;
  /** Strings that end a completion once its decoded text contains one (StopStrings). */
  readonly stop?: readonly string[];
}

/** Whether any token-level control of `c` changes the distribution (stop strings do not). */
export function narrowsDistribution(c: SamplingControls | undefined): boolean {
  if (!c) return false;
  return (c.topK !== undefined) || (c.topP !== undefined && c.topP < 1) || (c.minP !== undefined && c.minP > 0) || (c.repetitionPenalty !== undefined && c.repetitionPenalty !== 1);
}

/** The controls as a run's hparams name them, absent ones at their neutral values (top_k null: off). */
export function controlSettings(c: SamplingControls | undefined): Record<string, unknown> {
  return { top_k: c?.topK ?? null, top_p: c?.topP ?? 1, min_p: c?.minP ?? 0, repetition_penalty: c?.repetitionPenalty ?? 1, stop: [...(c?.stop ?? [])] };
}

/** The most likely token (ties: the lowest id). */
export function argMax(logits: Float32Array, offset: number, n: number): number {
  let best = 0;
  for (let k = 1; k < n; k++) if (logits[offset + k]! > logits[offset + best]!) best = k;
  return best;
}

/** A token drawn from softmax(logits / temperature). */
export function draw(logits: Float32Array, offset: number, n: number, temperature: number, rng: Rng): number {
  let most = -Infinity;
  for (let k = 0; k < n; k++) most = Math.max(most, logits[offset + k]!);
  let sum = 0;
  for (let k = 0; k < n; k++) sum += Math.exp((logits[offset + k]! - most) / temperature);
  let u = rng.uniform() * sum;
  for (let k = 0; k < n; k++) {
    u -= Math.exp((logits[offset + k]! - most) / temperature);
    if (u < 0) return k;
  }
  return n - 1;
}

/**
 * repetition_penalty on a copy of one row's logits, as transformers' processor: each id of
 * `seen` (counted once however often it occurs) has its logit divided by the penalty where
 * positive, multiplied where negative. Greedy decoding applies it too, as transformers does.
 */
export function penalized(logits: Float32Array, offset: number, n: number, penalty: number, seen: Iterable<number>): Float32Array {
  const row = logits.slice(offset, offset + n);
  for (const id of new Set(seen)) {
    if (id < 0 || id >= n) continue;
    const x = row[id]!;
    row[id] = x < 0 ? x * penalty : x / penalty;
  }
  return row;
}

/**
 * A token chosen under `controls`: greedy (the most likely after the repetition penalty), or
 * drawn from softmax(logits / temperature) narrowed by top_k, top_p and min_p. `seen`: the
 * row's ids so far (prompt and completion), read only for repetition_penalty. Without a
 * control that changes the distribution this is argMax() or draw(), taking the same uniforms.
 */
export function choose(logits: Float32Array, offset: number, n: number, greedy: boolean, temperature: number, rng: Rng | undefined, controls: SamplingControls | undefined, seen: () => Iterable<number>): number {
  const penalty = controls?.repetitionPenalty;
  let row = logits;
  let at = offset;
  if (penalty !== undefined && penalty !== 1) {
    row = penalized(logits, offset, n, penalty, seen());
    at = 0;
  }
  if (greedy) return argMax(row, at, n);
  if (controls && truncates(controls)) return drawTruncated(row, at, n, temperature, controls, rng!);
  return draw(row, at, n, temperature, rng!);
}

function truncates(c: SamplingControls): boolean {
  return c.topK !== undefined || (c.topP !== undefined && c.topP < 1) || (c.minP !== undefined && c.minP > 0);
}

/** Scratch for drawTruncated: each token's weight, and candidate ids (grown as vocabularies need). */
let weights = new Float64Array(0);
let candidates = new Int32Array(0);

/**
 * A token drawn from softmax(logits / temperature) with top_k, then top_p, then min_p applied.
 * Ties at a boundary: top_k keeps every token equal to the k-th (transformers compares with
 * the k-th value); top_p ranks equal logits by id, the lower id kept first.
 */
export function drawTruncated(logits: Float32Array, offset: number, n: number, temperature: number, c: SamplingControls, rng: Rng): number {
  if (weights.length < n) {
    weights = new Float64Array(n);
    candidates = new Int32Array(n);
  }
  const w = weights;
  let most = -Infinity;
  for (let k = 0; k < n; k++) most = Math.max(most, logits[offset + k]!);
  // w_k = exp((l_k - most) / T) in (0, 1]: the unnormalised probabilities, computed once.
  for (let k = 0; k < n; k++) w[k] = Math.exp((logits[offset + k]! - most) / temperature);
  let ids: Int32Array = candidates;
  let m = 0;
  if (c.topK !== undefined && c.topK < n) {
    const kth = kthLargest(logits, offset, n, c.topK);
    for (let k = 0; k < n; k++) if (logits[offset + k]! >= kth) ids[m++] = k;
  } else {
    for (let k = 0; k < n; k++) ids[m++] = k;
  }
  if (c.topP !== undefined && c.topP < 1) {
    const kept = nucleus(ids.subarray(0, m), w, c.topP, (a, b) => logits[offset + b]! - logits[offset + a]! || a - b);
    ids = kept;
    m = kept.length;
  }
  if (c.minP !== undefined && c.minP > 0) {
    // min_p compares probabilities with the most likely token's (kept by every earlier step):
    // p_k < min_p * p_max  <=>  w_k < min_p.
    let kept = 0;
    for (let i = 0; i < m; i++) if (w[ids[i]!]! >= c.minP) ids[kept++] = ids[i]!;
    if (kept > 0) m = kept;
  }
  let sum = 0;
  for (let i = 0; i < m; i++) sum += w[ids[i]!]!;
  let u = rng.uniform() * sum;
  for (let i = 0; i < m; i++) {
    u -= w[ids[i]!]!;
    if (u < 0) return ids[i]!;
  }
  return ids[m - 1]!;
}

/** The k-th largest of logits[offset..offset+n] (k <= n). */
function kthLargest(logits: Float32Array, offset: number, n: number, k: number): number {
  // A min-heap of the k largest so far: O(n log k), no sort of the vocabulary.
  const heap = new Float64Array(k);
  let size = 0;
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < size && heap[l]! < heap[m]!) m = l;
      if (r < size && heap[r]! < heap[m]!) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  for (let j = 0; j < n; j++) {
    const x = logits[offset + j]!;
    if (size < k) {
      let i = size++;
      heap[i] = x;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (heap[p]! <= heap[i]!) break;
        [heap[p], heap[i]] = [heap[i]!, heap[p]!];
        i = p;
      }
    } else if (x > heap[0]!) {
      heap[0] = x;
      down(0);
    }
  }
  return heap[0]!;
}

/** nucleus()'s buckets: 16 per power of two of the weight, over 64 powers; the last holds everything smaller. */
const PER_OCTAVE = 16;
const BUCKETS = 64 * PER_OCTAVE;
/** Scratch: each candidate's band. */
let bands = new Int16Array(0);

/**
 * The ids of `ids` that top_p keeps, as transformers' TopPLogitsWarper: ranked from the least
 * likely, a token is removed while the probability mass up to and including it is at most
 * 1 - top_p; the most likely always stays.
 */
function nucleus(ids: Int32Array, w: Float64Array, topP: number, byLikelihood: (a: number, b: number) => number): Int32Array {
  // transformers sorts the whole vocabulary; only the tokens near the boundary need ranking.
  // One pass buckets the weights by narrow log-scale bands (every token of a band is likelier
  // than every token of the bands below); B is the band where the mass from the top reaches
  // top_p. Every band below B holds, with all below it, at most 1 - top_p: all removed. Every
  // band above B is kept: the removal from the bottom cannot get through band B. Only band B is
  // sorted, to find where in it the removal stops.
  const m = ids.length;
  if (bands.length < m) bands = new Int16Array(m);
  const mass = new Float64Array(BUCKETS);
  let total = 0;
  for (let i = 0; i < m; i++) {
    const x = w[ids[i]!]!;
    const b = x > 0 ? Math.min(BUCKETS - 1, Math.floor(-Math.log2(x) * PER_OCTAVE)) : BUCKETS - 1;
    bands[i] = b;
    total += x;
    mass[b] += x;
  }
  let B = 0;
  let above = 0; // the mass of the bands above B
  while (B < BUCKETS - 1 && above + mass[B]! < topP * total) above += mass[B++]!;
  const out = new Int32Array(m);
  let kept = 0;
  const band: number[] = [];
  for (let i = 0; i < m; i++) {
    if (bands[i]! < B) out[kept++] = ids[i]!;
    else if (bands[i] === B) band.push(ids[i]!);
  }
  band.sort(byLikelihood);
  let removed = total - above - mass[B]!;
  let keep = band.length;
  while (keep > 1 || (keep === 1 && kept > 0)) {
    const x = w[band[keep - 1]!]!;
    if ((removed + x) / total > 1 - topP) break;
    removed += x;
    keep--;
  }
  for (let i = 0; i < keep; i++) out[kept++] = band[i]!;
  return out.subarray(0, kept);
}

/**
 * Stop strings over a completion being written: ended() says whether the text of its ids
 * contains one. Only the last tokens are decoded (enough for the longest stop string where
 * each token writes at least one character), so a check costs the same at token 4,000 as at 4.
 */
export class StopStrings {
  private readonly window: number;

  constructor(readonly strings: readonly string[], private readonly decode: (ids: readonly number[]) => string) {
    if (strings.some((s) => s.length === 0)) throw new Error('StopStrings: a stop string is empty');
    this.window = Math.max(0, ...strings.map((s) => s.length)) + 2;
  }

  /** Whether the text of `ids` contains a stop string that its last token completed. */
  ended(ids: readonly number[]): boolean {
    if (this.strings.length === 0 || ids.length === 0) return false;
    const tail = this.decode(ids.slice(-this.window));
    return this.strings.some((s) => tail.includes(s));
  }
}
