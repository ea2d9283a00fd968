// What a text task gives the trainer, whatever makes its examples (a generator or a file):
// training examples on demand, a fixed held-out set, and the alphabet its tokenizer is built from.
import type { DatasetMessage } from '../../dsl/schema/dataset.js';
import type { Rng } from '../../shared/random.js';
import { CharTokenizer } from '../policies/transformer/char-tokenizer.js';

/** One example: the policy reads `prompt` and should write `target`. */
export interface TextExample {
  readonly prompt: string;
  readonly target: string;
  /** A dataset's conversational prompt (TRL's format); `prompt` is then its contents, one message a line. */
  readonly messages?: readonly DatasetMessage[];
  /** A dataset's row: every field of its line (`row.NAME` in reward terms, Python reward functions' columns). */
  readonly row?: Readonly<Record<string, unknown>>;
  /** The row's line in the dataset file. */
  readonly line?: number;
}

export interface TextTask {
  /** The task as the plan writes it: `addition(digits: 2)`, `dataset("./sums.jsonl")`. */
  readonly description: string;
  /** Every character prompts and targets use, once each, in code point order. */
  readonly alphabet: string;
  /** Longest prompt and longest target, in characters (code points). */
  readonly maxPromptLength: number;
  readonly maxTargetLength: number;
  /** A training example drawn with `rng`; never one with a held-out prompt. */
  sample(rng: Rng): TextExample;
  /** Whether `prompt` is held out for evaluation (and so never sampled for training). */
  isHeldOut(prompt: string): boolean;
  /** The evaluation examples: the same for every seed and run (at most HELD_OUT_LIMIT). */
  heldOut(): readonly TextExample[];
  /** A task read from a file (`dataset(...)`): its rows have fields (`row.NAME`); the file as the spec writes it, for errors naming a row. */
  readonly rows?: { readonly file: string };
  /** A task read from a file (`dataset(...)`): the file, resolved. */
  readonly source?: { readonly file: string };
  /** Every target of a task read from a file, longest first (a pretrained policy counts their tokens: TextEnvironment.checkTargetTokens). */
  readonly targets?: () => readonly string[];
  /** What the user should hear once before training (a dataset with bytes that are not UTF-8). */
  readonly warnings?: readonly string[];
}

/** The task's tokenizer: one token per character of its alphabet. */
export function taskTokenizer(task: TextTask): CharTokenizer {
  return CharTokenizer.fromAlphabet(task.alphabet);
}
