// GRPO's hyperparameters as the learner uses them, read from the plan. Their names, defaults,
// docs and ranges are the registry's: dsl/schema/algorithms.ts.
import { PlanParams } from '../../plan-params.js';
import type { Schedulable } from '../../schedule.js';
import { BASELINES, NORMALIZE, type Baseline, type Normalize } from '../text/advantages.js';
import { KL_ESTIMATORS, type KlEstimator } from '../text/kl.js';
import { OVERLONG, type Overlong } from '../text/overlong.js';
import { CREDITS, type Credit } from '../text/turn-credit.js';
import { readTextMemory, type TextMemoryParams } from '../text/memory-settings.js';
import type { SamplingControls } from '../../lm/sampling.js';
import { promptLength, samplingControls } from '../sampling-settings.js';

export const LOSS_KINDS = ['sequence', 'token', 'constant'] as const;
export type LossKind = (typeof LOSS_KINDS)[number];

export interface GrpoSettings extends TextMemoryParams {
  group_size: number;
  prompts_per_update: number;
  clip: Schedulable;
  /** null: the same as clip. */
  clip_high: number | null;
  kl_coef: number;
  kl_estimator: KlEstimator;
  kl_in_reward: boolean;
  reference: 'initial' | 'none';
  learning_rate: Schedulable;
  baseline: Baseline;
  normalize: Normalize;
  loss: LossKind;
  /** The top fraction of a batch's learned tokens, by sampling entropy, that the loss keeps (token-weights.ts); 1: all. */
  entropy_top_fraction: number;
  iterations: number;
  max_new_tokens: number;
  temperature: number;
  /** top_k, top_p, min_p, repetition_penalty, stop (../sampling-settings.ts); undefined: none set. */
  sampling: SamplingControls | undefined;
  max_prompt_length: number | null;
  truncation: 'left' | 'right';
  max_grad_norm: number;
  dynamic_sampling: boolean;
  max_sampling_rounds: number;
  overlong: Overlong;
  overlong_buffer: number;
  credit: Credit;
  /** Demonstrations for the auxiliary cross-entropy (../text/demos.ts): none, the env's own, or a JSONL file's path. */
  sft_data: 'none' | 'demos' | { file: string };
  sft_coef: Schedulable;
  sft_batch_size: number;
  /** What the trainer does with the sampler's log-probabilities (../text/policy-gradient-loss.ts `sampler`). */
  sampler_correction: 'none' | 'log' | 'tis';
  tis_cap: number;
}

/** Reads the plan's GRPO params, defaults for missing ones; errors name the param. */
export function grpoSettings(params: Readonly<Record<string, unknown>>): GrpoSettings {
  const p = PlanParams.of('GRPO', params);
  return {
    group_size: p.count('group_size'),
    prompts_per_update: p.count('prompts_per_update'),
    clip: p.schedule('clip'),
    clip_high: p.numberOrNone('clip_high'),
    kl_coef: p.number('kl_coef'),
    kl_estimator: p.option('kl_estimator', KL_ESTIMATORS),
    kl_in_reward: p.flag('kl_in_reward'),
    reference: p.option('reference', ['initial', 'none']),
    learning_rate: p.schedule('learning_rate'),
    baseline: p.option('baseline', BASELINES),
    normalize: p.option('normalize', NORMALIZE),
    loss: p.option('loss', LOSS_KINDS),
    entropy_top_fraction: p.number('entropy_top_fraction'),
    iterations: p.count('iterations'),
    max_new_tokens: p.count('max_new_tokens'),
    temperature: p.number('temperature'),
    sampling: samplingControls(p),
    ...promptLength(p),
    max_grad_norm: p.number('max_grad_norm'),
    dynamic_sampling: p.flag('dynamic_sampling'),
    max_sampling_rounds: p.count('max_sampling_rounds'),
    overlong: p.option('overlong', OVERLONG),
    overlong_buffer: p.count('overlong_buffer'),
    credit: p.option('credit', CREDITS),
    sft_data: demoSource(p),
    sft_coef: p.schedule('sft_coef'),
    sampler_correction: p.option('sampler_correction', ['none', 'log', 'tis']),
    tis_cap: p.number('tis_cap'),
    sft_batch_size: p.count('sft_batch_size'),
    ...readTextMemory(p, true),
  };
}

/** sft_data as the plan gives it: `none` (null or the name), `demos`, or a file's path. */
function demoSource(p: PlanParams): GrpoSettings['sft_data'] {
  const value = p.value('sft_data');
  if (value === null || value === 'none') return 'none';
  if (value === 'demos') return 'demos';
  if (typeof value !== 'string' || value === '') p.fail('sft_data', '`none`, `demos` or the path of a JSONL file');
  return { file: value };
}
