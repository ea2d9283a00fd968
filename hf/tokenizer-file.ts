// The tokenizer files of a model folder read as data and checked, without the tokenizer library:
// tokenizer.json's kind and the parts @huggingface/tokenizers would misread, and
// tokenizer_config.json. tokenizer.ts runs the tokenizer; the checker (dsl/) refuses a folder
// whose tokenizer rlx would refuse with these same functions, as the user types.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError } from '../shared/input-error.js';
import { readInputJson } from '../shared/input-files.js';

/** A model folder whose tokenizer files rlx cannot use; the message names the file and what to do. */
export class TokenizerFileError extends InputError {
  override name = 'TokenizerFileError';
}

const MiB = 2 ** 20;
/** Real tokenizer.json files run to about 35 MiB (Gemma's); twice that leaves room. */
const TOKENIZER_JSON_MAX = 64 * MiB;
/** tokenizer_config.json may list every added token (added_tokens_decoder) and a long chat template. */
const CONFIG_JSON_MAX = 16 * MiB;
export const GENERATION_CONFIG_MAX = 1 * MiB;

/**
 * The tokenizer model rlx reads: BPE, which every family it builds uses (Llama, Qwen, GPT-2).
 * @huggingface/tokenizers also runs WordPiece and Unigram, but such a tokenizer.json belongs to
 * another kind of model (BERT, T5) and its ids would mean nothing to these weights; for other
 * types the library guesses a "Legacy" model.
 */
const READABLE_MODEL_TYPES = ['BPE'];
/** Split behaviours the library runs as the Rust library does; it runs the others as "Isolated". */
const READABLE_SPLIT_BEHAVIORS = ['Isolated', 'Removed'];

export type Json = Record<string, unknown>;
export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A special token's text in tokenizer_config.json: a string, or (older files) an AddedToken
 * object `{ "__type": "AddedToken", "content": "<s>", ... }`; undefined for null or absent.
 */
export function specialTokenText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (isObject(value) && typeof value.content === 'string') return value.content;
  return undefined;
}

/** tokenizer_config.json of `modelDir`, or {} where the folder has none (transformers does without it too). */
export function readTokenizerConfig(modelDir: string): Json {
  const file = path.join(modelDir, 'tokenizer_config.json');
  if (!fs.existsSync(file)) return {};
  const config = readInputJson(file, { what: 'tokenizer settings', maxBytes: CONFIG_JSON_MAX });
  if (!isObject(config)) throw new TokenizerFileError(`${file} holds ${describeJson(config)}, not an object of tokenizer settings`);
  return config;
}

/** Refuses, naming what it found, a tokenizer.json the library would misread or guess at. */
export function checkTokenizerJson(json: unknown, file: string): asserts json is Json & { model: Json } {
  if (!isObject(json) || !isObject(json.model)) {
    throw new TokenizerFileError(
      `${file} is not a Hugging Face tokenizer.json: it has no "model" section (${isObject(json) ? `its keys: ${Object.keys(json).slice(0, 8).join(', ') || 'none'}` : `it holds ${describeJson(json)}`}); save the tokenizer with transformers' save_pretrained or copy tokenizer.json from the model's repository`,
    );
  }
  const type = json.model.type;
  if (typeof type !== 'string' || !READABLE_MODEL_TYPES.includes(type)) {
    const found = typeof type === 'string' ? `of type "${type}"` : 'of no stated type (model.type is missing)';
    throw new TokenizerFileError(
      `the tokenizer in ${file} is ${found}; rlx reads BPE tokenizers, those of the models it builds (Llama, Qwen, GPT-2): ` +
        `this tokenizer.json belongs to another kind of model; copy tokenizer.json from the model's own repository`,
    );
  }
  if (json.added_tokens !== undefined && !Array.isArray(json.added_tokens)) {
    throw new TokenizerFileError(`${file}: added_tokens is ${describeJson(json.added_tokens)}, not a list of tokens`);
  }
  for (const split of splitsOf(json.pre_tokenizer)) {
    const behavior = split.behavior ?? 'Isolated';
    if (typeof behavior === 'string' && !READABLE_SPLIT_BEHAVIORS.includes(behavior)) {
      throw new TokenizerFileError(
        `the tokenizer in ${file} splits text with behavior "${behavior}" (a ${String(split.type)} pre-tokenizer), which @huggingface/tokenizers runs as "Isolated" and so tokenizes differently from transformers; rlx reads splits that are ${READABLE_SPLIT_BEHAVIORS.join(' or ')}`,
      );
    }
  }
}

