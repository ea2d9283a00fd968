// Which prompts are held out for evaluation: decided by a fixed hash of the prompt text, so
// the split is the same for every seed, every run and every machine, and a prompt is never on
// both sides (repeated prompts in a dataset all land on the same side). Changing anything here
// changes which prompts earlier runs were evaluated on: don't.

/** Percent of prompts held out. */
export const HELD_OUT_PERCENT = 10;

/** Most held-out examples an evaluation uses (those with the lowest hashes). */
export const HELD_OUT_LIMIT = 256;

/** A fixed 32-bit hash of a prompt: FNV-1a over UTF-16 code units, then a final avalanche. */
export function promptHash(prompt: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < prompt.length; i++) {
    h ^= prompt.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // FNV-1a's low bits mix poorly for short strings ("1+2=" vs "1+3="); the bucket below reads them.
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Whether the hash rule alone holds `prompt` out. */
export function inHeldOutBucket(prompt: string): boolean {
  return promptHash(prompt) % 100 < HELD_OUT_PERCENT;
}

/** Orders prompts by hash (ties, which need equal hashes of different texts, by text). */
export function byHash(a: string, b: string): number {
  return promptHash(a) - promptHash(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * The held-out prompts among a finite set of distinct prompts: those in the hash bucket; where
 * none falls there (a set of a few dozen), the one with the lowest hash, so an evaluation
 * always has something to measure. Returns null when nothing would be left to train on.
 */
export function heldOutPrompts(prompts: Iterable<string>): Set<string> | null {
  const all = new Set(prompts);
  const heldOut = new Set([...all].filter(inHeldOutBucket));
  if (heldOut.size === 0 && all.size > 0) heldOut.add([...all].sort(byHash)[0]);
  return heldOut.size < all.size ? heldOut : null;
}
