// The tokenizer of a Hugging Face model folder: tokenizer.json (the `tokenizers` library's file),
// tokenizer_config.json (special tokens, decode settings) and generation_config.json (the ids
// that end a completion), run by @huggingface/tokenizers, the pure-JS tokenizers that
// transformers.js itself uses (README.md beside this file says why that package). Where the
// library's defaults differ from Python transformers', this module passes transformers' values.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Tokenizer as LibraryTokenizerClass } from '@huggingface/tokenizers';
import { readInputJson } from '../../shared/input-files.js';
import { checkTokenizerConfig, describeJson, GENERATION_CONFIG_MAX, isObject, readTokenizerConfig, readTokenizerJson, specialTokenText, TokenizerFileError, tokenizerJsonSize, type Json } from '../../hf/tokenizer-file.js';

export { readTokenizerConfig, specialTokenText, TokenizerFileError } from '../../hf/tokenizer-file.js';

export interface Tokenizer {
  /** ids 0..size-1 (including added/special tokens) */
  readonly size: number;
  /**
   * Ids of text; special-token strings in the text (e.g. "<|im_start|>") become their ids, as
   * transformers does. No BOS/EOS added unless addSpecialTokens (then as the tokenizer's
   * post-processor says).
   */
  encode(text: string, options?: { addSpecialTokens?: boolean }): number[];
  /**
   * Text of ids; invalid UTF-8 from byte-level tokens becomes U+FFFD as transformers' decode does.
   * Ids that are no token (outside 0..size-1) are skipped, as transformers' decode skips them.
   */
  decode(ids: ArrayLike<number>, options?: { skipSpecialTokens?: boolean }): string;
  /** The id of a token string, if any. */
  tokenId(token: string): number | undefined;
  /**
   * Ids that end a completion: from generation_config.json eos_token_id (a number or a list)
   * where present, else tokenizer_config.json's eos_token. Ids of generation_config that are no
   * token of this tokenizer are left out (a config's default carried into a model with another
   * vocabulary: GPT-2's 50256 in a 400-token model); where none is left, eos_token is used.
   */
  readonly eosIds: readonly number[];
  readonly padId: number | undefined;
  readonly bosId: number | undefined;
  /** Ids of special (added, special: true) tokens. */
  readonly specialIds: ReadonlySet<number>;
}

export const MODEL_FOLDER_FILES =
  'tokenizer.json and tokenizer_config.json (and generation_config.json and chat_template.jinja where the model has them), as the model\'s Hugging Face repository holds them';

/** The part of @huggingface/tokenizers' Tokenizer this module uses (its published types are partly unresolvable). */
interface LibraryTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): { ids: number[] };
  decode(ids: number[], options: { skip_special_tokens: boolean; clean_up_tokenization_spaces: boolean }): string;
  token_to_id(token: string): number | undefined;
  id_to_token(id: number): string | undefined;
}

/** Loads tokenizer.json + tokenizer_config.json (+ generation_config.json where present) from a model folder. */
export function loadModelTokenizer(modelDir: string): Tokenizer {
  if (!fs.existsSync(modelDir)) throw new TokenizerFileError(`the model folder ${modelDir} does not exist; a model folder holds ${MODEL_FOLDER_FILES}`);
  const tokenizerFile = path.join(modelDir, 'tokenizer.json');
  if (!fs.existsSync(tokenizerFile)) {
    throw new TokenizerFileError(`the model folder ${modelDir} has no tokenizer.json; rlx reads a model's tokenizer from ${MODEL_FOLDER_FILES}`);
  }
  const tokenizerJson = readTokenizerJson(modelDir);
  const config = readTokenizerConfig(modelDir);
  checkTokenizerConfig(config, modelDir);
  let library: LibraryTokenizer;
  try {
    library = new LibraryTokenizerClass(tokenizerJson, config) as LibraryTokenizer;
  } catch (err) {
    throw new TokenizerFileError(`the tokenizer in ${tokenizerFile} uses a part that @huggingface/tokenizers cannot read: ${(err as Error).message}`);
  }
  const generationConfig = readGenerationConfig(modelDir);
  return new ModelTokenizer(library, tokenizerJson, config, generationConfig, modelDir);
}

