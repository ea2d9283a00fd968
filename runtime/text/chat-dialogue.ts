// Dialogues (dialogue.ts) written by a pretrained model: every agent turn is generated from the
// conversation so far rendered by the model's chat template (the policy's `chat { system }`,
// the env's messages as the user's, the agent's earlier turns as the assistant's, then the
// generation prompt), and ends at one of the model's end ids or after the turn's token limit.
//
// Each turn re-encodes the whole conversation and prefills it (as TRL's multi-turn rollouts
// do), rather than feeding the env's reply into the key/value cache of the turn before: a
// template writes its own tokens between turns and may re-render the history (Qwen3 drops a
// past turn's <think> block), so only the template's own rendering is what the model would read
// from a fresh start. It costs a prefill per turn, which is cheap beside the sampling of short
// turns, and keeps sampling the single-turn code path (PretrainedPolicy.complete).
//
// Training must read each turn's tokens after exactly the tokens the model read when it wrote
// them. A dialogue is one training row of segments: turn k+1's rendered prompt normally starts
// with turn k's prompt and the ids the model wrote, and then only its new tokens are appended
// to the same segment; where it does not (a re-rendered history, a turn cut without its end id,
// text that re-tokenises differently), a new segment starts with the whole prompt. Segments of
// a row do not see each other (their positions restart, the attention mask keeps them apart:
// lm/rows.ts segmentMask), so every turn is scored in the context it was sampled in. Only the
// ids the model wrote are learned (their end id included); the env's messages and the
// template's tokens are read, not learned. Rows are left-padded, as single-turn rows are.
import type { ChatMessage } from '../../hf/chat-template.js';
import type { PretrainedPolicy } from '../policies/pretrained.js';
import { InputError } from '../../shared/input-error.js';
import type { Rng } from '../../shared/random.js';
import { DialogueReward } from './dialogue-reward.js';
import type { Dialogue, DialogueMessage, DialogueOutcomes } from './dialogue.js';
import type { TokenRows, TurnRewards } from './text-env.js';
import { SampledTokenStatistics } from '../lm/token-statistics.js';
import type { SamplingControls } from '../lm/sampling.js';

/** How the agent's turns are written: sampled from the model (or greedy), or the env's expert (demonstrations for SFT). */
export type ChatTurnWriter = {
  readonly greedy: boolean;
  readonly temperature: number;
  readonly rng?: Rng;
  /** Record the sampled ids' entropies (ChatDialogueBatch.entropy). */
  readonly tokenStatistics?: boolean;
  /** top_k, top_p, min_p, repetition_penalty and stop strings for each agent turn (lm/sampling.ts). */
  readonly controls?: SamplingControls;
} | { readonly expert: true };

/** Dialogues run to their end by a pretrained model: each row's ids, packed as above. */
export interface ChatDialogueBatch extends DialogueOutcomes {
  /** Each row's ids: its segments one after another. */
  readonly ids: readonly (readonly number[])[];
  /** 1 where the id is one the agent wrote, per row. */
  readonly agent: readonly (readonly number[])[];
  /** The agent turn (from 0) each id was written in, -1 for ids the agent did not write, per row. */
  readonly turnOf: readonly (readonly number[])[];
  /** Each row's segments: where each starts in its ids. */
  readonly segments: readonly (readonly number[])[];
  /** Ids the agent wrote over all turns, per row (what is learned). */
  readonly agentTokens: Int32Array;
  /** Per row, beside `ids`: the entropy of the distribution each sampled agent id was drawn from (lm/token-statistics.ts), where the writer asked for it; 0 elsewhere and for expert turns. */
  readonly entropy: readonly (readonly number[])[];
  /** 1 where a dialogue ended early because its next turn would not fit the model's context (truncated, as a time limit is). */
  readonly contextTruncated: Uint8Array;
}

export interface ChatDialogueOptions {
  /** Longest agent turn, in the model's tokens (its end id included). */
  readonly turnTokens: number;
  readonly turns: number;
  /** The env as the plan writes it, for errors. */
  readonly env: string;
  readonly reward?: DialogueReward;
}

/** The messages a dialogue opens with: the opening as the user's first message, through the policy's `chat { user }` ("{prompt}" is the opening). */
export function openingMessages(policy: PretrainedPolicy, opening: string): DialogueMessage[] {
  const user = policy.settings.chat?.user ?? '{prompt}';
  return [['user', user.split('{prompt}').join(opening)]];
}

/** The conversation as the template takes it, the system prompt first where the policy sets one (what the inspector shows). */
function withSystem(policy: PretrainedPolicy, messages: readonly DialogueMessage[]): DialogueMessage[] {
  const system = policy.settings.chat?.system;
  // An env that opens with a system message of its own (a Python text env's) keeps it alone: templates take one.
  return system !== undefined && messages[0]?.[0] !== 'system' ? [['system', system], ...messages] : [...messages];
}

const asChat = (messages: readonly DialogueMessage[]): ChatMessage[] => messages.map(([role, content]) => ({ role, content }));

