// The generated text tasks of TextTask's `task:` (dsl/schema/envs.ts): addition(digits),
// reverse(len), sort(len). Each is a way to draw a prompt and the one right answer to it; the
// held-out split and the training sampler are shared (split.ts).
import { Rng } from '../../shared/random.js';
import { byHash, HELD_OUT_LIMIT, heldOutPrompts, inHeldOutBucket } from './split.js';
import type { TextExample, TextTask } from './task.js';

/** Prompt spaces up to this size are enumerated, so that tiny ones still get a held-out prompt. */
const ENUMERATION_LIMIT = 100_000;

/** The held-out set of a large space is drawn from this fixed seed: the same for every run. */
const HELD_OUT_SEED = 0x5eed;

/** What defines one generated task. */
interface Generator {
  readonly description: string;
  readonly alphabet: string;
  readonly maxPromptLength: number;
  readonly maxTargetLength: number;
  /** Number of distinct prompts (may exceed 2^53, then only compared with ENUMERATION_LIMIT). */
  readonly promptCount: number;
  /** The i-th prompt, for 0 <= i < promptCount <= ENUMERATION_LIMIT. */
  promptAt(i: number): string;
  /** A uniformly random prompt. */
  draw(rng: Rng): string;
  answer(prompt: string): string;
}

const DIGITS = '0123456789';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** `len` symbols of `symbols` written as a number in base symbols.length. */
function word(symbols: string, len: number, i: number): string {
  let out = '';
  for (let k = 0; k < len; k++, i = Math.floor(i / symbols.length)) out = symbols[i % symbols.length] + out;
  return out;
}

function drawWord(symbols: string, len: number, rng: Rng): string {
  let out = '';
  for (let k = 0; k < len; k++) out += symbols[rng.int(symbols.length)];
  return out;
}

/**
 * "12+34=" -> "46": two numbers of up to `digits` digits each (uniform in [0, 10^digits)).
 * With `pad`, every number is written at a fixed width with leading zeros, the operands at
 * `digits` and the sum at `digits + 1` ("05+37=" -> "042"): each digit then keeps one place in
 * every prompt and answer, the format that small transformers learn addition from most easily.
 */
export function addition(digits: number, { pad = false }: { pad?: boolean } = {}): TextTask {
  const base = 10 ** digits;
  const operand = (n: number) => (pad ? String(n).padStart(digits, '0') : String(n));
  const prompt = (a: number, b: number) => `${operand(a)}+${operand(b)}=`;
  return generatedTask({
    description: `addition(digits: ${digits}${pad ? ', pad: true' : ''})`,
    alphabet: '+0123456789=',
    maxPromptLength: 2 * digits + 2,
    maxTargetLength: digits + 1,
    promptCount: base * base,
    promptAt: (i) => prompt(Math.floor(i / base), i % base),
    draw: (rng) => prompt(rng.int(base), rng.int(base)),
    answer: (text) => {
      const [a, b] = text.slice(0, -1).split('+');
      const sum = String(Number(a) + Number(b));
      return pad ? sum.padStart(digits + 1, '0') : sum;
    },
  });
}

/** "abcde" -> "edcba": `len` random lowercase letters, reversed. */
export function reverse(len: number): TextTask {
  return generatedTask({
    description: `reverse(len: ${len})`,
    alphabet: LETTERS,
    maxPromptLength: len,
    maxTargetLength: len,
    promptCount: LETTERS.length ** len,
    promptAt: (i) => word(LETTERS, len, i),
    draw: (rng) => drawWord(LETTERS, len, rng),
    answer: (prompt) => [...prompt].reverse().join(''),
  });
}

/** "31415" -> "11345": `len` random digits, in ascending order. */
export function sort(len: number): TextTask {
  return generatedTask({
    description: `sort(len: ${len})`,
    alphabet: DIGITS,
    maxPromptLength: len,
    maxTargetLength: len,
    promptCount: DIGITS.length ** len,
    promptAt: (i) => word(DIGITS, len, i),
    draw: (rng) => drawWord(DIGITS, len, rng),
    answer: (prompt) => [...prompt].sort().join(''),
  });
}

function generatedTask(g: Generator): TextTask {
  // A small space is split exactly (split.ts guarantees both sides are non-empty); a large one
  // by the hash bucket alone, with held-out examples drawn from a fixed seed.
  const enumerated = g.promptCount <= ENUMERATION_LIMIT ? heldOutPrompts(Array.from({ length: g.promptCount }, (_, i) => g.promptAt(i))) : undefined;
  if (enumerated === null) throw new Error(`${g.description}: too few distinct prompts to hold some out`); // a bug: every generator has >= 10
  const isHeldOut = enumerated ? (prompt: string) => enumerated.has(prompt) : inHeldOutBucket;
  const example = (prompt: string): TextExample => ({ prompt, target: g.answer(prompt) });
  let heldOut: readonly TextExample[] | undefined;
  return {
    description: g.description,
    alphabet: g.alphabet,
    maxPromptLength: g.maxPromptLength,
    maxTargetLength: g.maxTargetLength,
    isHeldOut,
    sample(rng) {
      let prompt = g.draw(rng);
      while (isHeldOut(prompt)) prompt = g.draw(rng);
      return example(prompt);
    },
    heldOut() {
      heldOut ??= Object.freeze((enumerated ? [...enumerated].sort(byHash).slice(0, HELD_OUT_LIMIT) : drawHeldOut(g, isHeldOut)).map(example));
      return heldOut;
    },
  };
}

function drawHeldOut(g: Generator, isHeldOut: (prompt: string) => boolean): string[] {
  const rng = new Rng(HELD_OUT_SEED);
  const found = new Set<string>();
  while (found.size < HELD_OUT_LIMIT) {
    const prompt = g.draw(rng);
    if (isHeldOut(prompt)) found.add(prompt);
  }
  return [...found];
}
