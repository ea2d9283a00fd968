// What a pretrained policy's model folder (`pretrained("./models/Qwen3-0.6B")`) holds, as the
// checker, hover and the compiler need it: whether it is there, its config.json read by the
// trainer's own reader (hf/config.ts, so the checker and `rlx train` never disagree
// about a config), and whether the tokenizer and the weights are beside it. The weights
// themselves are not read. Reads are cached per folder and stamped with the folder's and
// config.json's modification times, so checking stays fast while the user types and still
// sees a download that finishes or a config.json that is edited.
//
// The checker also reads a complete folder's files as `rlx train` will before it starts
// (readModelFiles): tokenizer.json's kind, tokenizer_config.json's settings, the tokenizer's
// ids against the embedding, the weights' headers (each tensor the config implies,
// of its shape and a dtype rlx reads; no tensor data) and the chat template rendering a question.
// Folder completion lists folders with readModelFolder alone, which reads none of them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LmConfig } from '../../hf/config.js';
import { readBoundedLmConfig } from '../../hf/config-bounds.js';
import { InputError } from '../../shared/input-error.js';
import { checkChatTemplate } from '../../hf/chat-template.js';
import { matchWeights } from '../../hf/match-weights.js';
import { checkTokenizerFiles } from '../../hf/tokenizer-file.js';
import { halfWidthWeights } from '../../hf/safetensors.js';

export type ModelFolderRead =
  | { readonly kind: 'missing' }
  /** The path names a file, not a folder. */
  | { readonly kind: 'not-a-folder' }
  /** config.json is missing, not JSON, or describes a model rlx does not build: the reader's message. */
  | { readonly kind: 'invalid-config'; readonly message: string }
  /** The files that a model folder needs and this one lacks (tokenizer.json, the weights). */
  | { readonly kind: 'incomplete'; readonly missing: readonly string[]; readonly config: LmConfig }
  /** `halfWidth`: every weight stored bf16 or fp16 (a LoRA base can be kept as float16); undefined where the weights' headers could not be read (the trainer says why). */
  | { readonly kind: 'model'; readonly config: LmConfig; readonly halfWidth?: boolean };

/** The weights, in one file or sharded with an index (hf/safetensors.ts reads either). */
export const WEIGHT_FILES = ['model.safetensors', 'model.safetensors.index.json'];

/** The files whose reading a stamp stands for (edited in place, they change no folder time). */
const STAMPED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja', ...WEIGHT_FILES];

const cache = new Map<string, { stamp: string; read: ModelFolderRead }>();
/** Folder completion reads every folder it lists: past this many, the cache starts over. */
const MAX_CACHED = 2000;

/** The modification times that change when the folder's entries or its config.json change. */
function stampOf(dir: string): string | undefined {
  try {
    const folder = fs.statSync(dir);
    if (!folder.isDirectory()) return 'file';
    const files = STAMPED_FILES.map((name) => {
      const stat = fs.statSync(path.join(dir, name), { throwIfNoEntry: false });
      return stat ? `${stat.mtimeMs}:${stat.size}` : '-';
    });
    return `${folder.mtimeMs}:${files.join(':')}`;
  } catch {
    return undefined;
  }
}

/** What the folder at an absolute path holds; the same object while nothing in it changed. */
export function readModelFolder(dir: string): ModelFolderRead {
  const stamp = stampOf(dir);
  if (stamp === undefined) {
    cache.delete(dir);
    return MISSING;
  }
  const cached = cache.get(dir);
  if (cached?.stamp === stamp) return cached.read;
  const read = stamp === 'file' ? NOT_A_FOLDER : readFolder(dir);
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(dir, { stamp, read });
  return read;
}

const MISSING: ModelFolderRead = { kind: 'missing' };
const NOT_A_FOLDER: ModelFolderRead = { kind: 'not-a-folder' };

function readFolder(dir: string): ModelFolderRead {
  let config: LmConfig;
  try {
    config = readBoundedLmConfig(dir);
  } catch (err) {
    if (err instanceof InputError) return { kind: 'invalid-config', message: err.message };
    throw err;
  }
  const has = (name: string) => fs.existsSync(path.join(dir, name));
  const missing = [
    ...(has('tokenizer.json') ? [] : ['tokenizer.json']),
    ...(WEIGHT_FILES.some(has) ? [] : [`${WEIGHT_FILES[0]} (or ${WEIGHT_FILES[1]} and its shards)`]),
  ];
  return missing.length > 0 ? { kind: 'incomplete', missing, config } : { kind: 'model', config, halfWidth: halfWidthWeights(dir) };
}


/** What `rlx train` would refuse in a complete model folder's files, and what its chat template reads. */
export interface ModelFiles {
  /** The trainer's own words naming the file; undefined when it would load them. */
  readonly problem: string | undefined;
  /** Whether the chat template reads a variable (hf/chat-template.ts reads()); undefined without a template, or with a problem. */
  readonly chatReads: ((name: string) => boolean) | undefined;
}

const filesCache = new Map<string, { stamp: string; files: ModelFiles }>();

/**
 * The files of a complete model folder (read.kind 'model'), read as `rlx train` reads them
 * before it starts. Cached as readModelFolder is.
 */
export function readModelFiles(dir: string, config: LmConfig): ModelFiles {
  const stamp = stampOf(dir);
  const cached = filesCache.get(dir);
  if (stamp !== undefined && cached?.stamp === stamp) return cached.files;
  let files: ModelFiles;
  try {
    checkTokenizerFiles(dir, config.vocab);
    matchWeights(dir, config);
    const chat = checkChatTemplate(dir);
    files = { problem: undefined, chatReads: chat ? (name) => chat.reads(name) : undefined };
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    files = { problem: err.message, chatReads: undefined };
  }
  if (filesCache.size >= MAX_CACHED) filesCache.clear();
  if (stamp !== undefined) filesCache.set(dir, { stamp, files });
  return files;
}
