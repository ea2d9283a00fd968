// Multi-turn text environments (GuessNumber, a user's text module): the env opens a dialogue,
// the agent writes a turn, the env answers with a message, a reward and whether the dialogue
// ended, and so on for at most `maxTurns` agent turns. The dialogue so far is the agent's
// context; it learns from its own turns only (the env's messages are read, not learned).
//
// Dialogues are laid out on a fixed token grid, so that a batch of them advances in lockstep
// with one key/value cache, and training reads every token at the position it was sampled at:
//
//   [PAD .. BOS opening][agent turn 1: A slots][env reply: E slots][agent turn 2] ... [agent turn K]
//
// An agent turn is its characters, EOS, then PAD (A = longest turn + 1); an env reply is its
// characters then PAD. Once a dialogue ends, the rest of its row is PAD and nothing there is
// trained on. The grid is the single-turn layout (policies/transformer/layout.ts) repeated.
import type { Rng } from '../../shared/random.js';
import type { DialogueMessage, TokenRows, TurnRewards } from './text-env.js';

export type { DialogueMessage, DialogueRole } from './text-env.js';
import { BOS, EOS, PAD, type CharTokenizer } from '../policies/transformer/char-tokenizer.js';
import type { DecodeStep, SampleOptions } from '../policies/transformer/sampling.js';
import { choose } from '../lm/sampling.js';
import { DialogueReward, type TurnResult } from './dialogue-reward.js';

export type { TurnResult } from './dialogue-reward.js';

/** One dialogue (an episode). */
export interface Dialogue {
  /** The env's opening message. */
  readonly opening: string;
  /**
   * The opening as chat messages, where the env gave a list of them (a Python text env's
   * system and user messages): what a pretrained model reads through its chat template. The
   * character-level model reads `opening`, their contents joined by newlines.
   */
  readonly openingMessages?: readonly DialogueMessage[];
  turn(agentText: string): TurnResult;
  /** A good next agent turn, where the env knows one (demonstrations for SFT). */
  expert?(): string;
}

/** A multi-turn text environment: it starts dialogues, and bounds what they may contain. */
export interface DialogueEnv {
  /** The env as the plan writes it, for hparams and metadata. */
  readonly description: string;
  /** Every character the env writes or the agent may write. */
  readonly alphabet: string;
  /** Agent turns before a dialogue is cut (truncated). */
  readonly maxTurns: number;
  /** Longest opening, env reply and agent turn, in characters. */
  readonly maxOpening: number;
  readonly maxReply: number;
  readonly maxTurnLength: number;
  /** A dialogue drawn with `rng` (the same draws give the same dialogue: a group shares one). */
  start(rng: Rng): Dialogue;
  /** Fresh dialogues for evaluation: the same ones for every run and seed. */
  evaluationDialogues(): Dialogue[];
}

/** Widths of the dialogue grid. */
export interface DialogueLayout {
  /** W: BOS and the longest opening. */
  readonly openingWidth: number;
  /** A: the longest agent turn and its EOS. */
  readonly turnSlots: number;
  /** E: the longest env reply. */
  readonly replySlots: number;
  /** K: agent turns. */
  readonly turns: number;
}

export function dialogueLayout(env: DialogueEnv): DialogueLayout {
  return { openingWidth: env.maxOpening + 1, turnSlots: env.maxTurnLength + 1, replySlots: env.maxReply, turns: env.maxTurns };
}

/** Tokens of a whole grid row: the opening, K turns and the K - 1 replies between them. */
export const gridWidth = (l: DialogueLayout): number => l.openingWidth + l.turns * l.turnSlots + (l.turns - 1) * l.replySlots;

/** Where agent turn k (from 0) starts in a row. */
export const turnStart = (l: DialogueLayout, k: number): number => l.openingWidth + k * (l.turnSlots + l.replySlots);


