// Seeded pseudo-random numbers for the runtime: environments, exploration,
// minibatch shuffling, weight initialisation.
//
// The generator is xoshiro128** (Blackman & Vigna): 128 bits of state, four
// 32-bit words, every operation a 32-bit integer op that V8 compiles to plain
// machine instructions (Math.imul, shifts). A 64-bit generator such as PCG64
// would need BigInt or hand-split multiplies in JavaScript and be several
// times slower. The sequence depends only on the seed, never on the machine,
// so a run is reproducible everywhere.
//
// Streams: a generator remembers the 64-bit key it was built from, and
// `fork(streamId)` hashes that key with the stream id into a new key. A fork
// therefore depends only on (seed, path of stream ids), not on how many
// numbers the parent has drawn, so adding a draw in one place never shifts
// the numbers used somewhere else (env copy 3 stays the same whether or not
// the learner drew from its own stream first).

const TWO_POW_32 = 4294967296;
const TWO_POW_NEG_53 = 1 / 9007199254740992;
const GOLDEN_GAMMA = 0x9e3779b9;

/** A stream id: a non-negative integer (env copy index) or a name (purpose). */
export type StreamId = number | string;

/** A good 32-bit integer hash (Wellons' "lowbias32"): every input bit affects every output bit. */
function hash32(value: number): number {
  let x = value | 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x | 0;
}

/** FNV-1a over UTF-16 code units, so that named streams ('reset', 'arm_means') map to 32 bits. */
function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return hash32(h);
}

function streamWord(streamId: StreamId): number {
  if (typeof streamId === 'string') return hashString(streamId);
  if (!Number.isSafeInteger(streamId) || streamId < 0) {
    throw new RangeError(`Rng.fork: stream id must be a non-negative integer or a string, got ${String(streamId)}`);
  }
  // Fold the high part in so that ids above 2^32 stay distinct from small ones.
  return hash32((streamId >>> 0) ^ hash32(Math.floor(streamId / TWO_POW_32) + GOLDEN_GAMMA));
}

/** Splits a safe integer (negative allowed) into its two's-complement low and high 32-bit words. */
function seedWords(seed: number): [number, number] {
  if (!Number.isSafeInteger(seed)) {
    throw new RangeError(`Rng: seed must be a safe integer, got ${String(seed)}`);
  }
  const lo = seed % TWO_POW_32;
  const hi = Math.floor(seed / TWO_POW_32);
  return [lo | 0, hi | 0];
}

export class Rng {
  // Int32Array rather than number fields: 32-bit values above 2^30 do not fit
  // V8's small integers and would be boxed as heap numbers on every update.
  private readonly s = new Int32Array(4);
  private readonly key = new Int32Array(2);
  private hasSpareNormal = false;
  private spareNormal = 0;

  /** A generator for `seed` (any safe integer). Equal seeds give equal sequences. */
  constructor(seed: number) {
    const [lo, hi] = seedWords(seed);
    this.setKey(hash32(lo ^ GOLDEN_GAMMA), hash32(hi + hash32(lo)));
  }

  /** A generator seeded from Math.random, for callers that asked for no seed (like Gymnasium's unseeded reset). */
  static fromEntropy(): Rng {
    const seed = Math.floor(Math.random() * TWO_POW_32) + Math.floor(Math.random() * 2097152) * TWO_POW_32;
    return new Rng(seed);
  }

  /** An independent generator derived from this one's seed and `streamId`; does not draw from this one. */
  fork(streamId: StreamId): Rng {
    const word = streamWord(streamId);
    const child = new Rng(0);
    const k0 = this.key[0];
    const k1 = this.key[1];
    child.setKey(hash32(k0 ^ hash32(word + GOLDEN_GAMMA)), hash32(k1 + hash32(word ^ 0x5bd1e995) + k0));
    return child;
  }

