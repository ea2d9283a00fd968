// How prompts and completions sit in the transformer's token rows, for training and sampling
// alike (both must agree, or the model would be trained on one layout and asked another):
//
//   [PAD ... PAD BOS p1 .. pk][c1 .. cj EOS PAD ...]
//    <---- prompt width W ---><-- completion slots N -->
//
// Prompts are left-padded to one width, so every row's completion starts at the same position
// and a batch is sampled in lockstep with one key/value cache. The model reads the padding as
// ordinary tokens (no attention mask): it is trained on the same layout it samples from, and
// the pads carry no information. N is the longest completion plus one slot for its EOS.
import { EOS, PAD, type CharTokenizer } from './char-tokenizer.js';
import type { SampleOptions } from './sampling.js';

/** The widths of a task's token rows. */
export interface TextLayout {
  /** W: BOS plus the longest prompt. */
  readonly promptWidth: number;
  /** N: the longest completion (characters) plus its EOS. */
  readonly completionSlots: number;
}

export function textLayout(maxPromptLength: number, maxCompletionLength: number): TextLayout {
  return { promptWidth: maxPromptLength + 1, completionSlots: maxCompletionLength + 1 };
}

/** Tokens the model reads in training: all but the last slot (nothing follows it). */
export const sequenceWidth = (layout: TextLayout): number => layout.promptWidth + layout.completionSlots - 1;

/** Whether the layout fits a policy's context; the message says what to change. */
export function checkFits(layout: TextLayout, context: number, where: string): void {
  const needed = layout.promptWidth + layout.completionSlots - 1;
  if (needed > context) {
    throw new Error(
      `${where}: prompts of up to ${layout.promptWidth - 1} characters (plus <bos>) and completions of up to ${layout.completionSlots - 1} ` +
        `(plus <eos>) need a context of ${needed} tokens, but the policy's context is ${context}; raise \`context\` to at least ${needed}`,
    );
  }
}

/** Prompt rows [rows, W], left-padded: PAD..., BOS, the prompt's characters. */
export function encodePrompts(tokenizer: CharTokenizer, prompts: readonly string[], layout: TextLayout): Int32Array {
  const W = layout.promptWidth;
  const out = new Int32Array(prompts.length * W).fill(PAD);
  prompts.forEach((prompt, r) => {
    const ids = tokenizer.encode(prompt, { bos: true, where: `prompt ${JSON.stringify(prompt)}` });
    if (ids.length > W) throw new Error(`prompt ${JSON.stringify(prompt)} has ${ids.length - 1} characters; the layout holds ${W - 1}`);
    out.set(ids, (r + 1) * W - ids.length);
  });
  return out;
}

/** Completion slots [N] of a text: its characters, EOS, then PAD. */
export function encodeCompletion(tokenizer: CharTokenizer, text: string, layout: TextLayout, where: string): Int32Array {
  const ids = tokenizer.encode(text, { eos: true, where });
  if (ids.length > layout.completionSlots) throw new Error(`${where}: ${ids.length - 1} characters, longer than the ${layout.completionSlots - 1} a completion may have`);
  const out = new Int32Array(layout.completionSlots).fill(PAD);
  out.set(ids);
  return out;
}

/**
 * The number of tokens of a completion the model wrote (or should write): up to and including
 * its EOS; all N slots when it has none. Slots after it are PAD and not trained on.
 */
export function completionLength(slots: Int32Array, offset: number, N: number): number {
  for (let k = 0; k < N; k++) {
    if (slots[offset + k] === EOS) return k + 1;
    if (slots[offset + k] === PAD) return k;
  }
  return N;
}

/**
 * Training rows of a batch, from prompt rows [rows, W] and completion slots [rows, N]:
 * `tokens` [rows, W + N - 1] (what the model reads), `targets` (each position's next token)
 * and `mask` (1 where that next token is a completion token to learn: the completion up to
 * and including its EOS).
 */
export function trainingRows(prompts: Int32Array, completions: Int32Array, rows: number, layout: TextLayout): { tokens: BigInt64Array; targets: BigInt64Array; mask: Float32Array; tokenCount: number } {
  const { promptWidth: W, completionSlots: N } = layout;
  const T = W + N - 1;
  const tokens = new BigInt64Array(rows * T);
  const targets = new BigInt64Array(rows * T);
  const mask = new Float32Array(rows * T);
  let tokenCount = 0;
  for (let r = 0; r < rows; r++) {
    const at = (i: number) => (i < W ? prompts[r * W + i]! : completions[r * N + i - W]!);
    for (let i = 0; i < T; i++) {
      tokens[r * T + i] = BigInt(at(i));
      targets[r * T + i] = BigInt(at(i + 1));
    }
    const length = completionLength(completions, r * N, N);
    for (let k = 0; k < length; k++) mask[r * T + W - 1 + k] = 1;
    tokenCount += length;
  }
  return { tokens, targets, mask, tokenCount };
}

/** Something that writes completion slots for prompt rows (a TokenModel). */
export interface Generator {
  generate(prompts: Int32Array, rows: number, width: number, newTokens: number, options: SampleOptions): Promise<Int32Array>;
}

/** The texts a model writes for `prompts`: decoded up to EOS. */
export async function completeTexts(model: Generator, tokenizer: CharTokenizer, prompts: readonly string[], layout: TextLayout, options: SampleOptions): Promise<string[]> {
  const slots = await model.generate(encodePrompts(tokenizer, prompts, layout), prompts.length, layout.promptWidth, layout.completionSlots, options);
  const N = layout.completionSlots;
  return prompts.map((_, r) => tokenizer.decode(slots.subarray(r * N, (r + 1) * N)));
}

