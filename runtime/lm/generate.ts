// Completing prompts with a language model: every row advances in lockstep (left-padded, see
// rows.ts), each stops at one of the model's end-of-sequence ids or after `maxNewTokens`, and
// the log-probability of each token written is kept (under the model's own distribution, at
// temperature 1, as transformers' compute_transition_scores reports it unnormalised by
// sampling settings).
import type { Rng } from '../../shared/random.js';
import { CHUNK_STEPS, CHUNKED_DECODE_MIN_ROWS, ChunkedDecoder, type ChunkChoice, type ChunkMode } from './chunked-decoder.js';
import type { LmDecoder } from './decoder.js';
import { leftPad } from './rows.js';
import { choose, narrowsDistribution, type SamplingControls, type StopStrings } from './sampling.js';
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
  /** top_k, top_p, min_p, repetition_penalty (sampling.ts); their `stop` is read as `stopStrings`. */
  readonly controls?: SamplingControls;
  /** Ends a completion once its text contains one (its last token, which completed it, kept). */
  readonly stopStrings?: StopStrings;
}

export interface Completion {
  readonly ids: number[];
  /** log p(token | everything before) for each id of `ids`, at temperature 1. */
  readonly logProbs: number[];
  /** 'stop': ended with a stop id or a stop string; 'length': cut at maxNewTokens. */
  readonly finish: 'stop' | 'length';
}

/**
 * Completions of `prompts`. On a GPU provider, from CHUNKED_DECODE_MIN_ROWS rows, K tokens per
 * session run (chunked-decoder.ts: the cache crosses to the device once per chunk, not per
 * token); there greedy gives the same tokens as the one-step loop, and sampling draws from the
 * same distribution with other noise. Token statistics need every step's logits: they keep
 * the one-step loop. On the CPU every run is the one-step loop. So do sampling controls that
 * change the distribution (top_k, top_p, min_p, repetition_penalty): the chunked graph draws
 * from softmax(logits / temperature) alone, and they run on the host over each step's logits.
 */
export async function generate(decoder: LmDecoder, prompts: readonly (readonly number[])[], options: GenerateOptions): Promise<Completion[]> {
  if (!options.greedy && !options.rng) throw new Error('sampling needs an rng (or greedy: true)');
  if (decoder.onDevice && prompts.length >= CHUNKED_DECODE_MIN_ROWS && !options.statistics && !narrowsDistribution(options.controls)) return generateInChunks(decoder, prompts, options);
  const rows = prompts.length;
  const V = decoder.config.vocab;
  const stops = new Set(options.stopIds);
  const padded = leftPad(prompts, options.padId);
  let { state, logits } = await decoder.prefill(padded);
  const out: { ids: number[]; logProbs: number[]; finish: 'stop' | 'length' }[] = prompts.map(() => ({ ids: [], logProbs: [], finish: 'length' }));
  const done = new Uint8Array(rows);
  let open = rows;
  const next = new Int32Array(rows);
  // Each row's ids so far, for repetition_penalty (transformers counts the prompt's too).
  const seen = options.controls?.repetitionPenalty !== undefined ? prompts.map((p) => new Set(p)) : undefined;
  for (let step = 0; step < options.maxNewTokens && open > 0; step++) {
    for (let r = 0; r < rows; r++) {
      if (done[r]) {
        next[r] = options.padId;
        continue;
      }
      const token = choose(logits, r * V, V, options.greedy, options.temperature ?? 1, options.rng, options.controls, () => seen![r]!);
      seen?.[r]!.add(token);
      out[r]!.ids.push(token);
      out[r]!.logProbs.push(logSoftmaxAt(logits, r * V, V, token));
      options.statistics?.record(r, out[r]!.ids.length - 1, logits, r * V, V, options.temperature ?? 1, token);
      next[r] = token;
      if (stops.has(token) || options.stopStrings?.ended(out[r]!.ids)) {
        out[r]!.finish = 'stop';
        done[r] = 1;
        open--;
      }
    }
    if (open > 0 && step + 1 < options.maxNewTokens) logits = await decoder.feed(state, next, 1);
  }
  return out;
}

/** The chunked decoder of `decoder` over `steps` steps in `mode`, built at first use and released with it. */
export function chunkedDecoder(decoder: LmDecoder, mode: ChunkMode, steps = CHUNK_STEPS): Promise<ChunkedDecoder> {
  return decoder.companion(`chunked:${mode}:${steps}`, (options) => ChunkedDecoder.create(decoder.config, options, steps, mode));
}

/**
 * generate() with K tokens per session run, on whatever provider `decoder` runs (generate()
 * picks it on a GPU; tests compare it with the one-step loop on the CPU). The log-probs are the
 * graph's float32 ones. Sampling takes K x rows uniforms of `rng` per chunk, ended rows included.
 * Stop strings are checked on the host after each chunk, token by token; controls that change
 * the distribution cannot run in the graph and are refused here (generate() keeps them on the
 * one-step loop).
 */
export async function generateInChunks(decoder: LmDecoder, prompts: readonly (readonly number[])[], options: GenerateOptions, steps = CHUNK_STEPS): Promise<Completion[]> {
  if (!options.greedy && !options.rng) throw new Error('sampling needs an rng (or greedy: true)');
  if (narrowsDistribution(options.controls)) throw new Error('generateInChunks: top_k, top_p, min_p and repetition_penalty run in the one-step loop (generate())');
  const rows = prompts.length;
  const stops = new Set(options.stopIds);
  const padded = leftPad(prompts, options.padId);
  const chunked = await chunkedDecoder(decoder, options.greedy ? 'greedy' : 'sample', steps);
  const choice: ChunkChoice = options.greedy ? { mode: 'greedy' } : { mode: 'sample', temperature: options.temperature ?? 1, uniform: () => options.rng!.uniform() };
  const state = chunked.begin(padded.starts);
  const out: { ids: number[]; logProbs: number[]; finish: 'stop' | 'length' }[] = prompts.map(() => ({ ids: [], logProbs: [], finish: 'length' }));
  const done = new Uint8Array(rows);
  let open = rows;
  let input = padded.ids;
  let width = padded.width;
  for (let made = 0; made < options.maxNewTokens && open > 0; made += steps) {
    const chunk = await chunked.feed(state, input, width, choice);
    for (let k = 0; k < steps && made + k < options.maxNewTokens; k++) {
      for (let r = 0; r < rows; r++) {
        if (done[r]) continue;
        const token = chunk.tokens[r * steps + k]!;
        out[r]!.ids.push(token);
        out[r]!.logProbs.push(chunk.logProbs[r * steps + k]!);
        if (stops.has(token) || options.stopStrings?.ended(out[r]!.ids)) {
          out[r]!.finish = 'stop';
          done[r] = 1;
          open--;
        }
      }
    }
    input = Int32Array.from({ length: rows }, (_, r) => chunk.tokens[r * steps + steps - 1]!);
    width = 1;
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
