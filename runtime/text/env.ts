// A single-turn text environment (TextTask): the task, its tokenizer, the longest completion,
// the token layout, and the reward of a completion; as a TextEnv (text-env.ts), its rollouts
// are groups of completions of one prompt, its demonstrations the task's own targets, and its
// evaluation greedy completions of the held-out prompts.
//
// A TextTask has no reward of its own: what a completion earns is the experiment's reward
// terms (their verifiers read `prompt`, `completion`, `target`). An experiment that declares
// no reward trains on exact match, exact(completion, target). Each term's value is kept, so
// learners can log them one by one.
import type { Plan } from '../../dsl/compile/plan.js';
import { PYTHON_TEXT_ENV_KIND } from '../../dsl/schema/python-text-env.js';
import type { LanguageModel, TokenModel } from '../policies/index.js';
import { isPretrained, type PretrainedPolicy } from '../policies/pretrained.js';
import { checkFits, completeTexts, completionLength, encodeCompletion, encodePrompts, sequenceWidth, textLayout, trainingRows, type TextLayout } from '../policies/transformer/layout.js';
import type { Rng } from '../../shared/random.js';
import { compileReward, type CompiledReward } from '../rewards/index.js';
import type { PythonRewardFunctions } from '../rewards/python-rewards.js';
import { textTaskConfig, type TextTaskOptions } from './config.js';
import { evaluateText } from './evaluate.js';
import { taskTokenizer, type TextExample, type TextTask } from './task.js';
import type { CompletionLengths, PromptLimit, RolloutOptions, Rollouts, SampleRecord, TextEnv, TextEvalOutcome, TokenRows, TokenSampler } from './text-env.js';
import { EOS, PAD, type CharTokenizer } from '../policies/transformer/char-tokenizer.js';
import { exact } from '../rewards/verifiers.js';
import { tokenRows } from './token-rows.js';
import { SampledTokenStatistics, type TokenStatistics } from '../lm/token-statistics.js';
import { setIntrinsic } from '../rewards/intrinsic-rewards.js';
import { StopStrings, type SamplingControls } from '../lm/sampling.js';

/** Prompts per batch when evaluating. */
const EVAL_BATCH = 128;

/** What one completion earned: the total and each term (in `termNames` order). */
export interface CompletionScore {
  readonly total: number;
  readonly terms: readonly number[];
}

export class TextEnvironment implements TextEnv {
  readonly tokenizer: CharTokenizer;
  /** Prompt width and completion slots for completions of up to `maxTokens` characters. */
  readonly layout: TextLayout;
  /** The reward's term names (`exact` when the plan declares no reward). */
  readonly termNames: readonly string[];
  readonly description: Readonly<{ env: string; task: string }>;
  readonly policyFields: Readonly<Record<string, unknown>>;
  /** The reward reads self_certainty, neg_entropy or logprob: every sample records its tokens' statistics. */
  private readonly intrinsic: boolean;

  constructor(
    readonly task: TextTask,
    /** Longest completion, in characters (TextTask's max_tokens). */
    readonly maxTokens: number,
    private readonly reward: CompiledReward | null,
  ) {
    this.tokenizer = taskTokenizer(task);
    this.layout = textLayout(task.maxPromptLength, maxTokens);
    this.termNames = reward ? reward.termNames : ['exact'];
    this.intrinsic = reward?.intrinsic ?? false;
    this.description = { env: 'TextTask', task: task.description };
    this.policyFields = { task: task.description, layout: { prompt_width: this.layout.promptWidth, completion_slots: this.layout.completionSlots } };
  }

  /** The env of a plan whose env is a TextTask; errors name the param or the reward term. */
  static fromPlan(plan: Plan, options: TextTaskOptions = {}): TextEnvironment {
    const { task, max_tokens, python, reward_timeout, code_timeout, code_memory } = textTaskConfig(plan.env.params, options);
    const reward = plan.reward ? compileReward(plan.reward, { kind: plan.env.kind, obsFields: [], actionSpace: { kind: 'discrete', n: 1 }, text: true }) : null;
    reward?.python.configure({ baseDir: options.baseDir, python, timeoutSeconds: reward_timeout });
    reward?.code?.configure({ python, seconds: code_timeout, memoryMb: code_memory });
    return new TextEnvironment(task, max_tokens, reward);
  }

