// Group Relative Policy Optimization (Shao et al. 2024) on a text env: for each of
// `prompts_per_update` starts (prompts, or dialogue starts), sample `group_size` completions
// with the key/value cache, score each with the reward terms (or the env's rewards), take
// advantages relative to the group (../text/advantages.ts), and take `iterations` Adam steps on the
// clipped, KL-penalised objective. The learner and its loss are the text learners' shared ones
// (../text/policy-gradient.ts, ../text/policy-gradient-loss.ts), which REINFORCE on text uses
// too. A step counts one completion (one agent turn of a dialogue).
import type { AlgorithmDefinition, TextAlgorithmContext } from '../algorithm.js';
import type { DataFile } from '../../run/data-files.js';
import { demoOrigin } from '../text/demos.js';
import { groupAdvantages } from '../text/advantages.js';
import { grpoSettings, type GrpoSettings } from './settings.js';
import { controlSettings } from '../../lm/sampling.js';
import { promptLimitOf } from '../sampling-settings.js';
import { TEXT_ADAM_EPS, TextPolicyGradient, type TextLearnerConfig } from '../text/policy-gradient.js';

/** The shared text learner's config for GRPO's settings: every setting is read here. */
/** `files`: the stage's data files by setting (AlgorithmContext.dataFiles), sft_data's among them when it names one. */
export function grpoLearnerConfig(s: GrpoSettings, files?: ReadonlyMap<string, DataFile>): TextLearnerConfig {
  return {
    name: 'GRPO',
    groups: s.prompts_per_update,
    groupSize: s.group_size,
    temperature: s.temperature,
    ...(s.sampling ? { sampling: s.sampling } : {}),
    ...(s.max_prompt_length !== null ? { promptLimit: promptLimitOf(s) } : {}),
    maxNewTokens: s.max_new_tokens,
    learningRate: s.learning_rate,
    clip: s.clip,
    clipHigh: s.clip_high,
    klCoef: s.reference === 'initial' ? s.kl_coef : 0,
    klEstimator: s.kl_estimator,
    klInReward: s.kl_in_reward,
    entropyTopFraction: s.entropy_top_fraction,
    entropyCoef: 0,
    iterations: s.iterations,
    maxGradNorm: s.max_grad_norm,
    weighting: s.loss,
    ...(s.sft_data !== 'none' ? { demos: { origin: demoOrigin(s.sft_data, files?.get('sft_data'), 'sft_data'), coef: s.sft_coef, batchSize: s.sft_batch_size, setting: 'sft_data' } } : {}),
    advantages: (rewards, G, out) => groupAdvantages(rewards, G, s, out),
    dynamicSampling: s.dynamic_sampling ? { maxRounds: s.max_sampling_rounds } : null,
    overlong: { mode: s.overlong, buffer: s.overlong_buffer },
    ...(s.credit === 'turn' ? { turnCredit: { baseline: s.baseline, normalize: s.normalize } } : {}),
    memory: { microBatch: s.micro_batch, checkpointing: s.gradient_checkpointing },
    generationBatch: s.generation_batch,
    ...(s.sampler_correction !== 'none' ? { sampler: { tisCap: s.sampler_correction === 'tis' ? s.tis_cap : null } } : {}),
    settings: settingsRecord(s),
  };
}

/** The settings as hparams record them: the plan's names, the sampling controls' included. */
function settingsRecord(s: GrpoSettings): Record<string, unknown> {
  const { sampling, ...rest } = s;
  return { ...rest, ...controlSettings(sampling) };
}

export const GRPO: AlgorithmDefinition<GrpoSettings, TextAlgorithmContext> = {
  name: 'GRPO',
  actions: ['text'],
  params: grpoSettings,
  create: (context, s) => TextPolicyGradient.create(context, grpoLearnerConfig(s, context.dataFiles)),
};

export const GRPO_ADAM_EPS = TEXT_ADAM_EPS;