/** What dialogues run to their end came to, however they were laid out for training. */
export interface DialogueOutcomes {
  readonly rows: number;
  /** Sum of the rewards (the env's, with or replaced by the reward terms), agent turns taken, and whether the goal was reached, per row. */
  readonly returns: Float64Array;
  /** Each agent turn's reward [rows, maxTurns] (0 after a row's last turn): per-turn credit's return-to-go (turn-credit.ts). */
  readonly turnRewards: Float64Array;
  /** Each reward term summed over a row's turns [rows, terms] (DialogueReward.termNames; empty without terms). */
  readonly termSums: Float64Array;
  readonly turns: Int32Array;
  readonly success: Uint8Array;
  /** Whether any dialogue reported success at all (envs without a goal never do). */
  readonly reportsSuccess: boolean;
  /** The dialogue as the agent read it, message by message from the opening (a pretrained model's: also its system prompt), per row. */
  readonly transcripts: readonly (readonly DialogueMessage[])[];
}

/** Dialogues run to their end on the grid. */
export interface DialogueBatch extends DialogueOutcomes {
  /** Token ids [rows, gridWidth]. */
  readonly grid: Int32Array;
  /** 1 where the grid holds a token the agent wrote (characters and EOS) [rows, gridWidth]. */
  readonly agentTokens: Uint8Array;
}

/**
 * A policy that writes agent turns: the model's sampler (`step`, stepped in lockstep over the
 * grid, one position per call), or a scripted expert for demonstrations.
 */
export type TurnWriter = { readonly step: DecodeStep; readonly vocab: number; readonly options: SampleOptions } | { readonly expert: true };

/**
 * Runs `dialogues` (one per row) to their end: the agent's turns are sampled from `writer` at
 * their grid positions, each env reply written into the grid before the model reads it. Each
 * turn's reward is `reward`'s (the env's own, with or replaced by the plan's terms).
 */
export async function runDialogues(dialogues: readonly Dialogue[], tokenizer: CharTokenizer, layout: DialogueLayout, writer: TurnWriter, reward = DialogueReward.none()): Promise<DialogueBatch> {
  const rows = dialogues.length;
  const T = gridWidth(layout);
  const { openingWidth: W, turnSlots: A, replySlots: E } = layout;
  const grid = new Int32Array(rows * T).fill(PAD);
  const agentTokens = new Uint8Array(rows * T);
  const returns = new Float64Array(rows);
  const turnRewards = new Float64Array(rows * layout.turns);
  const terms = reward.termNames.length;
  const termSums = new Float64Array(rows * terms);
  const turns = new Int32Array(rows);
  const success = new Uint8Array(rows);
  let reportsSuccess = false;
  const transcripts = dialogues.map((d): DialogueMessage[] => [['user', d.opening]]);
  const active = new Uint8Array(rows).fill(1);
  const ended = new Uint8Array(rows); // this turn's EOS is written
  let running = rows;

  dialogues.forEach((d, r) => {
    const ids = tokenizer.encode(d.opening, { bos: true, where: `the env's opening ${JSON.stringify(d.opening)}` });
    if (ids.length > W) throw new Error(`the env's opening ${JSON.stringify(d.opening)} is longer than the ${W - 1} characters it declared`);
    grid.set(ids, r * T + W - ids.length);
  });

  /** Ends turn k of every active row: the env answers; its reply goes into the grid. */
  const endTurn = (k: number) => {
    const start = turnStart(layout, k);
    for (let r = 0; r < rows; r++) {
      if (!active[r]) continue;
      const text = tokenizer.decode(grid.subarray(r * T + start, r * T + start + A));
      const result = dialogues[r]!.turn(text);
      const prompt = transcripts[r]!.map(([, message]) => message).join('\n');
      const truncated = !result.done && k === layout.turns - 1;
      transcripts[r]!.push(['assistant', text]);
      turns[r]++;
      const turnReward = reward.score({ prompt, completion: text, result, t: k, truncated }, termSums, r * terms);
      turnRewards[r * layout.turns + k] = turnReward;
      returns[r] += turnReward;
      if (result.success !== undefined) reportsSuccess = true;
      if (result.success) success[r] = 1;
      ended[r] = 0;
      if (result.done || k === layout.turns - 1) {
        active[r] = 0;
        running--;
        continue;
      }
      transcripts[r]!.push(['user', result.observation]);
      const reply = tokenizer.encode(result.observation, { where: `the env's reply ${JSON.stringify(result.observation)}` });
      if (reply.length > E) throw new Error(`the env's reply ${JSON.stringify(result.observation)} is longer than the ${E} characters it declared`);
      grid.set(reply, r * T + start + A);
    }
  };

  if ('expert' in writer) {
    for (let k = 0; k < layout.turns && running > 0; k++) {
      const start = turnStart(layout, k);
      for (let r = 0; r < rows; r++) {
        if (!active[r]) continue;
        const expert = dialogues[r]!.expert;
        if (!expert) throw new Error('this env has no demonstrations (its dialogues have no expert turn)');
        const ids = tokenizer.encode(expert.call(dialogues[r]), { eos: true, where: 'an expert turn' });
        if (ids.length > A) throw new Error(`an expert turn is longer than the ${A - 1} characters a turn may have`);
        grid.set(ids, r * T + start);
        agentTokens.fill(1, r * T + start, r * T + start + ids.length);
      }
      endTurn(k);
    }
  } else {
    const { step, vocab, options } = writer;
    const tokens = new Int32Array(rows);
    for (let t = 0; t < T - 1 && running > 0; t++) {
      for (let r = 0; r < rows; r++) tokens[r] = grid[r * T + t]!;
      const logits = await step(tokens, t);
      const next = t + 1;
      const k = Math.floor((next - W) / (A + E));
      const slot = next - W - k * (A + E); // < A: an agent slot of turn k
      if (next < W || slot >= A) continue;
      for (let r = 0; r < rows; r++) {
        if (!active[r] || ended[r]) continue;
        // repetition_penalty reads the row's grid so far (the dialogue's earlier turns and the env's replies included).
        const token = choose(logits, r * vocab, vocab, options.greedy, options.temperature, options.rng, options.controls, () => grid.subarray(r * T, r * T + next));
        // The last slot holds only an EOS: a turn that reaches it unfinished is cut there.
        if (token === EOS || slot < A - 1) {
          grid[r * T + next] = token === BOS || token === PAD ? EOS : token;
          agentTokens[r * T + next] = 1;
          options.statistics?.record(r, next, logits, r * vocab, vocab, options.temperature, token);
        }
        if (token === EOS || token === BOS || token === PAD || slot === A - 1) ended[r] = 1;
      }
      if (slot === A - 1) endTurn(k);
    }
  }
  return { rows, grid, agentTokens, returns, turnRewards, termSums, turns, success, reportsSuccess, transcripts };
}

