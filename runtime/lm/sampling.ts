// Choosing a token from next-token logits, for every language model rlx decodes (generate.ts,
// and the character-level policy's loop in policies/transformer/sampling.ts).
import type { Rng } from '../../shared/random.js';

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
