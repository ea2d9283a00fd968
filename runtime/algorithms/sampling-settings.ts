// The sampling controls a text learner's plan states (dsl/schema/sampling.ts declares them),
// read into the sampler's form (runtime/lm/sampling.ts). Neutral values are left out, so a
// plan that states none samples exactly as before the controls existed.
import type { PlanStage } from '../../dsl/compile/plan.js';
import { ALGORITHMS } from '../../dsl/schema/algorithms.js';
import { learnerParams } from '../../dsl/schema/learner-module.js';
import type { SamplingControls } from '../lm/sampling.js';
import { PlanParams } from '../plan-params.js';
import type { PromptLimit } from '../text/text-env.js';

/** max_prompt_length (null: `none`) and truncation of `p`, as the plan names them. */
export function promptLength(p: PlanParams): { max_prompt_length: number | null; truncation: PromptLimit['side'] } {
  const tokens = p.numberOrNone('max_prompt_length');
  if (tokens !== null && !(Number.isSafeInteger(tokens) && tokens >= 1)) p.fail('max_prompt_length', '`none` or a whole number >= 1');
  return { max_prompt_length: tokens, truncation: p.option('truncation', ['left', 'right']) };
}

/** The rollouts' prompt limit of those settings; undefined for `none`. */
export function promptLimitOf(s: { readonly max_prompt_length: number | null; readonly truncation: PromptLimit['side'] }): PromptLimit | undefined {
  return s.max_prompt_length === null ? undefined : { tokens: s.max_prompt_length, side: s.truncation };
}

/** The controls of `p`; undefined when every one is at its neutral value. */
export function samplingControls(p: PlanParams): SamplingControls | undefined {
  const topK = p.numberOrNone('top_k');
  if (topK !== null && !(Number.isSafeInteger(topK) && topK >= 1)) p.fail('top_k', '`none` or a whole number >= 1');
  const topP = p.number('top_p');
  const minP = p.number('min_p');
  const repetitionPenalty = p.number('repetition_penalty');
  const stop = p.value('stop') ?? [];
  if (!Array.isArray(stop) || stop.some((s) => typeof s !== 'string' || s === '')) p.fail('stop', 'a list of strings, none of them empty');
  const controls: SamplingControls = {
    ...(topK !== null ? { topK } : {}),
    ...(topP < 1 ? { topP } : {}),
    ...(minP > 0 ? { minP } : {}),
    ...(repetitionPenalty !== 1 ? { repetitionPenalty } : {}),
    ...(stop.length > 0 ? { stop: stop as string[] } : {}),
  };
  return Object.keys(controls).length > 0 ? controls : undefined;
}

/**
 * The controls stage `stage` of a run sampled with, its evaluations included (the trainer
 * evaluates with the stage's learner's controls), read back from the run's plan: `rlx eval` of a
 * checkpoint of that stage samples as the run's own evaluation did. Undefined for a learner that
 * has none (SFT, REINFORCE) or sets none.
 */
export function stageSamplingControls(stage: PlanStage | undefined): SamplingControls | undefined {
  const algorithm = stage?.algorithm;
  if (!algorithm) return undefined;
  const declared = algorithm.kind === 'module' ? learnerParams('text') : ALGORITHMS.find((a) => a.name === algorithm.kind)?.params;
  if (!declared?.some((p) => p.name === 'top_p')) return undefined;
  return samplingControls(new PlanParams(`stage ${stage.name}`, declared, algorithm.params));
}