  private setKey(k0: number, k1: number): void {
    this.key[0] = k0;
    this.key[1] = k1;
    // Expand the 64-bit key to 128 bits of state with a counter-mode hash
    // (the role splitmix64 plays for the 64-bit xoshiro generators).
    const s = this.s;
    for (let j = 0; j < 4; j++) {
      s[j] = hash32(k0 + Math.imul(j + 1, GOLDEN_GAMMA)) ^ hash32(k1 ^ hash32(j + 0x632be5ab));
    }
    // The all-zero state is the one state xoshiro cannot leave.
    if ((s[0] | s[1] | s[2] | s[3]) === 0) s[0] = 1;
    this.hasSpareNormal = false;
  }

  /** Next raw 32-bit output, as an unsigned integer in [0, 2^32). */
  uint32(): number {
    const s = this.s;
    const s0 = s[0];
    const s1 = s[1];
    const s2 = s[2];
    const s3 = s[3];
    const m = Math.imul(s1, 5);
    const result = Math.imul((m << 7) | (m >>> 25), 9);
    const t = s1 << 9;
    const n2 = s2 ^ s0;
    const n3 = s3 ^ s1;
    s[1] = s1 ^ n2;
    s[0] = s0 ^ n3;
    s[2] = n2 ^ t;
    s[3] = (n3 << 11) | (n3 >>> 21);
    return result >>> 0;
  }

  /** Uniform double in [0, 1) with 53 random bits (two 32-bit draws). */
  uniform(): number {
    const a = this.uint32() >>> 5; // 27 bits
    const b = this.uint32() >>> 6; // 26 bits
    return (a * 67108864 + b) * TWO_POW_NEG_53;
  }

  /** Uniform double in [lo, hi); computed as lo + (hi - lo) * u, numpy's formula. */
  uniformRange(lo: number, hi: number): number {
    return lo + (hi - lo) * this.uniform();
  }

  /** Uniform integer in [0, n), without modulo bias; n must be an integer in [1, 2^32]. */
  int(n: number): number {
    if (!Number.isInteger(n) || n < 1 || n > TWO_POW_32) {
      throw new RangeError(`Rng.int: n must be an integer in [1, 2^32], got ${String(n)}`);
    }
    // Reject the top partial block of 2^32 so every residue is equally likely.
    const limit = TWO_POW_32 - (TWO_POW_32 % n);
    let x = this.uint32();
    while (x >= limit) x = this.uint32();
    return x % n;
  }

  /** Standard normal draw (Box-Muller; the second value of each pair is kept for the next call). */
  normal(): number {
    if (this.hasSpareNormal) {
      this.hasSpareNormal = false;
      return this.spareNormal;
    }
    const u1 = 1 - this.uniform(); // (0, 1]: log stays finite
    const u2 = this.uniform();
    const radius = Math.sqrt(-2 * Math.log(u1));
    const angle = 2 * Math.PI * u2;
    this.spareNormal = radius * Math.sin(angle);
    this.hasSpareNormal = true;
    return radius * Math.cos(angle);
  }

  /** Fisher-Yates shuffle in place. */
  shuffle<T extends { length: number; [index: number]: unknown }>(items: T): T {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = items[i];
      items[i] = items[j];
      items[j] = tmp;
    }
    return items;
  }

  /** Everything needed to continue this exact sequence later (checkpoints). */
  getState(): number[] {
    return [this.s[0], this.s[1], this.s[2], this.s[3], this.key[0], this.key[1], this.hasSpareNormal ? 1 : 0, this.spareNormal];
  }

  setState(state: readonly number[]): void {
    if (state.length !== 8 || !state.every(Number.isFinite)) {
      throw new RangeError(`Rng.setState: expected the 8 numbers getState() returns, got [${state.join(', ')}]`);
    }
    for (let j = 0; j < 4; j++) this.s[j] = state[j];
    this.key[0] = state[4];
    this.key[1] = state[5];
    this.hasSpareNormal = state[6] === 1;
    this.spareNormal = state[7];
  }
}
