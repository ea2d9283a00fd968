// A multi-turn text environment (dialogue.ts) as the text learners and the trainer use it
// (text-env.ts): rollouts are groups of dialogues from one start (the same hidden number),
// the model writing the agent's turns: the character-level transformer in lockstep on the
// dialogue grid, a pretrained model through its chat template turn by turn (chat-dialogue.ts);
// demonstrations are the env's expert dialogues; evaluation runs the env's evaluation
// dialogues greedily.
//
// A dialogue's return is the sum of its turns' rewards (the env's, with or replaced by the
// plan's reward terms: dialogue-reward.ts); it is one episode (return, turns, success) for the
// trainer's train.* windows, and each term's sum over the dialogue is logged as rewards/<term>.
// Steps count agent turns, as env steps.
import type { EpisodeRecord } from '../envs/records.js';
import type { LanguageModel, TokenModel } from '../policies/index.js';
import { isPretrained, type PretrainedPolicy } from '../policies/pretrained.js';
import { Rng } from '../../shared/random.js';
import { chatTokenEntropy, chatTrainingRows, chatTurnRewards, runChatDialogues, type ChatDialogueBatch, type ChatTurnWriter } from './chat-dialogue.js';
import { DialogueReward } from './dialogue-reward.js';
import { SampledTokenStatistics } from '../lm/token-statistics.js';
import { dialogueLayout, dialogueTrainingRows, dialogueTurnRewards, gridWidth, runDialogues, type Dialogue, type DialogueEnv, type DialogueLayout, type DialogueOutcomes } from './dialogue.js';
import type { RolloutOptions, Rollouts, SampleRecord, TextEnv, TextEvalOutcome, TokenRows, TokenSampler, TurnRewards } from './text-env.js';
import { CharTokenizer } from '../policies/transformer/char-tokenizer.js';

/** Dialogues per batch when evaluating. */
const EVAL_BATCH = 128;

export class DialogueEnvironment implements TextEnv {
  readonly tokenizer: CharTokenizer;
  readonly layout: DialogueLayout;
  readonly description: Readonly<{ env: string; task: string }>;
  readonly termNames: readonly string[];
  readonly policyFields: Readonly<Record<string, unknown>>;

  constructor(
    readonly env: DialogueEnv,
    kind: string,
    /** The plan's reward terms, evaluated per agent turn (none: the env's own rewards). */
    private readonly reward = DialogueReward.none(),
    /** Stops what the env runs on (a Python text env's worker processes). */
    private readonly closeEnv: () => void = () => {},
  ) {
    this.termNames = reward.termNames;
    this.tokenizer = CharTokenizer.fromAlphabet(env.alphabet);
    this.layout = dialogueLayout(env);
    this.description = { env: kind, task: env.description };
    const l = this.layout;
    this.policyFields = { task: env.description, dialogue: { opening_width: l.openingWidth, turn_slots: l.turnSlots, reply_slots: l.replySlots, turns: l.turns } };
  }

  close(): void {
    this.closeEnv();
  }

  rowWidth(): number {
    return gridWidth(this.layout) - 1;
  }

  checkFits(context: number, where: string): void {
    const needed = this.rowWidth();
    if (needed > context) {
      const l = this.layout;
      throw new Error(
        `${where}: dialogues of ${l.turns} turns (an opening of up to ${l.openingWidth - 1} characters plus <bos>, turns of up to ${l.turnSlots - 1} plus <eos>, ` +
          `replies of up to ${l.replySlots}) need a context of ${needed} tokens, but the policy's context is ${context}; raise \`context\` to at least ${needed}`,
      );
    }
  }

  /**
   * A pretrained model's longest turn, in its tokens: the env's longest turn in characters (text
   * of n characters is at most n tokens, but for characters outside the tokenizer's merges)
   * and the end id, or the learner's max_new_tokens where lower.
   */
  turnTokens(maxNewTokens?: number): number {
    return Math.min(this.env.maxTurnLength + 1, maxNewTokens ?? Infinity);
  }

  /** Dialogues of a pretrained model, written through its chat template. */
  private chatDialogues(dialogues: readonly Dialogue[], model: PretrainedPolicy, writer: ChatTurnWriter, maxNewTokens?: number): Promise<ChatDialogueBatch> {
    return runChatDialogues(dialogues, model, writer, { turnTokens: this.turnTokens(maxNewTokens), turns: this.env.maxTurns, env: this.env.description, reward: this.reward });
  }

