// The sampling controls of every text learner that samples (GRPO, text learner modules): one
// declaration, read by the checker, hover, completion and the compiler; the runtime's sampler
// is runtime/lm/sampling.ts. Semantics are Hugging Face transformers' logits processors; names
// and neutral defaults are TRL's GRPOConfig's (top_k none where TRL says 0 or None).
import { choice, count, list, nonEmptyString, num, oneOf, option, param, probability } from './build.js';
import type { ParamSpec } from './types.js';

export const SAMPLING_PARAMS: readonly ParamSpec[] = [
  param('top_k', oneOf(choice(option('none', 'Every token may be drawn.')), count({ max: 10_000_000 })), 'none',
    'Draw only among the k most likely tokens (after the temperature; tokens tied with the k-th kept too), as transformers\' TopKLogitsWarper. `none`: off.'),
  param('top_p', num({ min: 0, exclusiveMin: true, max: 1 }), 1,
    'Nucleus sampling: draw only among the most likely tokens whose probabilities sum to at least top_p, as transformers\' TopPLogitsWarper (applied after top_k). 1: off.'),
  param('min_p', probability({ exclusiveMax: true }), 0,
    'Draw only among tokens at least min_p times as likely as the most likely one, as transformers\' MinPLogitsWarper (applied after top_p). 0: off.'),
  param('repetition_penalty', num({ min: 0, exclusiveMin: true, max: 100 }), 1,
    'Divide the logit of every token already in the row (prompt and completion) by this, multiply it where negative (transformers\' RepetitionPenaltyLogitsProcessor, CTRL\'s penalty; before the temperature). 1: off.'),
  param('stop', list(nonEmptyString), [],
    'Strings that end a completion once its decoded text contains one, like vLLM\'s `stop`: the token that completed the string is the completion\'s last, kept in its tokens and in the text the reward reads (as TRL decodes vLLM\'s token ids). Evaluation stops there too.'),
];

/** How long a prompt may be, in the policy's tokens, and which end is cut (TRL's max_prompt_length and truncation side). */
export const PROMPT_LENGTH_PARAMS: readonly ParamSpec[] = [
  param('max_prompt_length', oneOf(choice(option('none', 'Prompts are used whole.')), count({ max: 1_048_576 })), 'none',
    'Longest prompt, in a pretrained model\'s tokens after its chat template: longer ones are cut at the `truncation` side before sampling, as TRL\'s max_prompt_length. `none`: whole prompts. (The character-level transformer\'s prompts have the task\'s fixed width.)'),
  param('truncation', choice(
    option('left', 'Keep the prompt\'s end (TRL\'s default: the question and the generation prompt stay).'),
    option('right', 'Keep the prompt\'s start.'),
  ), 'left', 'Which end of a prompt longer than max_prompt_length is cut.'),
];
