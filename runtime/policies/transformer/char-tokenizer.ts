// The character-level tokenizer a text task owns (built by text/task.ts taskTokenizer), kept here
// beside the character transformer that reads and writes its ids: one token per character (Unicode code
// point, the unit of `max_tokens` and of the `length` verifier) of the task's alphabet, after
// three special tokens. The vocabulary is a pure function of the alphabet (sorted by code
// point), and its JSON form is recorded in plans and checkpoints, so a trained policy reads
// and writes exactly the ids it was trained on.

import { InputError } from '../../../shared/input-error.js';

/** Special tokens, always the first ids: padding, beginning and end of a sequence. */
export const SPECIAL_TOKENS = ['<pad>', '<bos>', '<eos>'] as const;
export const PAD = 0;
export const BOS = 1;
export const EOS = 2;

/** The tokenizer as checkpoints and plans store it. */
export interface TokenizerJSON {
  readonly kind: 'char';
  /** Every token's text by id: the special tokens, then one character each. */
  readonly vocabulary: readonly string[];
}

/** A text the tokenizer cannot handle, or a stored vocabulary that is not one; says where. */
export class TokenizerError extends InputError {
  override name = 'TokenizerError';
}

/** The distinct characters of `texts`, in code point order. */
export function alphabetOf(texts: Iterable<string>): string {
  const characters = new Set<string>();
  for (const text of texts) for (const character of text) characters.add(character);
  return [...characters].sort((a, b) => a.codePointAt(0)! - b.codePointAt(0)!).join('');
}

export class CharTokenizer {
  private readonly ids: ReadonlyMap<string, number>;

  private constructor(readonly vocabulary: readonly string[]) {
    this.ids = new Map(vocabulary.map((token, id) => [token, id]));
  }

  /** The tokenizer of an alphabet: every character of `alphabet` (repeats ignored), in code point order. */
  static fromAlphabet(alphabet: Iterable<string>): CharTokenizer {
    return new CharTokenizer(Object.freeze([...SPECIAL_TOKENS, ...alphabetOf(alphabet)]));
  }

  /** The tokenizer stored as `json` (from toJSON); `where` names the file or field in errors. */
  static fromJSON(json: unknown, where = 'tokenizer'): CharTokenizer {
    const fail = (what: string): never => {
      throw new TokenizerError(`${where}: ${what}; expected {"kind": "char", "vocabulary": ["<pad>", "<bos>", "<eos>", ...one character each]} as CharTokenizer.toJSON() writes it`);
    };
    const { kind, vocabulary } = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
    if (kind !== 'char') fail(`"kind" must be "char", got ${JSON.stringify(kind) ?? 'nothing'}`);
    if (!Array.isArray(vocabulary)) return fail('"vocabulary" must be a list');
    SPECIAL_TOKENS.forEach((token, id) => vocabulary[id] !== token && fail(`vocabulary entry ${id} must be "${token}", got ${JSON.stringify(vocabulary[id]) ?? 'nothing'}`));
    const seen = new Set<string>();
    vocabulary.forEach((token: unknown, id) => {
      if (id < SPECIAL_TOKENS.length) return;
      if (typeof token !== 'string' || [...token].length !== 1) fail(`vocabulary entry ${id} must be one character, got ${JSON.stringify(token)}`);
      if (seen.has(token as string)) fail(`vocabulary entry ${id} repeats ${JSON.stringify(token)}`);
      seen.add(token as string);
    });
    return new CharTokenizer(Object.freeze([...(vocabulary as string[])]));
  }

  toJSON(): TokenizerJSON {
    return { kind: 'char', vocabulary: this.vocabulary };
  }

  /** Number of token ids (the policy's input and output size). */
  get size(): number {
    return this.vocabulary.length;
  }

  /** The characters, without the special tokens. */
  get alphabet(): string {
    return this.vocabulary.slice(SPECIAL_TOKENS.length).join('');
  }

  /**
   * Ids of `text`, one per character, optionally framed by BOS/EOS. A character outside the
   * vocabulary is an error naming it, its position and `where` (e.g. "prompt 3").
   */
  encode(text: string, options: { bos?: boolean; eos?: boolean; where?: string } = {}): number[] {
    const out: number[] = options.bos ? [BOS] : [];
    let position = 0;
    for (const character of text) {
      position++;
      const id = this.ids.get(character);
      if (id === undefined || id < SPECIAL_TOKENS.length) {
        const code = `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
        throw new TokenizerError(
          `${options.where ?? 'text'}: character ${JSON.stringify(character)} (${code}) at position ${position} is not in the task's vocabulary ` +
            `(${this.size - SPECIAL_TOKENS.length} characters: ${JSON.stringify(this.alphabet)}); a policy trained on this task cannot read it`,
        );
      }
      out.push(id);
    }
    if (options.eos) out.push(EOS);
    return out;
  }

  /** The text of `ids`: up to the first EOS, without PAD or BOS. An id outside the vocabulary is an error. */
  decode(ids: ArrayLike<number>): string {
    let text = '';
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k];
      if (id === EOS) break;
      if (id === PAD || id === BOS) continue;
      const token = this.vocabulary[id];
      if (!Number.isInteger(id) || token === undefined) throw new TokenizerError(`token id ${id} at position ${k + 1} is outside the vocabulary (ids 0 to ${this.size - 1})`);
      text += token;
    }
    return text;
  }
}