  async rollouts(languageModel: LanguageModel, o: RolloutOptions): Promise<Rollouts> {
    const G = o.groupSize;
    const rows = o.groups * G;
    // A group's dialogues start the same way: each replays the group's draws.
    const starts = Array.from({ length: o.groups }, () => o.startRng.uint32());
    const dialogues = starts.flatMap((seed) => Array.from({ length: G }, () => this.env.start(new Rng(seed))));
    let batch: DialogueOutcomes;
    let tokens: TokenRows;
    let turnRewards: TurnRewards;
    let tokenEntropy: Float32Array | undefined;
    let contextTruncated: Uint8Array | undefined;
    if (isPretrained(languageModel)) {
      const chat = await this.chatDialogues(dialogues, languageModel, { greedy: false, temperature: o.temperature, rng: o.sampleRng, tokenStatistics: o.tokenStatistics === true, ...(o.sampling ? { controls: o.sampling } : {}) }, o.maxNewTokens);
      batch = chat;
      contextTruncated = chat.contextTruncated;
      tokens = chatTrainingRows(chat, languageModel);
      turnRewards = chatTurnRewards(chat, tokens, this.env.maxTurns);
      if (o.tokenStatistics) tokenEntropy = chatTokenEntropy(chat, tokens);
    } else {
      const step = await (languageModel as TokenModel).decoder(rows);
      // Each agent token's sampling statistics at its grid position, the target of the position before it.
      const statistics = o.tokenStatistics ? new SampledTokenStatistics(rows, gridWidth(this.layout)) : undefined;
      const grid = await runDialogues(dialogues, this.tokenizer, this.layout, { step, vocab: this.tokenizer.size, options: { temperature: o.temperature, greedy: false, rng: o.sampleRng, ...(statistics ? { statistics } : {}), ...(o.sampling ? { controls: o.sampling } : {}) } }, this.reward);
      batch = grid;
      tokens = dialogueTrainingRows(grid, this.layout);
      turnRewards = dialogueTurnRewards(grid, this.layout, tokens);
      tokenEntropy = statistics?.entropyAtPositions(tokens.width, -1);
    }
    const steps = batch.turns.reduce((a, b) => a + b, 0);
    const mean = (xs: ArrayLike<number>) => Array.from(xs).reduce((a, b) => a + b, 0) / xs.length;
    const metrics: Record<string, number> = {
      'rewards/total': mean(batch.returns),
      'train/mean_reward': mean(batch.returns),
      'train/turns': mean(batch.turns),
      'train/completion_length': tokens.tokenCount / Math.max(1, steps),
      'charts/dialogues': rows,
    };
    if (batch.reportsSuccess) metrics['train/batch_success'] = mean(batch.success);
    // The fraction of dialogues a pretrained model's context cut short (chat-dialogue.ts).
    if (contextTruncated) metrics['episode/context_truncated'] = mean(contextTruncated);
    const names = this.termNames;
    names.forEach((name, k) => (metrics[`rewards/${name}`] = mean(Array.from({ length: rows }, (_, r) => batch.termSums[r * names.length + k]!))));
    return { ...tokens, rewards: batch.returns, steps, metrics, episodes: episodesOf(batch), samples: samplesOf(batch, dialogues, names), turnRewards, ...(tokenEntropy ? { tokenEntropy } : {}) };
  }

  async demonstrations(count: number, rng: Rng, model?: LanguageModel): Promise<TokenRows> {
    const dialogues = Array.from({ length: count }, () => this.env.start(new Rng(rng.uint32())));
    if (!dialogues.every((d) => d.expert)) throw new Error(`${this.env.description} has no demonstrations (its dialogues have no expert); SFT cannot train on it`);
    if (model && isPretrained(model)) return chatTrainingRows(await this.chatDialogues(dialogues, model, { expert: true }), model);
    return dialogueTrainingRows(await runDialogues(dialogues, this.tokenizer, this.layout, { expert: true }), this.layout);
  }

  async evaluate(model: TokenSampler, limit?: number): Promise<TextEvalOutcome> {
    const all = this.env.evaluationDialogues().slice(0, limit);
    const returns: number[] = [];
    const lengths: number[] = [];
    const samples: SampleRecord[] = [];
    let successes = 0;
    let reports = false;
    for (let start = 0; start < all.length; start += EVAL_BATCH) {
      const dialogues = all.slice(start, start + EVAL_BATCH);
      const batch = 'kind' in model && isPretrained(model)
        ? await this.chatDialogues(dialogues, model, { greedy: true, temperature: 1 })
        : await runDialogues(dialogues, this.tokenizer, this.layout, { step: await (model as Pick<TokenModel, 'decoder'>).decoder(dialogues.length), vocab: this.tokenizer.size, options: { temperature: 1, greedy: true } }, this.reward);
      returns.push(...batch.returns);
      lengths.push(...batch.turns);
      samples.push(...samplesOf(batch, dialogues, this.termNames));
      successes += batch.success.reduce((a, b) => a + b, 0);
      reports ||= batch.reportsSuccess;
    }
    const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const m = mean(returns);
    const values: Record<string, number> = {
      'eval/mean_return': m,
      'eval/std_return': Math.sqrt(mean(returns.map((r) => (r - m) ** 2))),
      'eval/mean_length': mean(lengths),
    };
    if (reports) values['eval/success'] = successes / all.length;
    const message = reports
      ? `held-out success ${(100 * values['eval/success']!).toFixed(1)}% (${all.length} dialogues, ${values['eval/mean_length']!.toFixed(2)} turns on average)`
      : `held-out mean return ${m.toFixed(3)} (${all.length} dialogues)`;
    return { values, returns, lengths, message, samples };
  }
}

/** Each dialogue of a batch as the rollout inspector shows it: its messages with their roles (from the system prompt or the opening), reward, terms, success. */
function samplesOf(batch: DialogueOutcomes, dialogues: readonly Dialogue[], names: readonly string[]): SampleRecord[] {
  const termsOf = (r: number) => Object.fromEntries(names.map((name, k) => [name, batch.termSums[r * names.length + k]!]));
  return batch.transcripts.map((transcript, r) => ({
    start: dialogues[r]!.opening,
    turns: transcript,
    reward: batch.returns[r]!,
    ...(names.length > 0 ? { terms: termsOf(r) } : {}),
    ...(batch.reportsSuccess ? { success: batch.success[r] === 1 } : {}),
  }));
}

function episodesOf(batch: DialogueOutcomes): EpisodeRecord[] {
  return Array.from({ length: batch.rows }, (_, r) => ({
    env: r,
    return: batch.returns[r]!,
    length: batch.turns[r]!,
    ...(batch.reportsSuccess ? { success: batch.success[r] === 1 } : {}),
  }));
}