/** The Split and Punctuation pre-tokenizers in a pre_tokenizer tree (Sequence nests them). */
function splitsOf(node: unknown): Json[] {
  if (!isObject(node)) return [];
  if (node.type === 'Sequence' && Array.isArray(node.pretokenizers)) return node.pretokenizers.flatMap(splitsOf);
  return node.type === 'Split' || node.type === 'Punctuation' ? [node] : [];
}

export function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}


/** tokenizer.json of `modelDir`, read and checked (checkTokenizerJson). */
export function readTokenizerJson(modelDir: string): Json & { model: Json } {
  const file = path.join(modelDir, 'tokenizer.json');
  const json = readInputJson(file, { what: 'tokenizer', maxBytes: TOKENIZER_JSON_MAX });
  checkTokenizerJson(json, file);
  return json;
}

/** Ids 0..n-1 that tokenizer.json gives a token: the model's vocabulary, then its added tokens (which may lie beyond). */
export function tokenizerJsonSize(json: Json & { model: Json }): number {
  let size = modelVocabSize(json.model);
  const added = (json.added_tokens ?? []) as { id?: unknown }[];
  for (const token of added) if (Number.isInteger(token.id) && (token.id as number) >= size) size = (token.id as number) + 1;
  return size;
}

function modelVocabSize(model: Json): number {
  const vocab = model.vocab;
  if (Array.isArray(vocab)) return vocab.length; // Unigram: [piece, score] pairs, ids by position
  if (!isObject(vocab)) return 0;
  let size = 0;
  for (const id of Object.values(vocab)) if (typeof id === 'number' && id + 1 > size) size = id + 1;
  return size;
}

/** Refuses tokenizer_config.json settings that the library ignores and rlx does not implement. */
export function checkTokenizerConfig(config: Json, modelDir: string): void {
  if (config.split_special_tokens === true) {
    throw new TokenizerFileError(
      `${path.join(modelDir, 'tokenizer_config.json')} sets split_special_tokens: true (special-token text is tokenized as plain text); rlx does not implement that setting: remove it or set it false`,
    );
  }
}

/**
 * Refuses a tokenizer of `size` ids that the model's embedding (config.json's `vocab_size`,
 * `vocab`) has no rows for: tokens added (added_tokens) past the embedding without resizing it,
 * or another model's tokenizer. An id past the embedding would fail in the middle of a run.
 */
export function checkTokenizerFitsModel(modelDir: string, size: number, vocab: number): void {
  if (size > vocab) {
    throw new TokenizerFileError(
      `${modelDir}: tokenizer.json has ${size} tokens but config.json's vocab_size is ${vocab}, so ids from ${vocab} on have no embedding row; ` +
        `the tokenizer belongs to another model, or tokens were added to it without resizing the model's embedding (transformers' resize_token_embeddings)`,
    );
  }
}

/**
 * The tokenizer files of `modelDir` as opening the folder checks them, without building the
 * tokenizer: tokenizer.json's kind, tokenizer_config.json's settings, and the ids against the
 * model's embedding (`vocab`). The checker (dsl/) calls this so that `rlx check` refuses what
 * `rlx train` will.
 */
export function checkTokenizerFiles(modelDir: string, vocab: number): void {
  const json = readTokenizerJson(modelDir);
  checkTokenizerConfig(readTokenizerConfig(modelDir), modelDir);
  checkTokenizerFitsModel(modelDir, tokenizerJsonSize(json), vocab);
}
