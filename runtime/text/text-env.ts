// What the text learners (SFT, GRPO, REINFORCE on text) and the trainer's text workload need of
// a text environment, whether it is single-turn (TextTask: a prompt, one completion, a verdict;
// env.ts) or multi-turn (GuessNumber, a user's text module: a dialogue; dialogue-env.ts):
//
// - rollouts(): groups of samples from the model, each group from one start (a prompt, or the
//   same dialogue start), scored, laid out as token rows with the agent's tokens marked;
// - demonstrations(): token rows of correct answers, for SFT;
// - evaluate(): greedy samples on the held-out starts.
//
// Learners see token rows only, so one learner serves both kinds.
import type { EpisodeRecord } from '../envs/records.js';
import type { LanguageModel, TokenModel } from '../policies/index.js';
import type { PretrainedPolicy } from '../policies/pretrained.js';
import type { Feed } from '../tensor/index.js';
import type { Rng } from '../../shared/random.js';
import type { CharTokenizer } from '../policies/transformer/char-tokenizer.js';
import type { SamplingControls } from '../lm/sampling.js';

/**
 * Who says a message, in a chat template's words: the env is the user and the agent the
 * assistant (for every policy, so the rollout inspector reads both kinds alike); a pretrained
 * model's system prompt is the system.
 */
export type DialogueRole = 'system' | 'user' | 'assistant';
export type DialogueMessage = readonly [role: DialogueRole, text: string];

/** Token rows for training: what the model reads, each position's next token, and 1 where that token is the agent's to learn. */
export interface TokenRows {
  readonly rows: number;
  /** Tokens per row (T). */
  readonly width: number;
  readonly tokens: BigInt64Array;
  readonly targets: BigInt64Array;
  readonly mask: Float32Array;
  /** Learned tokens over all rows, and per row. */
  readonly tokenCount: number;
  readonly perRow: Int32Array;
  /** Inputs the model's training graph reads besides the tokens (a pretrained model's positions and attention mask). */
  readonly modelFeeds?: Readonly<Record<string, Feed>>;
}

/** One sample as the rollout inspector shows it. */
export interface SampleRecord {
  /** The start it was sampled from: the prompt, or the dialogue's opening. */
  readonly start: string;
  /**
   * Single-turn, a pretrained model: the prompt as the model read it (through its chat template,
   * cut to the prompt limit, special tokens written out), decoded from its tokens. Absent where
   * the model read `start` itself (the character-level transformer).
   */
  readonly prompt?: string;
  /** Single-turn: the task's target and the completion. */
  readonly target?: string;
  readonly text?: string;
  /** Dialogues: every message as the agent read it, [role, text], from the system prompt (a pretrained model's, where set) or the opening. */
  readonly turns?: readonly DialogueMessage[];
  readonly reward: number;
  /** Each reward term's value (single-turn tasks: with a reward declaration, or `exact`; dialogues: summed over the turns, with a reward declaration). */
  readonly terms?: Readonly<Record<string, number>>;
  /** Exact match (single-turn), or whether the dialogue reached its goal. */
  readonly correct?: boolean;
  readonly success?: boolean;
}

/**
 * What single-turn completions wrote, for the learners' overlong settings: each one's tokens
 * without its end (EOS or stop id), and 1 where it reached `max` tokens without ending (cut).
 */
export interface CompletionLengths {
  readonly lengths: Int32Array;
  readonly truncated: Uint8Array;
  /** The longest completion the batch was sampled with: max_new_tokens, at most the env's max_tokens. */
  readonly max: number;
}

/** Sampled groups, scored. */
export interface Rollouts extends TokenRows {
  /** Each row as text, for the rollout inspector. */
  readonly samples: readonly SampleRecord[];
  /** Each row's return: the sum of its reward terms (single-turn) or of the env's rewards (dialogues). */
  readonly rewards: Float64Array;
  /** Env steps the batch took: completions, or agent turns of dialogues. */
  readonly steps: number;
  /** Means over the batch: `rewards/<term>`, `train/accuracy` or `train/success`, `train/completion_length`, ... */
  readonly metrics: Record<string, number>;
  /** Dialogues that ended (none for single-turn tasks, whose completions are not episodes). */
  readonly episodes: readonly EpisodeRecord[];
  /** Single-turn tasks: each completion's length and whether it was cut (dialogues have none: a dialogue's turns end on their own terms). */
  readonly completions?: CompletionLengths;
  /** Dialogues: each agent turn's reward and the turn each learned token was written in, for per-turn credit (algorithms/text/turn-credit.ts); none for single-turn tasks. */
  readonly turnRewards?: TurnRewards;
  /**
   * [rows, width]: at each learned position, the entropy of the distribution its token was
   * sampled from (pi_old at the sampling temperature; lm/token-statistics.ts), 0 elsewhere.
   * Every env here records it (single-turn and dialogue, either kind of model); optional for
   * rollouts built elsewhere.
   */
  readonly tokenEntropy?: Float32Array;
  /**
   * [rows, width]: at each learned position, the log-probability its token had in the
   * distribution the sampler drew it from (as tokenEntropy, the same statistics), 0 elsewhere;
   * single-turn tasks record it (GRPO's sampler_correction).
   */
  readonly tokenSamplerLogProb?: Float32Array;
}

