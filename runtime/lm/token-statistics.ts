// Statistics of the distribution each sampled token was drawn from, computed where it is drawn
// (lm/generate.ts, policies/transformer/sampling.ts, text/dialogue.ts) beside the token, never
// changing it: the draw reads the logits as before, and these read them again. The distribution
// is softmax(logits / temperature), the one the token came from (pi_old at the sampling
// temperature; greedy decoding records it at the temperature it is given). Per token:
//
//   entropy          H = -sum_v p_v log p_v
//   self-certainty   KL(U || p) = -log V - (1/V) sum_v log p_v    (INTUITOR, Zhao et al. 2025)
//   log-probability  log p_token
//
// V counts the tokens the model can write: a token whose logit is masked (lm/model.ts's MASKED,
// as the character transformer masks <pad> and <bos>; or -Infinity) has p = 0 and would make
// KL(U || p) infinite, so it is outside the vocabulary here.
//
// They feed the entropy-selected token weights (algorithms/text/token-weights.ts) and the
// intrinsic rewards `self_certainty`, `neg_entropy` and `logprob` (rewards/intrinsic-rewards.ts).
import { MASKED } from './model.js';

/** Logits at or below this are masked (MASKED is -1e9): tokens the model never writes. */
const WRITABLE = MASKED / 2;

/** The three statistics of one token's distribution. */
export interface TokenStatistics {
  readonly entropy: number;
  readonly selfCertainty: number;
  readonly logProb: number;
}

/**
 * The statistics of softmax(logits[offset..offset+n] / temperature) and of its token `token`,
 * in float64: two passes over the logits (their largest and mean; then the normaliser and the
 * expectation of the scaled logits).
 */
export function tokenStatistics(logits: Float32Array, offset: number, n: number, temperature: number, token: number): TokenStatistics {
  let most = -Infinity;
  let sumScaled = 0;
  let vocab = 0;
  for (let k = 0; k < n; k++) {
    if (!(logits[offset + k]! > WRITABLE)) continue;
    const x = logits[offset + k]! / temperature;
    if (x > most) most = x;
    sumScaled += x;
    vocab++;
  }
  // With z_v = x_v - most: log p_v = z_v - log S, S = sum exp(z); H = log S - sum_v p_v z_v.
  let sum = 0;
  let weighted = 0;
  for (let k = 0; k < n; k++) {
    if (!(logits[offset + k]! > WRITABLE)) continue; // p = 0, and 0 * -Infinity would be NaN
    const z = logits[offset + k]! / temperature - most;
    const e = Math.exp(z);
    sum += e;
    weighted += e * z;
  }
  const logSum = Math.log(sum);
  const meanLogP = sumScaled / vocab - most - logSum;
  return {
    entropy: logSum - weighted / sum,
    selfCertainty: -Math.log(vocab) - meanLogP,
    logProb: logits[offset + token]! / temperature - most - logSum,
  };
}

/**
 * Per-token statistics of a batch being sampled: `rows` rows of `slots` token slots each, as the
 * decoding loop that fills it numbers them (completion slots; a dialogue's grid positions). A
 * slot never recorded holds 0 and `recorded` 0.
 */
export class SampledTokenStatistics {
  readonly entropy: Float64Array;
  readonly selfCertainty: Float64Array;
  readonly logProb: Float64Array;
  readonly recorded: Uint8Array;

  constructor(readonly rows: number, readonly slots: number) {
    this.entropy = new Float64Array(rows * slots);
    this.selfCertainty = new Float64Array(rows * slots);
    this.logProb = new Float64Array(rows * slots);
    this.recorded = new Uint8Array(rows * slots);
  }

  /** Records token `token` of row `row`, slot `slot`, drawn from `logits[offset..offset+n]` at `temperature`. */
  record(row: number, slot: number, logits: Float32Array, offset: number, n: number, temperature: number, token: number): void {
    if (row < 0 || row >= this.rows || slot < 0 || slot >= this.slots) throw new RangeError(`token statistics: row ${row}, slot ${slot} outside ${this.rows} x ${this.slots}`);
    const s = tokenStatistics(logits, offset, n, temperature, token);
    const i = row * this.slots + slot;
    this.entropy[i] = s.entropy;
    this.selfCertainty[i] = s.selfCertainty;
    this.logProb[i] = s.logProb;
    this.recorded[i] = 1;
  }

  /** The same statistics with row 0 at row `first`: a batch decoded in chunks records each chunk's rows where they belong. */
  offset(first: number): SampledTokenStatistics {
    const view = Object.create(this) as SampledTokenStatistics;
    view.record = (row, slot, logits, offset, n, temperature, token) => this.record(row + first, slot, logits, offset, n, temperature, token);
    return view;
  }

  /** Means over the recorded tokens of row `row`'s slots [from, to) (0 where none was recorded). */
  means(row: number, from = 0, to = this.slots): TokenStatistics {
    let count = 0;
    let entropy = 0;
    let selfCertainty = 0;
    let logProb = 0;
    for (let i = row * this.slots + from; i < row * this.slots + to; i++) {
      if (!this.recorded[i]) continue;
      count++;
      entropy += this.entropy[i]!;
      selfCertainty += this.selfCertainty[i]!;
      logProb += this.logProb[i]!;
    }
    const d = Math.max(1, count);
    return { entropy: entropy / d, selfCertainty: selfCertainty / d, logProb: logProb / d };
  }

  /**
   * The entropies laid out as training rows [rows, width]: slot s of a row is the target of
   * position s + `shift` (completion slots: the prompt width - 1; a dialogue's grid: -1). A
   * position whose slot was not recorded holds 0 (it is not learned).
   */
  entropyAtPositions(width: number, shift: number): Float32Array {
    return this.atPositions(this.entropy, width, shift);
  }

  /** The sampled tokens' log-probabilities laid out as entropyAtPositions lays out the entropies: the sampler's view of each learned token (train/sampler_kl). */
  logProbAtPositions(width: number, shift: number): Float32Array {
    return this.atPositions(this.logProb, width, shift);
  }

  private atPositions(values: Float64Array, width: number, shift: number): Float32Array {
    const out = new Float32Array(this.rows * width);
    for (let r = 0; r < this.rows; r++) {
      for (let s = 0; s < this.slots; s++) {
        const i = r * this.slots + s;
        const position = s + shift;
        if (this.recorded[i] && position >= 0 && position < width) out[r * width + position] = values[i]!;
      }
    }
    return out;
  }
}