/** One row being built: its ids, which are the agent's, and where its current segment starts. */
class PackedRow {
  readonly ids: number[] = [];
  readonly agent: number[] = [];
  readonly segments: number[] = [];
  readonly turnOf: number[] = [];
  readonly entropy: number[] = [];

  /** The prompt the model read before a turn: the rest of it when it extends the current segment, else a new segment. */
  addPrompt(prompt: readonly number[]): void {
    const from = this.segments.at(-1);
    if (from !== undefined && continues(prompt, this.ids, from)) {
      this.push(prompt.slice(this.ids.length - from), -1);
    } else {
      this.segments.push(this.ids.length);
      this.push(prompt, -1);
    }
  }

  /** The ids the agent wrote at turn `k` (from 0), with the entropy each was sampled at (0 where unknown). */
  addTurn(ids: readonly number[], k: number, entropy: readonly number[] | undefined): void {
    this.push(ids, k, entropy);
  }

  /** `turn` -1: ids the agent read; else the turn the agent wrote them in. */
  private push(ids: readonly number[], turn: number, entropy?: readonly number[]): void {
    ids.forEach((id, j) => {
      this.ids.push(id);
      this.agent.push(turn < 0 ? 0 : 1);
      this.turnOf.push(turn);
      this.entropy.push(entropy?.[j] ?? 0);
    });
  }
}

/** Whether `prompt` starts with ids[from..]. */
function continues(prompt: readonly number[], ids: readonly number[], from: number): boolean {
  const n = ids.length - from;
  if (prompt.length < n) return false;
  for (let i = 0; i < n; i++) if (prompt[i] !== ids[from + i]) return false;
  return true;
}

/** Runs `dialogues` (one per row) to their end, the agent's turns written by `policy` (or the env's expert) through its chat template. */
export async function runChatDialogues(dialogues: readonly Dialogue[], policy: PretrainedPolicy, writer: ChatTurnWriter, options: ChatDialogueOptions): Promise<ChatDialogueBatch> {
  const reward = options.reward ?? DialogueReward.none();
  const rows = dialogues.length;
  const terms = reward.termNames.length;
  const returns = new Float64Array(rows);
  const turnRewards = new Float64Array(rows * options.turns);
  const termSums = new Float64Array(rows * terms);
  const turns = new Int32Array(rows);
  const success = new Uint8Array(rows);
  const agentTokens = new Int32Array(rows);
  let reportsSuccess = false;
  const messages = dialogues.map((d) => (d.openingMessages ? [...d.openingMessages] : openingMessages(policy, d.opening)));
  // What reward terms read as `prompt`: the env's and the agent's texts as they were, one a line.
  const plain = dialogues.map((d) => [d.opening]);
  const packed = dialogues.map(() => new PackedRow());
  const active = dialogues.map(() => true);
  const contextTruncated = new Uint8Array(rows);

  for (let k = 0; k < options.turns; k++) {
    const encoded = active.flatMap((on, r) => (on ? [{ r, prompt: policy.encodeConversation(asChat(messages[r]!), options.env) }] : []));
    // A conversation whose next turn would pass the model's context ends there, truncated, as a
    // time limit ends an episode: its turns so far are trained on, and the run counts how often
    // (episode/context_truncated). One whose opening alone leaves no room cannot start: that is
    // the env's or the prompt's size, said once.
    const fitting = encoded.filter(({ r, prompt }) => {
      if (prompt.length + options.turnTokens <= policy.context) return true;
      if (k === 0) {
        throw new InputError(
          `${options.env}: a dialogue's opening is ${prompt.length} tokens, which with a turn of up to ${options.turnTokens} tokens exceeds the model's context of ${policy.context}; ` +
            'shorten the env\'s opening message or the chat system prompt, lower the turn length, or use a model with a longer context',
        );
      }
      active[r] = false;
      contextTruncated[r] = 1;
      return false;
    });
    const live = fitting.map(({ r }) => r);
    if (live.length === 0) break;
    const prompts = fitting.map(({ r, prompt }) => {
      packed[r]!.addPrompt(prompt);
      return prompt;
    });
    const written = 'expert' in writer ? live.map((r) => expertTurn(dialogues[r]!, policy)) : await sampledTurns(policy, prompts, writer, options.turnTokens);
    live.forEach((r, i) => {
      const { ids, text, entropy } = written[i]!;
      packed[r]!.addTurn(ids, k, entropy);
      agentTokens[r] += ids.length;
      const result = dialogues[r]!.turn(text);
      const truncated = !result.done && k === options.turns - 1;
      messages[r]!.push(['assistant', text]);
      turns[r]++;
      const turnReward = reward.score({ prompt: plain[r]!.join('\n'), completion: text, result, t: k, truncated }, termSums, r * terms);
      turnRewards[r * options.turns + k] = turnReward;
      returns[r] += turnReward;
      plain[r]!.push(text);
      if (result.success !== undefined) reportsSuccess = true;
      if (result.success) success[r] = 1;
      if (result.done || k === options.turns - 1) {
        active[r] = false;
        return;
      }
      if (result.messages) messages[r]!.push(...result.messages);
      else messages[r]!.push(['user', result.observation]);
      plain[r]!.push(result.observation);
    });
  }
  return {
    rows,
    returns,
    turnRewards,
    termSums,
    turns,
    success,
    reportsSuccess,
    transcripts: messages.map((m) => withSystem(policy, m)),
    ids: packed.map((p) => p.ids),
    agent: packed.map((p) => p.agent),
    turnOf: packed.map((p) => p.turnOf),
    segments: packed.map((p) => p.segments),
    agentTokens,
    entropy: packed.map((p) => p.entropy),
    contextTruncated,
  };
}