  /**
   * The reward of `completion` for `example`; `sampled` holds the means of its tokens' sampling
   * statistics, which the intrinsic reward names read (0 where not given).
   */
  score(example: TextExample, completion: string, sampled?: TokenStatistics): CompletionScore {
    if (!this.reward) {
      const value = exact(completion, example.target);
      return { total: value, terms: [value] };
    }
    const c = this.reward.context;
    c.prompt = example.prompt;
    c.target = example.target;
    c.completion = completion;
    c.row = example.row;
    c.rowWhere = this.rowWhere(example);
    setIntrinsic(c, sampled);
    const total = this.reward.evaluate();
    return { total, terms: [...this.reward.values] };
  }

  /** An example's row in words, for errors: `./data.jsonl line 12`. */
  private rowWhere(example: TextExample): string {
    const file = this.task.rows?.file;
    return file !== undefined && example.line !== undefined ? `${file} line ${example.line}` : `the example ${JSON.stringify(example.prompt.slice(0, 40))}`;
  }

  /**
   * Scores `texts` (completion r of example examples[floor(r / G)], its token ids `ids[r]`) with
   * the reward's python() functions, one call each for the whole batch, before any is evaluated;
   * then evaluate() reads completion r's values after selectPython(r). Nothing when the reward has none.
   */
  private scorePython(examples: readonly TextExample[], texts: readonly string[], ids: readonly (readonly number[])[], G: number): void {
    if (!this.reward || this.reward.python.size === 0) return;
    this.reward.python.score(texts.map((completion, r) => {
      const example = examples[Math.floor(r / G)]!;
      return { prompt: example.prompt, ...(example.messages ? { messages: example.messages } : {}), completion, completionIds: ids[r]!, ...(example.row ? { row: example.row } : {}), where: this.rowWhere(example) };
    }));
  }

  /**
   * Runs the code of a batch's completions against their tests (the reward's passes() calls), all
   * at once, before any is scored: the reward is evaluated once to collect the cases (python()
   * values selected as for scoring), then scored with their results. Nothing when no term calls passes().
   */
  private scoreCode(examples: readonly TextExample[], texts: readonly string[], G: number): void {
    const code = this.reward?.code;
    if (!code) return;
    code.collect(() => texts.forEach((text, r) => {
      this.reward!.selectPython(r);
      this.score(examples[Math.floor(r / G)]!, text);
    }));
  }

  /** The reward's python() functions (none: size 0). */
  get rewardFunctions(): PythonRewardFunctions | undefined {
    return this.reward?.python;
  }

  /** Releases the reward's Python worker, if it started one. */
  close(): void {
    this.reward?.python.close();
  }

  /** The layout of completions of up to `maxNewTokens` characters (at most the task's max_tokens). */
  private layoutFor(maxNewTokens: number | undefined): TextLayout {
    return maxNewTokens === undefined ? this.layout : textLayout(this.task.maxPromptLength, Math.min(this.maxTokens, maxNewTokens));
  }

  rowWidth(maxNewTokens?: number): number {
    return sequenceWidth(this.layoutFor(maxNewTokens));
  }

  checkFits(context: number, where: string): void {
    checkFits(this.layout, context, where);
  }

  /**
   * Refuses a dataset target longer than max_tokens in `count`'s tokens (a pretrained model's):
   * no completion could write it. Generated tasks' targets are a few ASCII characters, at most
   * one token each, and were held to max_tokens in characters already.
   */
  checkTargetTokens(count: (text: string) => number, where: string): void {
    // A target shorter in characters may still have more tokens: every one is counted.
    let longest = { tokens: 0, target: '' };
    for (const target of this.task.targets?.() ?? []) {
      const tokens = count(target);
      if (tokens > longest.tokens) longest = { tokens, target };
    }
    if (longest.tokens > this.maxTokens) {
      const shown = JSON.stringify(longest.target.length > 40 ? longest.target.slice(0, 40) + '…' : longest.target);
      throw new Error(`TextTask: max_tokens is ${this.maxTokens}, but ${this.task.description} has targets of up to ${longest.tokens} tokens of ${where} (${shown}), which no completion could reach; raise max_tokens to at least ${longest.tokens}`);
    }
  }