/** A batch of dialogues turn by turn: what per-turn credit needs. */
export interface TurnRewards {
  /** K: the most agent turns a dialogue may take (the row stride of `rewards`). */
  readonly maxTurns: number;
  /** Turn k's reward, as it is summed into the row's return [rows, K]; 0 past a row's last turn. */
  readonly rewards: Float64Array;
  /** Agent turns each row took. */
  readonly taken: Int32Array;
  /** The turn (from 0) of the token learned at each position [rows, width], -1 where no token is learned. */
  readonly tokenTurn: Int32Array;
}

/** A prompt longer than `tokens` is cut at `side`: 'left' keeps its end (TRL's default truncation side). */
export interface PromptLimit {
  readonly tokens: number;
  readonly side: 'left' | 'right';
}

export interface RolloutOptions {
  /** Starts (prompts) per batch, and samples per start. */
  readonly groups: number;
  readonly groupSize: number;
  /** Draws the starts, and the tokens. */
  readonly startRng: Rng;
  readonly sampleRng: Rng;
  readonly temperature: number;
  /**
   * top_k, top_p, min_p, repetition_penalty and stop strings (lm/sampling.ts). The learners'
   * log-probabilities stay those of softmax(logits / temperature), as TRL computes them.
   */
  readonly sampling?: SamplingControls;
  /** Prompts longer than this, in a pretrained model's tokens, are cut at its side before sampling (single-turn; TRL's max_prompt_length). */
  readonly promptLimit?: PromptLimit;
  /** Longest completion sampled, where the env lets the learner choose (single-turn). */
  readonly maxNewTokens?: number;
  /**
   * Record each sampled token's distribution statistics (Rollouts.tokenEntropy), as GRPO's
   * entropy_top_fraction needs. A TextTask whose reward reads the intrinsic names records them
   * anyway; otherwise sampling does exactly what it did without them.
   */
  readonly tokenStatistics?: boolean;
}

/** An evaluation on the held-out starts, as the trainer writes it into an `eval` event. */
export interface TextEvalOutcome {
  readonly values: Record<string, number>;
  readonly returns: readonly number[];
  readonly lengths: readonly number[];
  readonly message: string;
  /** Each held-out start's greedy sample, in order (the final policy's answers in rollouts/). */
  readonly samples: readonly SampleRecord[];
}

/** What evaluation needs of a model: the training one, or one loaded from its file (rlx eval); or a pretrained model. */
export type TokenSampler = Pick<TokenModel, 'generate' | 'decoder'> | PretrainedPolicy;

export interface TextEnv {
  readonly tokenizer: CharTokenizer;
  /** For hparams: the env kind and its task, as the plan writes them. */
  readonly description: Readonly<{ env: string; task: string }>;
  /** Names of the reward terms a sample's `terms` carry (none for a dialogue without a reward declaration: the env's own reward). */
  readonly termNames: readonly string[];
  /** For the exported model's metadata: what `rlx eval` needs to run it again. */
  readonly policyFields: Readonly<Record<string, unknown>>;
  /** Token rows' width (T) for samples of up to `maxNewTokens` tokens where the env lets the learner choose (the character-level layout; a model with `variableRows` gets rows as wide as each batch needs). */
  rowWidth(maxNewTokens?: number): number;
  /** Throws a message saying what to change when a model of `context` tokens cannot hold this env's rows. */
  checkFits(context: number, where: string): void;
  rollouts(model: LanguageModel, options: RolloutOptions): Promise<Rollouts>;
  /** `count` demonstrations drawn with `rng` (never from held-out starts). */
  demonstrations(count: number, rng: Rng, model?: LanguageModel): Promise<TokenRows>;
  /** Greedy samples on the held-out starts (the first `limit` of them, where given: rlx eval --episodes). */
  /** `sampling`: the learner's controls; greedy decoding reads its stop strings and repetition_penalty. */
  evaluate(model: TokenSampler, limit?: number, sampling?: SamplingControls): Promise<TextEvalOutcome>;
  /** Releases what the env runs (a reward's or a Python text env's worker processes); harmless twice. */
  close?(): void;
}
