// Held-out evaluation of a text policy: it writes a completion for each held-out prompt; the
// run reports `eval.accuracy` (the fraction whose completion is exactly the target, as the
// `exact` verifier decides: after trimming whitespace) and the mean reward of the
// experiment's reward terms on those completions.
import type { CompiledReward } from '../rewards/index.js';
import type { TextExample } from './task.js';
import { exact } from '../rewards/verifiers.js';

/** Writes one completion per prompt, in order (a policy decodes a batch at a time). */
export type CompleteBatch = (prompts: readonly string[], examples: readonly TextExample[]) => readonly string[] | Promise<readonly string[]>;

/** The reward of one completion of an example. */
export type ScoreCompletion = (example: TextExample, completion: string) => number;

export interface TextEvaluation {
  /** Fraction of examples completed with exactly the target (trimmed). */
  readonly accuracy: number;
  /** Mean reward over the examples; null when no reward was given. */
  readonly meanReward: number | null;
  /** Number of examples evaluated. */
  readonly count: number;
  /** Each example's completion, in order (for rollouts and reports). */
  readonly completions: readonly string[];
}

export interface EvaluateOptions {
  /** The experiment's reward (see `scoreWith`). */
  readonly reward?: ScoreCompletion;
  /** Prompts per call of `complete`. */
  readonly batchSize?: number;
  /** Called once with every completion before any is scored (Python reward functions score them in one batch). */
  readonly prepare?: (examples: readonly TextExample[], completions: readonly string[]) => void;
}

/** Evaluates `complete` on `examples` (a task's heldOut()). */
export async function evaluateText(examples: readonly TextExample[], complete: CompleteBatch, options: EvaluateOptions = {}): Promise<TextEvaluation> {
  if (examples.length === 0) throw new Error('evaluateText: no examples to evaluate (a task\'s heldOut() is never empty)');
  const batchSize = options.batchSize ?? 64;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new RangeError(`evaluateText: batchSize must be a positive integer, got ${batchSize}`);
  const completions: string[] = [];
  for (let start = 0; start < examples.length; start += batchSize) {
    const batch = examples.slice(start, start + batchSize);
    const prompts = batch.map((e) => e.prompt);
    const written = await complete(prompts, batch);
    if (written.length !== prompts.length || !written.every((c) => typeof c === 'string')) {
      throw new Error(`evaluateText: the completion function must return ${prompts.length} strings for ${prompts.length} prompts, got ${written.length} value(s)`);
    }
    completions.push(...written);
  }
  options.prepare?.(examples, completions);
  let correct = 0;
  let rewardSum = 0;
  examples.forEach((example, k) => {
    correct += exact(completions[k], example.target);
    if (options.reward) rewardSum += options.reward(example, completions[k]);
  });
  return {
    accuracy: correct / examples.length,
    meanReward: options.reward ? rewardSum / examples.length : null,
    count: examples.length,
    completions,
  };
}

/** The experiment's compiled reward (for a text env) as a ScoreCompletion: the sum of its terms. */
export function scoreWith(reward: CompiledReward): ScoreCompletion {
  return (example, completion) => {
    const c = reward.context;
    c.prompt = example.prompt;
    c.target = example.target;
    c.completion = completion;
    return reward.evaluate();
  };
}