function readGenerationConfig(modelDir: string): Json {
  const file = path.join(modelDir, 'generation_config.json');
  if (!fs.existsSync(file)) return {};
  const config = readInputJson(file, { what: 'generation settings', maxBytes: GENERATION_CONFIG_MAX });
  if (!isObject(config)) throw new TokenizerFileError(`${file} holds ${describeJson(config)}, not an object of generation settings`);
  return config;
}

class ModelTokenizer implements Tokenizer {
  readonly size: number;
  readonly eosIds: readonly number[];
  readonly padId: number | undefined;
  readonly bosId: number | undefined;
  readonly specialIds: ReadonlySet<number>;
  /** transformers' default is false (the library's is true, which turns " ," into ","). */
  private readonly cleanUpSpaces: boolean;

  constructor(
    private readonly library: LibraryTokenizer,
    tokenizerJson: Json & { model: Json },
    config: Json,
    generationConfig: Json,
    modelDir: string,
  ) {
    const addedTokens = (tokenizerJson.added_tokens ?? []) as { id?: unknown; special?: unknown }[];
    this.size = tokenizerJsonSize(tokenizerJson);
    this.specialIds = new Set(addedTokens.filter((t) => t.special === true && Number.isInteger(t.id)).map((t) => t.id as number));
    this.cleanUpSpaces = config.clean_up_tokenization_spaces === true;
    const idOfConfigToken = (key: string) => {
      const text = specialTokenText(config[key]);
      return text === undefined ? undefined : this.tokenId(text);
    };
    this.padId = idOfConfigToken('pad_token');
    this.bosId = idOfConfigToken('bos_token');
    const named = eosIdsOfGenerationConfig(generationConfig, path.join(modelDir, 'generation_config.json'));
    const fromGeneration = named.filter((id) => id < this.size);
    const eosText = specialTokenText(config.eos_token);
    const fromTokenizer = idOfConfigToken('eos_token');
    // An end token that names nothing would leave generation without a stop: refused, naming it.
    if (eosText !== undefined && fromTokenizer === undefined) {
      throw new TokenizerFileError(`${path.join(modelDir, 'tokenizer_config.json')}: eos_token ${JSON.stringify(eosText)} is no token of tokenizer.json; name the model's end-of-text token (one of its added_tokens)`);
    }
    if (named.length > 0 && fromGeneration.length === 0 && fromTokenizer === undefined) {
      throw new TokenizerFileError(`${path.join(modelDir, 'generation_config.json')}: eos_token_id ${JSON.stringify(generationConfig.eos_token_id)} lies beyond the tokenizer's ${this.size} tokens, and tokenizer_config.json names no eos_token: generation would never stop; name an id below ${this.size}`);
    }
    this.eosIds = fromGeneration.length > 0 ? fromGeneration : fromTokenizer === undefined ? [] : [fromTokenizer];
  }

  encode(text: string, options: { addSpecialTokens?: boolean } = {}): number[] {
    return this.library.encode(text, { add_special_tokens: options.addSpecialTokens ?? false }).ids;
  }

  decode(ids: ArrayLike<number>, options: { skipSpecialTokens?: boolean } = {}): string {
    const skip = options.skipSpecialTokens ?? false;
    const kept: number[] = [];
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (!Number.isInteger(id) || id < 0 || id >= this.size || this.library.id_to_token(id) === undefined) continue;
      if (skip && this.specialIds.has(id)) continue;
      kept.push(id);
    }
    // The library refuses an empty list; transformers decodes it to "".
    if (kept.length === 0) return '';
    return this.library.decode(kept, { skip_special_tokens: false, clean_up_tokenization_spaces: this.cleanUpSpaces });
  }

  tokenId(token: string): number | undefined {
    return this.library.token_to_id(token);
  }
}

/** Ids 0..n-1 of the model's own vocabulary (added tokens may lie beyond). */
function eosIdsOfGenerationConfig(config: Json, file: string): number[] {
  const value = config.eos_token_id;
  if (value === undefined || value === null) return [];
  const ids = Array.isArray(value) ? value : [value];
  for (const id of ids) {
    if (!Number.isInteger(id) || (id as number) < 0) {
      throw new TokenizerFileError(`${file}: eos_token_id is ${JSON.stringify(value)}; it must be a token id (a whole number >= 0) or a list of them`);
    }
  }
  return [...new Set(ids as number[])];
}