function expertTurn(dialogue: Dialogue, policy: PretrainedPolicy): { ids: number[]; text: string; entropy?: number[] } {
  if (!dialogue.expert) throw new Error('this env has no demonstrations (its dialogues have no expert turn)');
  const text = dialogue.expert();
  return { ids: policy.encodeCompletion(text), text };
}

async function sampledTurns(policy: PretrainedPolicy, prompts: readonly (readonly number[])[], writer: Exclude<ChatTurnWriter, { expert: true }>, turnTokens: number): Promise<{ ids: number[]; text: string; entropy?: number[] }[]> {
  const statistics = writer.tokenStatistics ? new SampledTokenStatistics(prompts.length, turnTokens) : undefined;
  const completions = await policy.complete(prompts, { maxNewTokens: turnTokens, greedy: writer.greedy, temperature: writer.temperature, rng: writer.rng, ...(statistics ? { statistics } : {}), ...(writer.controls ? { controls: writer.controls } : {}) });
  return completions.map((ids, r) => ({ ids, text: policy.decodeCompletion(ids), entropy: statistics ? Array.from(statistics.entropy.subarray(r * turnTokens, r * turnTokens + ids.length)) : undefined }));
}

/** The agent ids' sampling entropies laid out as chatTrainingRows lays out their positions (0 where not learned). */
export function chatTokenEntropy(batch: ChatDialogueBatch, rows: TokenRows): Float32Array {
  const { width } = rows;
  const out = new Float32Array(batch.rows * width);
  for (let r = 0; r < batch.rows; r++) {
    const entropy = batch.entropy[r]!;
    const start = width + 1 - entropy.length; // as chatTrainingRows: the longest row's ids fill width + 1
    for (let i = Math.max(0, start - 1); i < width; i++) if (rows.mask[r * width + i]) out[r * width + i] = entropy[i + 1 - start]!;
  }
  return out;
}

/**
 * Training rows of a batch: each row's ids left-padded to the longest, what the model reads at
 * each position and the next id, 1 where that next id is the agent's, and the positions and
 * attention mask that keep each row's segments apart.
 */
export function chatTrainingRows(batch: ChatDialogueBatch, policy: PretrainedPolicy): TokenRows {
  const { rows } = batch;
  const longest = Math.max(2, ...batch.ids.map((ids) => ids.length));
  const width = longest - 1;
  const pad = policy.padId;
  const tokens = new BigInt64Array(rows * width);
  const targets = new BigInt64Array(rows * width);
  const mask = new Float32Array(rows * width);
  const first = new Int32Array(rows * width);
  const perRow = new Int32Array(rows);
  let tokenCount = 0;
  for (let r = 0; r < rows; r++) {
    const ids = batch.ids[r]!;
    const agent = batch.agent[r]!;
    const segments = batch.segments[r]!;
    const start = longest - ids.length;
    const at = (i: number) => (i < start ? pad : ids[i - start]!);
    let segment = 0;
    for (let i = 0; i < width; i++) {
      tokens[r * width + i] = BigInt(at(i));
      targets[r * width + i] = BigInt(at(i + 1));
      while (segment + 1 < segments.length && i - start >= segments[segment + 1]!) segment++;
      first[r * width + i] = start + (i < start ? 0 : segments[segment]!);
      if (i + 1 >= start && agent[i + 1 - start]) {
        mask[r * width + i] = 1;
        perRow[r]++;
      }
    }
    tokenCount += perRow[r]!;
  }
  return { rows, width, tokens, targets, mask, tokenCount, perRow, modelFeeds: policy.segmentFeeds(first, rows, width) };
}

/** A chat batch's rewards turn by turn, and the turn of each learned position of its training rows (chatTrainingRows: the same left padding). */
export function chatTurnRewards(batch: ChatDialogueBatch, rows: TokenRows, maxTurns: number): TurnRewards {
  const { width } = rows;
  const tokenTurn = new Int32Array(rows.rows * width).fill(-1);
  for (let r = 0; r < rows.rows; r++) {
    const turnOf = batch.turnOf[r]!;
    const start = width + 1 - turnOf.length;
    for (let i = Math.max(0, start - 1); i < width; i++) {
      if (rows.mask[r * width + i]) tokenTurn[r * width + i] = turnOf[i + 1 - start]!;
    }
  }
  return { maxTurns, rewards: batch.turnRewards, taken: batch.turns, tokenTurn };
}
