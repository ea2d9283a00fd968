// A Hugging Face model folder as a user downloaded it (`hf download Qwen/Qwen3-0.6B --local-dir
// models/Qwen3-0.6B`): config.json, the weights, tokenizer.json with tokenizer_config.json, a
// chat template, generation_config.json. Opening one reads and checks the small files; the
// weights are read by PretrainedLm (pretrained.ts) when a run needs them.
import * as fs from 'node:fs';
import { InputError } from '../../shared/input-error.js';
import { loadChatFormat, type ChatFormat, type ChatMessage } from '../../hf/chat-template.js';
import type { LmConfig } from '../../hf/config.js';
import { readBoundedLmConfig } from '../../hf/config-bounds.js';
import { loadModelTokenizer, MODEL_FOLDER_FILES, type Tokenizer } from './tokenizer.js';
import { checkTokenizerFitsModel } from '../../hf/tokenizer-file.js';

export class ModelFolderError extends InputError {
  override name = 'ModelFolderError';
}

export interface ModelFolder {
  readonly dir: string;
  readonly config: LmConfig;
  readonly tokenizer: Tokenizer;
  /** The chat template, where the model has one (base models often do not). */
  readonly chat: ChatFormat | undefined;
}

export function openModelFolder(dir: string): ModelFolder {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw new ModelFolderError(`no model folder at ${dir}; download a Hugging Face model there first (for example \`hf download Qwen/Qwen3-0.6B --local-dir ${dir}\`): it needs config.json, model.safetensors (or model.safetensors.index.json and its shards), ${MODEL_FOLDER_FILES}`);
  }
  if (!stat.isDirectory()) throw new ModelFolderError(`${dir} is a file; name the model's folder, which holds config.json, the weights and ${MODEL_FOLDER_FILES}`);
  const config = readBoundedLmConfig(dir);
  const tokenizer = loadModelTokenizer(dir);
  checkTokenizerFitsModel(dir, tokenizer.size, config.vocab);
  return { dir, config, tokenizer, chat: loadChatFormat(dir) };
}

export interface ChatPrompt {
  readonly system?: string;
  readonly user: string;
  /** Template variables (Qwen3's enable_thinking, ...). */
  readonly variables?: Readonly<Record<string, unknown>>;
}

/** The prompt's text through the model's chat template, with the generation prompt; a model without one is a ModelFolderError. */
export function renderChat(folder: ModelFolder, prompt: ChatPrompt): string {
  if (!folder.chat) throw new ModelFolderError(`${folder.dir} has no chat template (no chat_template.jinja, none in tokenizer_config.json); use the prompt as plain text`);
  const messages: ChatMessage[] = [...(prompt.system !== undefined ? [{ role: 'system', content: prompt.system }] : []), { role: 'user', content: prompt.user }];
  return folder.chat.render(messages, { addGenerationPrompt: true, variables: prompt.variables });
}

/** An assistant's turn whose end turnEndId looks for: plain letters, which no template rewrites. */
const TURN_PROBE = 'rlxturnendprobe';

/**
 * The id the chat template writes right after an assistant's turn (ChatML's <|im_end|>, Llama
 * 3's <|eot_id|>), read from its rendering of a user's message and an assistant's reply. That is
 * what the model writes to end a turn, and what a demonstration should end with: the first of
 * generation_config's ids can be another (Llama 3 lists <|end_of_text|> before <|eot_id|>).
 * Undefined without a chat template, where the template refuses the probe, or where what
 * follows the turn is not one of the ids generation stops at (training the model to write an id
 * that does not stop it would make it run on).
 */
export function turnEndId(folder: ModelFolder): number | undefined {
  if (!folder.chat) return undefined;
  let rendered: string;
  try {
    rendered = folder.chat.render([{ role: 'user', content: 'Hi' }, { role: 'assistant', content: TURN_PROBE }], { addGenerationPrompt: false });
  } catch (err) {
    if (err instanceof InputError) return undefined;
    throw err;
  }
  const at = rendered.lastIndexOf(TURN_PROBE);
  if (at < 0) return undefined;
  const next = folder.tokenizer.encode(rendered.slice(at + TURN_PROBE.length))[0];
  return next !== undefined && folder.tokenizer.eosIds.includes(next) ? next : undefined;
}