/** Training rows of a batch: what the model reads, each position's next token, and 1 where that token is the agent's. */
export function dialogueTrainingRows(batch: DialogueBatch, layout: DialogueLayout): TokenRows {
  const T = gridWidth(layout);
  const width = T - 1;
  const { rows, grid, agentTokens } = batch;
  const tokens = new BigInt64Array(rows * width);
  const targets = new BigInt64Array(rows * width);
  const mask = new Float32Array(rows * width);
  const perRow = new Int32Array(rows);
  let tokenCount = 0;
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < width; i++) {
      tokens[r * width + i] = BigInt(grid[r * T + i]!);
      targets[r * width + i] = BigInt(grid[r * T + i + 1]!);
      if (agentTokens[r * T + i + 1]) {
        mask[r * width + i] = 1;
        perRow[r]++;
      }
    }
    tokenCount += perRow[r]!;
  }
  return { rows, width, tokens, targets, mask, tokenCount, perRow };
}

/** A grid batch's rewards turn by turn, and the turn of each learned position of its training rows (dialogueTrainingRows). */
export function dialogueTurnRewards(batch: DialogueBatch, layout: DialogueLayout, rows: TokenRows): TurnRewards {
  const { openingWidth: W, turnSlots: A, replySlots: E } = layout;
  const tokenTurn = new Int32Array(rows.rows * rows.width).fill(-1);
  for (let r = 0; r < rows.rows; r++) {
    for (let i = 0; i < rows.width; i++) {
      // Position i learns grid token i + 1, which lies in turn k's slots.
      if (rows.mask[r * rows.width + i]) tokenTurn[r * rows.width + i] = Math.floor((i + 1 - W) / (A + E));
    }
  }
  return { maxTurns: layout.turns, rewards: batch.turnRewards, taken: batch.turns, tokenTurn };
}