  async rollouts(model: LanguageModel, o: RolloutOptions): Promise<Rollouts> {
    if (isPretrained(model)) return this.pretrainedRollouts(model, o);
    return this.characterRollouts(model as TokenModel, o);
  }

  /** Samples of a pretrained model: its own tokens, prompts through its chat template, completions up to its EOS or max_tokens tokens. */
  private async pretrainedRollouts(model: PretrainedPolicy, o: RolloutOptions): Promise<Rollouts> {
    const G = o.groupSize;
    const rows = o.groups * G;
    const examples = Array.from({ length: o.groups }, () => this.task.sample(o.startRng));
    const prompts = examples.flatMap((e) => Array<number[]>(G).fill(truncated(encodeExample(model, e, this.task.description), o.promptLimit)));
    const maxNewTokens = Math.min(this.maxTokens, o.maxNewTokens ?? this.maxTokens);
    const statistics = this.statisticsFor(o, rows, maxNewTokens);
    const completions = await model.complete(prompts, { maxNewTokens, greedy: false, temperature: o.temperature, rng: o.sampleRng, statistics, ...(o.sampling ? { controls: o.sampling } : {}) });
    const texts = completions.map((ids) => model.decodeCompletion(ids));
    const stops = new Set(model.stopIds);
    const withoutStop = completions.map((ids) => (ids.length > 0 && stops.has(ids[ids.length - 1]!) ? ids.slice(0, -1) : ids));
    const scored = this.scoreSamples(examples, texts, G, statistics, examples.map((_, g) => model.decodePrompt(prompts[g * G]!)), withoutStop);
    const batch = tokenRows(prompts, completions, model.padId);
    const tokens = completions.reduce((sum, ids) => sum + ids.length, 0);
    const ended = completions.map((ids) => ids.length > 0 && stops.has(ids[ids.length - 1]!));
    const lengths = { lengths: Int32Array.from(completions, (ids, r) => ids.length - (ended[r] ? 1 : 0)), truncated: Uint8Array.from(ended, (e, r) => (!e && completions[r]!.length >= maxNewTokens ? 1 : 0)), max: maxNewTokens };
    // Completion token k is the target of position W - 1 + k, W the batch's prompt width.
    const shift = batch.width - Math.max(1, ...completions.map((c) => c.length));
    const tokenEntropy = statistics?.entropyAtPositions(batch.width, shift);
    const tokenSamplerLogProb = statistics?.logProbAtPositions(batch.width, shift);
    return { ...batch, modelFeeds: model.rowFeeds(batch.starts, batch.width), ...scored, steps: rows, metrics: { ...scored.metrics, 'train/completion_length': tokens / rows }, episodes: [], completions: lengths, ...(tokenEntropy ? { tokenEntropy, tokenSamplerLogProb } : {}) };
  }

  /** Whether the reward reads the tokens' sampling statistics (self_certainty, neg_entropy, logprob): every sample records them. */
  get rewardReadsTokenStatistics(): boolean {
    return this.intrinsic;
  }

  /** A sink for the tokens' sampling statistics where the learner or the reward reads them (else none: sampling as without them). */
  private statisticsFor(o: RolloutOptions, rows: number, slots: number): SampledTokenStatistics | undefined {
    return o.tokenStatistics || this.intrinsic ? new SampledTokenStatistics(rows, slots) : undefined;
  }

