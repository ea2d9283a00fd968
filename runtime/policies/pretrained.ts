// The `pretrained("…")` policy: a Hugging Face model folder loaded as a language model the text
// learners train (all weights, or LoRA adapters beside frozen ones). Unlike the character-level
// transformer it brings its own tokenizer and chat template: text envs ask it to encode prompts
// (through the chat template) and completions (ending as the template ends an assistant's turn,
// or with the model's EOS), to complete prompt ids, and to decode what it wrote. Rows of token
// ids are left-padded, so the model is told each row's positions and which keys are padding
// (rowFeeds), as transformers' attention mask does.
import type { Rng } from '../../shared/random.js';
import type { Feed, Graph, Tensor, WeightStore } from '../tensor/index.js';
import type { ActionBuffer } from './distributions.js';
import { flatPolicySpaces, type LanguageModel, type OnnxInterface, type PolicySpaces } from './policy.js';
import { openModelFolder, renderChat, turnEndId, type ChatPrompt, type ModelFolder } from '../lm/model-folder.js';
import { PretrainedLm } from '../lm/pretrained.js';
import { recordBaseFiles, type BaseFiles } from '../lm/base-files.js';
import { loraAdapters, type LoraSettings } from '../../hf/lora.js';
import { parameterCount } from '../../hf/config.js';
import { checkMemory, chooseBaseDtype, type BaseDtype, type BaseDtypeSetting, type MemoryEstimate, type MemoryShape } from '../../hf/memory.js';
import { attentionMask, rowPositions, segmentMask, segmentPositions } from '../lm/rows.js';
import type { ChatMessage } from '../../hf/chat-template.js';
import { InputError } from '../../shared/input-error.js';
import type { SampledTokenStatistics } from '../lm/token-statistics.js';
import type { SamplingControls } from '../lm/sampling.js';
import { halfWidthWeights } from '../../hf/safetensors.js';

/** How a task's prompt becomes the model's chat prompt (the policy's `chat { }` block). */
export interface ChatSettings {
  readonly system?: string;
  /** The user message, with `{prompt}` standing for the task's prompt. */
  readonly user: string;
  /** Passed to the chat template (Qwen3's enable_thinking, ...). */
  readonly variables: Readonly<Record<string, unknown>>;
}

/** What a run will do with the model at once, for the memory estimate (hf/memory.ts). */
export type ExpectedUse = Omit<MemoryShape, 'trainableParameters'>;

export interface PretrainedSettings {
  /** The model folder (absolute, or relative to the working directory). */
  readonly folder: string;
  readonly lora?: LoraSettings;
  /** How a LoRA base is held in memory (lora { base_dtype }); auto where absent. */
  readonly baseDtype?: BaseDtypeSetting;
  readonly chat?: ChatSettings;
}

/** Graph inputs besides the tokens that a pretrained model's training graph reads (rows.ts). */
export const ROW_INPUTS = { positions: 'positions', mask: 'attention_mask' } as const;

export interface CompleteOptions {
  readonly maxNewTokens: number;
  readonly greedy: boolean;
  readonly temperature?: number;
  readonly rng?: Rng;
  /** Where given, each sampled token's distribution statistics go here: row, then the token's index in its completion (lm/token-statistics.ts). */
  readonly statistics?: SampledTokenStatistics;
  /** top_k, top_p, min_p, repetition_penalty and stop strings (lm/sampling.ts). */
  readonly controls?: SamplingControls;
}

export class PretrainedPolicy implements LanguageModel {
  readonly kind = 'pretrained';
  readonly weights: WeightStore;
  readonly frozenWeights: WeightStore | undefined;
  readonly spaces: PolicySpaces;
  readonly onnxInterface: OnnxInterface = { inputs: [], outputs: [] };
  readonly policyFileExtension = 'json';
  readonly variableRows = true;

  constructor(
    readonly lm: PretrainedLm,
    readonly settings: PretrainedSettings,
    /** The sha256 of the base folder's files, as loaded; taken at the first checkpoint where not given. */
    private baseFiles?: BaseFiles,
    /** The estimate the run was checked against before loading (load's `expected`), logged in hparams. */
    readonly memoryEstimate?: MemoryEstimate,
  ) {
    this.weights = lm.trainable;
    this.frozenWeights = lm.frozen;
    this.spaces = flatPolicySpaces(lm.config.context, { kind: 'discrete', n: lm.config.vocab });
  }

