// The decoding loop of the character-level transformer: one LmDecoder (lm/decoder.ts) steps
// the model, whether over the live weights in training or over a model exported to a file
// (onnx-token-model.ts). All rows advance in lockstep, one position per step (prompts are
// left-padded to one width), so generating n tokens costs n steps.
import type { LmDecoder } from '../../lm/decoder.js';
import { argMax, choose, draw, type SamplingControls, type StopStrings } from '../../lm/sampling.js';
import type { SampledTokenStatistics } from '../../lm/token-statistics.js';
import type { Rng } from '../../../shared/random.js';
import { EOS, PAD } from './char-tokenizer.js';

// Token choice is the language models' own (lm/sampling.ts); the dialogues pick their tokens here too.
export { argMax, draw };

export interface SampleOptions {
  /** Divides the logits before the softmax; ignored when greedy. */
  readonly temperature: number;
  /** Take the most likely token (ties: the lowest id) instead of drawing one. */
  readonly greedy: boolean;
  /** Draws the tokens (unused when greedy). */
  readonly rng?: Rng;
  /**
   * Where given, each written token's distribution statistics (lm/token-statistics.ts) go here,
   * at its slot (decode(): completion slot; dialogues: grid position). The tokens do not change.
   */
  readonly statistics?: SampledTokenStatistics;
  /** top_k, top_p, min_p, repetition_penalty (lm/sampling.ts; decode() only); their `stop` is read as `stopStrings`. */
  readonly controls?: SamplingControls;
  /** Ends a completion once its characters contain one: the slot after its last is left PAD, as a cut completion's (decode() only). */
  readonly stopStrings?: StopStrings;
}

/**
 * Feeds one token per row at position `t` (the keys and values of positions < t are cached by
 * the step) and returns the next-token logits [rows, V].
 */
export type DecodeStep = (tokens: Int32Array, t: number) => Float32Array | Promise<Float32Array>;

/**
 * A fresh decoding step over `rows` rows of `decoder`, with its own key/value cache. Every row
 * starts at position 0 and sees all its earlier tokens, left padding included: the character
 * layout trains the model on its padding as ordinary tokens (layout.ts). Tokens go in one
 * position at a time, the prompt's too, as training reads them.
 */
export function lockstepStep(decoder: LmDecoder, rows: number): DecodeStep {
  const state = decoder.begin(new Int32Array(rows));
  return (tokens: Int32Array, t: number) => {
    if (t !== state.length) throw new Error(`decoding step: position ${t} fed after ${state.length} positions (positions go in order from 0)`);
    return decoder.feed(state, tokens, 1);
  };
}

/**
 * `newTokens` completion slots for each of `rows` prompt rows of `width` token ids (row r at
 * r * width): characters, then EOS, then PAD. The last slot holds only an EOS: a completion
 * has at most newTokens - 1 characters, and one that reaches the last slot without ending is
 * cut there (PAD: not written, not trained on). Stops early once every row has ended.
 */
export async function decode(step: DecodeStep, vocab: number, prompts: Int32Array, rows: number, width: number, newTokens: number, options: SampleOptions): Promise<Int32Array> {
  if (!options.greedy && !options.rng) throw new Error('sampling needs an rng (or greedy: true)');
  const out = new Int32Array(rows * newTokens).fill(PAD);
  const done = new Uint8Array(rows);
  const tokens = new Int32Array(rows);
  let finished = 0;
  // Row r's ids so far (prompt, padding included, and completion), for repetition_penalty.
  const seen = (r: number, next: number) => [...prompts.subarray(r * width, (r + 1) * width), ...out.subarray(r * newTokens, r * newTokens + next)];
  const written = (r: number, next: number) => [...out.subarray(r * newTokens, r * newTokens + next + 1)];
  for (let t = 0; t < width + newTokens - 1 && finished < rows; t++) {
    const slot = t - width; // the completion slot fed at this position (< 0: a prompt position)
    for (let r = 0; r < rows; r++) tokens[r] = slot < 0 ? prompts[r * width + t]! : out[r * newTokens + slot]!;
    const logits = await step(tokens, t);
    if (t < width - 1) continue;
    const next = t - width + 1;
    for (let r = 0; r < rows; r++) {
      if (done[r]) continue;
      const token = choose(logits, r * vocab, vocab, options.greedy, options.temperature, options.rng, options.controls, () => seen(r, next));
      if (token === EOS || next === newTokens - 1) {
        done[r] = 1;
        finished++;
      }
      if (token === EOS || next < newTokens - 1) {
        out[r * newTokens + next] = token;
        options.statistics?.record(r, next, logits, r * vocab, vocab, options.temperature, token);
        if (token !== EOS && !done[r] && options.stopStrings?.ended(written(r, next))) {
          done[r] = 1;
          finished++;
        }
      }
    }
  }
  return out;
}