  /** Rewards, each term and exact-match accuracy of completions (rows in groups of G per example), with the samples for the inspector. */
  private scoreSamples(examples: readonly TextExample[], texts: readonly string[], G: number, statistics: SampledTokenStatistics | undefined, read: readonly string[] | undefined, ids: readonly (readonly number[])[]): Pick<Rollouts, 'rewards' | 'samples' | 'metrics'> {
    const rows = texts.length;
    const rewards = new Float64Array(rows);
    const termSums = new Float64Array(this.termNames.length);
    // A term a python() function did not score (None) is left out of its mean, as of the total.
    const termCounts = new Float64Array(this.termNames.length);
    let unscored = 0;
    let correct = 0;
    let characters = 0;
    const samples: SampleRecord[] = [];
    this.scorePython(examples, texts, ids, G);
    this.scoreCode(examples, texts, G);
    for (let r = 0; r < rows; r++) {
      const example = examples[Math.floor(r / G)]!;
      const text = texts[r]!;
      this.reward?.selectPython(r);
      const score = this.score(example, text, statistics?.means(r));
      rewards[r] = score.total;
      score.terms.forEach((v, k) => {
        if (Number.isNaN(v) && this.reward?.pythonTerms[k]) return;
        termSums[k] += v;
        termCounts[k]++;
      });
      if (score.terms.length > 0 && score.terms.every((v, k) => Number.isNaN(v) && this.reward?.pythonTerms[k])) unscored++;
      const right = exact(text, example.target);
      correct += right;
      characters += [...text].length;
      const terms = scoredTerms(this.termNames, score.terms);
      const prompt = read?.[Math.floor(r / G)];
      samples.push({ start: example.prompt, ...(prompt !== undefined ? { prompt } : {}), target: example.target, text, reward: score.total, terms, correct: right === 1 });
    }
    const mean = (x: number) => x / rows;
    const metrics: Record<string, number> = {
      'rewards/total': mean(rewards.reduce((a, b) => a + b, 0)),
      'train/mean_reward': mean(rewards.reduce((a, b) => a + b, 0)),
      'train/accuracy': mean(correct),
      'train/completion_length': mean(characters),
      'charts/completions': rows,
    };
    this.termNames.forEach((name, k) => {
      if (termCounts[k]! > 0) metrics[`rewards/${name}`] = termSums[k]! / termCounts[k]!;
    });
    // The fraction of completions that no term scored (every python() function said None): their reward is 0.
    if (this.reward?.pythonTerms.some(Boolean)) metrics['rewards/unscored'] = mean(unscored);
    return { rewards, samples, metrics };
  }

  private async characterRollouts(model: TokenModel, o: RolloutOptions): Promise<Rollouts> {
    const G = o.groupSize;
    const rows = o.groups * G;
    const layout = this.layoutFor(o.maxNewTokens);
    const examples = Array.from({ length: o.groups }, () => this.task.sample(o.startRng));
    const prompts = encodePrompts(this.tokenizer, examples.flatMap((e) => Array<string>(G).fill(e.prompt)), layout);
    const N = layout.completionSlots;
    const statistics = this.statisticsFor(o, rows, N);
    const slots = await model.generate(prompts, rows, layout.promptWidth, N, {
      temperature: o.temperature, greedy: false, rng: o.sampleRng, ...(statistics ? { statistics } : {}), ...(o.sampling ? { controls: o.sampling, ...this.characterStops(o.sampling) } : {}),
    });

    const texts = Array.from({ length: rows }, (_, r) => this.tokenizer.decode(slots.subarray(r * N, (r + 1) * N)));
    const ids = texts.map((text) => this.tokenizer.encode(text));
    const scored = this.scoreSamples(examples, texts, G, statistics, undefined, ids);
    const batch = trainingRows(prompts, slots, rows, layout);
    const perRow = Int32Array.from({ length: rows }, (_, r) => completionLength(slots, r * N, N));
    const width = sequenceWidth(layout);
    // Completion slot k is the target of position W - 1 + k (layout.ts).
    const tokenEntropy = statistics?.entropyAtPositions(width, layout.promptWidth - 1);
    const tokenSamplerLogProb = statistics?.logProbAtPositions(width, layout.promptWidth - 1);
    return { ...batch, rows, width, perRow, ...scored, steps: rows, episodes: [], completions: slotLengths(slots, rows, N), ...(tokenEntropy ? { tokenEntropy, tokenSamplerLogProb } : {}) };
  }