  /**
   * Loads the folder; `rng` draws new LoRA adapters. With `expected` (what the run will sample
   * and train at once), a run whose memory estimate exceeds the free memory is refused first,
   * before a byte of the weights is read.
   */
  static load(settings: PretrainedSettings, rng: Rng, expected?: ExpectedUse): PretrainedPolicy {
    const folder = openModelFolder(settings.folder);
    // A chat template that throws on the run's prompts (raise_exception, an engine error) is
    // refused here, before the weights are read and the run's folder exists, not at its first prompt.
    if (folder.chat) renderChat(folder, chatPrompt(settings.chat, 'What is 1+1?'));
    let estimate: MemoryEstimate | undefined;
    let base: BaseDtype = settings.baseDtype === 'float16' ? 'float16' : 'float32';
    if (expected) {
      const { config } = folder;
      const trainableParameters = settings.lora ? loraAdapters(config, settings.lora).reduce((n, a) => n + a.a.shape[0] * a.a.shape[1] + a.b.shape[0] * a.b.shape[1], 0) : parameterCount(config);
      // A KL reference under LoRA is the adapters' copy; with full fine-tuning a copy of the model.
      const shape = { ...expected, trainableParameters, referenceCopy: expected.referenceCopy && !settings.lora };
      if (settings.lora) base = chooseBaseDtype(config, shape, settings.baseDtype ?? 'auto', () => halfWidthWeights(folder.dir) === true);
      estimate = checkMemory(config, { ...shape, halfBase: base === 'float16' }, `policy (pretrained "${settings.folder}")`);
    }
    const lm = PretrainedLm.load(folder, settings.lora ? { lora: { settings: settings.lora, rng }, baseDtype: base } : {});
    // Recorded with each checkpoint, so that reading the run back refuses a base changed since
    // (LoRA adapters are only the run's policy over these weights).
    return new PretrainedPolicy(lm, settings, recordBaseFiles(folder.dir, settings.lora !== undefined), estimate);
  }

  get folder(): ModelFolder {
    return this.lm.folder;
  }

  get context(): number {
    return this.lm.config.context;
  }

  /** Ids a completion ends with. */
  get stopIds(): readonly number[] {
    return this.lm.tokenizer.eosIds;
  }

  private endOfDemonstration?: number;

  /**
   * The id written after a demonstration (encodeCompletion): the one the chat template ends an
   * assistant's turn with, where it is a stop id (lm/model-folder.ts turnEndId), so that SFT
   * teaches the ending the model's prompts lead it to write; else, and for a model without a
   * chat template (prompts as plain text), the first stop id.
   */
  get demonstrationEndId(): number {
    return (this.endOfDemonstration ??= turnEndId(this.folder) ?? this.stopIds[0]!);
  }

  /** Fed where a row has no token (left padding, after a completion ended). */
  get padId(): number {
    return this.lm.tokenizer.padId ?? this.stopIds[0] ?? 0;
  }

  sequenceLogits(g: Graph, tokens: Tensor): Tensor {
    const T = tokens.shape[1]!;
    const positions = g.byName(ROW_INPUTS.positions) ?? g.input(ROW_INPUTS.positions, 'int64', ['B', T]);
    const mask = g.byName(ROW_INPUTS.mask) ?? g.input(ROW_INPUTS.mask, 'float32', ['B', T, T]);
    return this.lm.forward(g, { tokens, positions, mask }).logits;
  }

  /** The feeds of sequenceLogits' inputs for `rows` rows of `width` tokens starting at `starts` (their left padding). */
  rowFeeds(starts: Int32Array, width: number): Record<string, Feed> {
    const rows = starts.length;
    return {
      [ROW_INPUTS.positions]: { data: rowPositions(starts, 0, width), dims: [rows, width] },
      [ROW_INPUTS.mask]: { data: attentionMask(starts, 0, width), dims: [rows, width, width] },
    };
  }

  /** The feeds of sequenceLogits' inputs for rows packed with independent segments: `first` [rows, width] is each position's segment start (rows.ts). */
  segmentFeeds(first: Int32Array, rows: number, width: number): Record<string, Feed> {
    return {
      [ROW_INPUTS.positions]: { data: segmentPositions(first, rows, width), dims: [rows, width] },
      [ROW_INPUTS.mask]: { data: segmentMask(first, rows, width), dims: [rows, width, width] },
    };
  }

