// A text environment as the text learners (SFT, GRPO) and the trainer use it: the task, its
// tokenizer, the longest completion, the token layout, and the reward of a completion.
//
// A TextTask has no reward of its own: what a completion earns is the experiment's reward
// terms (their verifiers read `prompt`, `completion`, `target`). An experiment that declares
// no reward trains on exact match, exact(completion, target). Each term's value is kept, so
// learners can log them one by one.
import type { Plan } from '../../dsl/compile/plan.js';
import { textLayout, type TextLayout } from '../policies/transformer/layout.js';
import { compileReward, type CompiledReward } from '../rewards/index.js';
import { textTaskConfig } from './config.js';
import { taskTokenizer, type TextExample, type TextTask } from './task.js';
import type { CharTokenizer } from './tokenizer.js';
import { exact } from './verifiers.js';

/** The env kinds whose actions are text, which the text trainer runs. */
export const TEXT_ENVS = ['TextTask'] as const;

export function isTextEnv(kind: string): boolean {
  return (TEXT_ENVS as readonly string[]).includes(kind);
}

/** What one completion earned: the total and each term (in `termNames` order). */
export interface CompletionScore {
  readonly total: number;
  readonly terms: readonly number[];
}

export class TextEnvironment {
  readonly tokenizer: CharTokenizer;
  /** Prompt width and completion slots for completions of up to `maxTokens` characters. */
  readonly layout: TextLayout;
  /** The reward's term names (`exact` when the plan declares no reward). */
  readonly termNames: readonly string[];

  constructor(
    readonly task: TextTask,
    /** Longest completion, in characters (TextTask's max_tokens). */
    readonly maxTokens: number,
    private readonly reward: CompiledReward | null,
  ) {
    this.tokenizer = taskTokenizer(task);
    this.layout = textLayout(task.maxPromptLength, maxTokens);
    this.termNames = reward ? reward.termNames : ['exact'];
  }

  /** The env of a plan whose env is a TextTask; errors name the param or the reward term. */
  static fromPlan(plan: Plan, options: { baseDir?: string } = {}): TextEnvironment {
    const { task, max_tokens } = textTaskConfig(plan.env.params, options);
    const reward = plan.reward ? compileReward(plan.reward, { kind: plan.env.kind, obsFields: [], actionSpace: { kind: 'discrete', n: 1 }, text: true }) : null;
    return new TextEnvironment(task, max_tokens, reward);
  }

  /** The reward of `completion` for `example`. */
  score(example: TextExample, completion: string): CompletionScore {
    if (!this.reward) {
      const value = exact(completion, example.target);
      return { total: value, terms: [value] };
    }
    const c = this.reward.context;
    c.prompt = example.prompt;
    c.target = example.target;
    c.completion = completion;
    const total = this.reward.evaluate();
    return { total, terms: [...this.reward.values] };
  }
}