  /** The stop strings of `sampling` over this task's characters (the character-level loop's). */
  private characterStops(sampling: SamplingControls): { stopStrings?: StopStrings } {
    return sampling.stop?.length ? { stopStrings: new StopStrings(sampling.stop, (ids) => this.tokenizer.decode(ids)) } : {};
  }

  async demonstrations(count: number, rng: Rng, model?: LanguageModel): Promise<TokenRows> {
    return this.demonstrationRows(Array.from({ length: count }, () => this.task.sample(rng)), model);
  }

  /**
   * Token rows of `examples` as demonstrations (their prompts and targets; from the task, or a
   * file of demonstrations: GRPO's sft_data), in the layout of completions of up to
   * `maxNewTokens` characters (default max_tokens). Throws where one cannot be written so.
   */
  demonstrationRows(examples: readonly TextExample[], model?: LanguageModel, maxNewTokens?: number): TokenRows {
    const count = examples.length;
    if (model && isPretrained(model)) {
      const batch = tokenRows(examples.map((e) => encodeExample(model, e, this.task.description)), examples.map((e) => model.encodeCompletion(e.target)), model.padId);
      return { ...batch, modelFeeds: model.rowFeeds(batch.starts, batch.width) };
    }
    const layout = this.layoutFor(maxNewTokens);
    const prompts = encodePrompts(this.tokenizer, examples.map((e) => e.prompt), layout);
    const N = layout.completionSlots;
    const completions = new Int32Array(count * N);
    examples.forEach((e, r) => completions.set(encodeCompletion(this.tokenizer, e.target, layout, `the target of ${JSON.stringify(e.prompt)}`), r * N));
    const batch = trainingRows(prompts, completions, count, layout);
    const perRow = Int32Array.from({ length: count }, (_, r) => completionLength(completions, r * N, N));
    return { ...batch, rows: count, width: sequenceWidth(layout), perRow };
  }

  /** Greedy completions of the held-out prompts: exact-match accuracy and the reward. */
  async evaluate(model: TokenSampler, limit?: number, sampling?: SamplingControls): Promise<TextEvalOutcome> {
    const controls = sampling ? { controls: sampling, ...this.characterStops(sampling) } : {};
    const rewards: number[] = [];
    const samples: SampleRecord[] = [];
    // Each completion's sampling statistics (greedy, at temperature 1), in order, where the reward reads the intrinsic names.
    const sampled: TokenStatistics[] = [];
    // A pretrained model's completion lengths in its own tokens (the stop id not counted), as
    // max_tokens counts them; the character-level model's in characters, which are its tokens.
    const tokenLengths: number[] = [];
    // A pretrained model's prompts as it read them, in the order the rewards come.
    const read: string[] = [];
    const pretrained = isPretrainedSampler(model);
    // Each completion's token ids (the stop id not included), in order, for python() reward functions.
    const completionIds: number[][] = [];
    const complete = async (prompts: readonly string[], batch: readonly TextExample[]) => {
      const statistics = this.intrinsic ? new SampledTokenStatistics(prompts.length, pretrained ? this.maxTokens : this.layout.completionSlots) : undefined;
      const texts = pretrained
        ? (await model.complete(batch.map((e) => {
          const ids = encodeExample(model, e, this.task.description);
          read.push(model.decodePrompt(ids));
          return ids;
        }), { maxNewTokens: this.maxTokens, greedy: true, ...(statistics ? { statistics } : {}), ...(sampling ? { controls: sampling } : {}) })).map((c) => {
          const stops = new Set(model.stopIds);
          const length = c.length - (c.length > 0 && stops.has(c[c.length - 1]!) ? 1 : 0);
          tokenLengths.push(length);
          completionIds.push(c.slice(0, length));
          return model.decodeCompletion(c);
        })
        : await completeTexts(model, this.tokenizer, prompts, this.layout, { temperature: 1, greedy: true, ...(statistics ? { statistics } : {}), ...controls });
      if (!pretrained) for (const text of texts) completionIds.push(this.tokenizer.encode(text));
      if (statistics) prompts.forEach((_, r) => sampled.push(statistics.means(r)));
      return texts;
    };
    const result = await evaluateText(this.task.heldOut().slice(0, limit), complete, {
      prepare: (examples, completions) => {
        this.scorePython(examples, completions, completionIds, 1);
        this.scoreCode(examples, completions, 1);
      },
      reward: (example, completion) => {
        this.reward?.selectPython(rewards.length);
        const { total, terms } = this.score(example, completion, sampled[rewards.length]);
        rewards.push(total);
        const termValues = scoredTerms(this.termNames, terms);
        const prompt = read[samples.length];
        samples.push({ start: example.prompt, ...(prompt !== undefined ? { prompt } : {}), target: example.target, text: completion, reward: total, terms: termValues, correct: exact(completion, example.target) === 1 });
        return total;
      },
      batchSize: EVAL_BATCH,
    });
    const lengths = pretrained ? tokenLengths : result.completions.map((c) => [...c].length);
    const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const meanReward = result.meanReward!;
    const values = {
      'eval/accuracy': result.accuracy,
      'eval/mean_reward': meanReward,
      'eval/mean_return': meanReward,
      'eval/std_return': Math.sqrt(mean(rewards.map((r) => (r - meanReward) ** 2))),
      'eval/mean_length': mean(lengths),
    };
    const message = `held-out accuracy ${(100 * result.accuracy).toFixed(1)}% (${result.count} prompts), mean reward ${meanReward.toFixed(3)}`;
    return { values, returns: rewards, lengths, message, samples };
  }
}