  /**
   * A dialogue as the model reads it before its next turn: the policy's `chat { system }` first
   * where set, then `messages`, through the chat template with the generation prompt. A model
   * without a chat template cannot tell the turns' speakers apart: refused, naming the folder.
   */
  encodeConversation(messages: readonly ChatMessage[], where: string): number[] {
    const chat = this.folder.chat;
    if (!chat) throw new InputError(`${where}: the model in ${this.folder.dir} has no chat template (no chat_template.jinja, none in tokenizer_config.json), which dialogues need to tell the user's turns from the assistant's; use a chat (instruct) model, or a TextTask`);
    const system = this.settings.chat?.system;
    // A conversation that opens with a system message of its own (a Python text env's) keeps it alone: templates take one.
    const all = system !== undefined && messages[0]?.role !== 'system' ? [{ role: 'system', content: system }, ...messages] : messages;
    return this.lm.tokenizer.encode(chat.render(all, { addGenerationPrompt: true, variables: this.settings.chat?.variables }));
  }

  /** A task's prompt as the model reads it: through the chat template where the model has one, else the text with the tokenizer's own special tokens. */
  encodePrompt(prompt: string): number[] {
    const { tokenizer } = this.lm;
    if (!this.folder.chat) return tokenizer.encode(prompt, { addSpecialTokens: true });
    return tokenizer.encode(renderChat(this.folder, chatPrompt(this.settings.chat, prompt)));
  }

  /** Prompt ids as text, special tokens and all: what the model read (the chat template's rendering, cut to the prompt limit). */
  decodePrompt(ids: readonly number[]): string {
    return this.lm.tokenizer.decode(ids);
  }

  /** A completion the model should write (a TextTask's target, a dialogue expert's turn): its text, then the id that ends it (demonstrationEndId). */
  encodeCompletion(text: string): number[] {
    return [...this.lm.tokenizer.encode(text), this.demonstrationEndId];
  }

  /** The text of completion ids, without the stop id and special tokens. */
  decodeCompletion(ids: readonly number[]): string {
    const stops = new Set(this.stopIds);
    const end = ids.findIndex((id) => stops.has(id));
    return this.lm.tokenizer.decode(end < 0 ? ids : ids.slice(0, end), { skipSpecialTokens: true });
  }

  /**
   * Rows sampled at once (a learner's generation_batch, algorithms/text/token-step.ts): complete()
   * decodes more prompts in chunks of this many, so their key/value cache is one chunk's.
   */
  generationRows = Infinity;

  /** Completion ids of each prompt (ending with a stop id, or cut at maxNewTokens). */
  async complete(prompts: readonly (readonly number[])[], options: CompleteOptions): Promise<number[][]> {
    const out: number[][] = [];
    for (let from = 0; from < prompts.length; from += this.generationRows) {
      const chunk = from === 0 && prompts.length <= this.generationRows ? prompts : prompts.slice(from, from + this.generationRows);
      // Statistics are indexed by row: a later chunk's rows come after the earlier chunks'.
      const statistics = options.statistics && from > 0 ? options.statistics.offset(from) : options.statistics;
      const completions = await this.lm.generate(chunk, { ...options, ...(statistics ? { statistics } : {}) });
      for (const c of completions) out.push(c.ids);
    }
    return out;
  }

  act(_obs: Float32Array, _rows: number, _actions: ActionBuffer, _deterministic: boolean, _rng: Rng): never {
    throw new Error('a pretrained language model writes completions of text prompts, not actions for observation vectors; pair it with a text env (TextTask)');
  }

  /**
   * The checkpoint's policy file: what the weights in the checkpoint's state belong to (the base
   * folder, LoRA and chat settings). The weights themselves are in the state (all of them, or
   * the adapters); `rlx export` writes them as a Hugging Face folder or a PEFT adapter.
   */
  exportOnnx(metadata: Readonly<Record<string, unknown>>): Uint8Array {
    const { config } = this.lm;
    const manifest = {
      ...metadata,
      kind: 'pretrained',
      base: { folder: this.folder.dir, model_type: config.family, files: (this.baseFiles ??= recordBaseFiles(this.folder.dir, this.settings.lora !== undefined)) },
      lora: this.settings.lora ?? null,
      ...(this.lm.frozen?.holdsHalf ? { base_dtype: 'float16' } : {}),
      chat: this.settings.chat ?? null,
      trainable: this.weights.names,
    };
    return new TextEncoder().encode(JSON.stringify(manifest, null, 2) + '\n');
  }

  release(): Promise<void> {
    return this.lm.release();
  }
}

/** A task's prompt as the chat messages of the policy's `chat { }` block (the prompt alone, as the user's message, without one). */
function chatPrompt(chat: ChatSettings | undefined, prompt: string): ChatPrompt {
  return { system: chat?.system, user: chat ? chat.user.split('{prompt}').join(prompt) : prompt, variables: chat?.variables };
}

export function isPretrained(model: LanguageModel): model is PretrainedPolicy {
  return model.kind === 'pretrained';
}
