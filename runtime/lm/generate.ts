// Completing prompts with a language model: every row advances in lockstep (left-padded, see
// rows.ts), each stops at one of the model's end-of-sequence ids or after `maxNewTokens`, and
// the log-probability of each token written is kept (under the model's own distribution, at
// temperature 1, as transformers' compute_transition_scores reports it unnormalised by
// sampling settings).
import type { Rng } from '../../shared/random.js';
import type { LmDecoder } from './decoder.js';
import { leftPad } from './rows.js';
import { argMax, draw } from './sampling.js';
import type { SampledTokenStatistics } from './token-statistics.js';

export interface GenerateOptions {
  readonly maxNewTokens: number;
  /** Take the most likely token (ties: the lowest id); otherwise draw at `temperature` with `rng`. */
  readonly greedy: boolean;
  readonly temperature?: number;
  readonly rng?: Rng;
  /** Ids that end a completion (kept as its last token). */
  readonly stopIds: readonly number[];
  /** Fed after a row has ended (its outputs are ignored); any id of the vocabulary. */
  readonly padId: number;
  /** Where given, each sampled token's distribution statistics go here: row, then the token's index in its completion (lm/token-statistics.ts). */
  readonly statistics?: SampledTokenStatistics;
}

export interface Completion {
  readonly ids: number[];
  /** log p(token | everything before) for each id of `ids`, at temperature 1. */
  readonly logProbs: number[];
  /** 'stop': ended with a stop id; 'length': cut at maxNewTokens. */
  readonly finish: 'stop' | 'length';
}

export async function generate(decoder: LmDecoder, prompts: readonly (readonly number[])[], options: GenerateOptions): Promise<Completion[]> {
  if (!options.greedy && !options.rng) throw new Error('sampling needs an rng (or greedy: true)');
  const rows = prompts.length;
  const V = decoder.config.vocab;
  const stops = new Set(options.stopIds);
  const padded = leftPad(prompts, options.padId);
  let { state, logits } = await decoder.prefill(padded);
  const out: { ids: number[]; logProbs: number[]; finish: 'stop' | 'length' }[] = prompts.map(() => ({ ids: [], logProbs: [], finish: 'length' }));
  const done = new Uint8Array(rows);
  let open = rows;
  const next = new Int32Array(rows);
  for (let step = 0; step < options.maxNewTokens && open > 0; step++) {
    for (let r = 0; r < rows; r++) {
      if (done[r]) {
        next[r] = options.padId;
        continue;
      }
      const token = options.greedy ? argMax(logits, r * V, V) : draw(logits, r * V, V, options.temperature ?? 1, options.rng!);
      out[r]!.ids.push(token);
      out[r]!.logProbs.push(logSoftmaxAt(logits, r * V, V, token));
      options.statistics?.record(r, out[r]!.ids.length - 1, logits, r * V, V, options.temperature ?? 1, token);
      next[r] = token;
      if (stops.has(token)) {
        out[r]!.finish = 'stop';
        done[r] = 1;
        open--;
      }
    }
    if (open > 0 && step + 1 < options.maxNewTokens) logits = await decoder.feed(state, next, 1);
  }
  return out;
}

/** log softmax(logits[offset..offset+n])[k], in float64. */
export function logSoftmaxAt(logits: Float32Array, offset: number, n: number, k: number): number {
  let most = -Infinity;
  for (let i = 0; i < n; i++) most = Math.max(most, logits[offset + i]!);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.exp(logits[offset + i]! - most);
  return logits[offset + k]! - most - Math.log(sum);
}