/**
 * Lengths of completion slots [rows, N] (sampling.ts's decode): the characters before the first
 * EOS or PAD; a completion with no EOS in its N - 1 writable slots was cut at N - 1 characters.
 */
export function slotLengths(slots: Int32Array, rows: number, N: number): CompletionLengths {
  const lengths = new Int32Array(rows);
  const truncated = new Uint8Array(rows);
  for (let r = 0; r < rows; r++) {
    let k = 0;
    while (k < N && slots[r * N + k] !== EOS && slots[r * N + k] !== PAD) k++;
    lengths[r] = k;
    const end = k < N ? slots[r * N + k] : PAD;
    truncated[r] = k >= N - 1 && end !== EOS ? 1 : 0;
  }
  return { lengths, truncated, max: N - 1 };
}

/** `ids` cut to `limit` tokens at its side (TRL truncates the templated prompt's ids so). */
export function truncated(ids: number[], limit: PromptLimit | undefined): number[] {
  if (!limit || ids.length <= limit.tokens) return ids;
  return limit.side === 'left' ? ids.slice(ids.length - limit.tokens) : ids.slice(0, limit.tokens);
}

/** Each term's value by name, without the terms a python() function did not score (NaN). */
function scoredTerms(names: readonly string[], values: readonly number[]): Record<string, number> {
  return Object.fromEntries(names.flatMap((name, k) => (Number.isNaN(values[k]) ? [] : [[name, values[k]!]])));
}

/**
 * An example's prompt as a pretrained model reads it: a conversational row's messages through its
 * chat template (the policy's `chat { system }` first), else the prompt text (encodePrompt).
 */
function encodeExample(model: PretrainedPolicy, example: TextExample, task: string): number[] {
  if (!example.messages) return model.encodePrompt(example.prompt);
  return model.encodeConversation(example.messages, `${task}: a conversational row`);
}

function isPretrainedSampler(model: TokenSampler): model is PretrainedPolicy {
  return 'kind' in model && isPretrained(model);
}

/** The built-in env kinds whose actions are text: the trainer runs them (and python_text envs) with its text workload. */
export const TEXT_ENVS = ['TextTask', 'GuessNumber'] as const;

export function isTextEnv(kind: string): boolean {
  // A python_text(...) env is user code, not a built-in of the registry, but a text env all the same.
  return (TEXT_ENVS as readonly string[]).includes(kind) || kind === PYTHON_TEXT_ENV_KIND;
}

