// The workload of runs on a text task: one token model, built once per run and handed to every
// stage (so each stage starts from the weights the previous one left), and evaluation by greedy
// completions of the task's held-out prompts (exact-match accuracy and the mean reward).
//
// The learners sample prompts and score completions themselves, so there are no env copies to
// step here and no episodes of the numeric kind.
import type { Plan, PlanStage } from '../../dsl/compile/plan.js';
import { algorithmDefinition, type Algorithm, type EpisodeRecord } from '../algorithms/index.js';
import { PolicyFactory, type TokenModel } from '../policies/index.js';
import { checkFits, completeTexts } from '../policies/transformer/layout.js';
import { Rng } from '../random.js';
import type { ConditionMetric } from '../run/stop.js';
import { PlanError } from '../support.js';
import type { Compute } from '../tensor/index.js';
import type { TextTaskOptions } from '../text/config.js';
import { TextEnvironment } from '../text/env.js';
import { evaluateText } from '../text/evaluate.js';
import type { EvalOutcome, Workload } from './workload.js';

/** Prompts per batch when evaluating. */
const EVAL_BATCH = 128;

export class TextWorkload implements Workload {
  readonly description: Readonly<Record<string, unknown>>;
  readonly policyFields: Readonly<Record<string, unknown>>;

  private constructor(
    readonly env: TextEnvironment,
    readonly model: TokenModel,
  ) {
    this.description = { env: 'TextTask', task: env.task.description };
    this.policyFields = { task: env.task.description, layout: { prompt_width: env.layout.promptWidth, completion_slots: env.layout.completionSlots } };
  }

  /** The plan's task and model for `seed`; `options` say where a dataset's file is. Errors say which param is wrong. */
  static create(plan: Plan, seed: number, options: TextTaskOptions = {}): TextWorkload {
    const env = TextEnvironment.fromPlan(plan, options);
    const model = new PolicyFactory(plan.policy, null, new Rng(seed).fork('policy')).tokenModel(plan.stages[0]!.algorithm.kind, env.tokenizer);
    try {
      checkFits(env.layout, model.context, `policy ${plan.policy.name}`);
    } catch (err) {
      throw new PlanError([(err as Error).message]);
    }
    return new TextWorkload(env, model);
  }

  createAlgorithm(stage: PlanStage, settings: unknown, rng: Rng, compute: Compute): Promise<Algorithm> {
    const definition = algorithmDefinition(stage.algorithm.kind)!; // checkPlan() vouched for it
    return definition.create({ model: this.model, env: this.env, budget: stage.budget, rng, compute }, settings);
  }

  begin(): void {}

  beforeIterate(): void {}

  takeEpisodes(): readonly EpisodeRecord[] {
    return [];
  }

  evaluates(): boolean {
    return true;
  }

  async evaluate(): Promise<EvalOutcome> {
    const { env, model } = this;
    const rewards: number[] = [];
    const result = await evaluateText(env.task.heldOut(), (prompts) => completeTexts(model, env.tokenizer, prompts, env.layout, { temperature: 1, greedy: true }), {
      reward: (example, completion) => {
        const { total } = env.score(example, completion);
        rewards.push(total);
        return total;
      },
      batchSize: EVAL_BATCH,
    });
    const lengths = result.completions.map((c) => [...c].length);
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
    return { values, returns: rewards, lengths, deterministic: true, message };
  }

  conditionValues(_windows: Readonly<Record<string, number>>, latest: Readonly<Record<string, number>>, lastEval: Readonly<Record<string, number>>): Partial<Record<ConditionMetric, number>> {
    return {
      'eval.mean_return': lastEval['eval/mean_return'],
      'eval.std_return': lastEval['eval/std_return'],
      'eval.mean_length': lastEval['eval/mean_length'],
      'train.mean_return': latest['train/mean_reward'],
      'train.mean_length': latest['train/completion_length'],
    };
  }

  async release(): Promise<void> {
    await this.model.release();
  }
}
