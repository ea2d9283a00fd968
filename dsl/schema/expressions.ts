// What expressions may call and name: schedules (any schedulable hyperparameter), reward
// functions and verifiers, the names a reward term sees, and the metrics a stop rule sees.
import { num, param } from './build.js';
import type { EnvSpec, FunctionSpec, MetricName, ParamSpec, RewardName, RewardNameAvailability } from './types.js';

const over: ParamSpec = param('over', num({ min: 0, exclusiveMin: true, max: 1 }), 1,
  'Fraction of the budget over which the schedule runs; after it the final value holds.');

/** Schedules: a hyperparameter that changes over the budget. */
export const SCHEDULES: { name: string; doc: string; params: ParamSpec[] }[] = [
  { name: 'constant', doc: 'The same value throughout.', params: [{ name: 'value', type: num(), required: true, doc: 'The value.' }] },
  {
    name: 'linear',
    doc: 'Straight line from `from` to `to`, reached at the end of the budget (or at `over`).',
    params: [{ name: 'from', type: num(), required: true, doc: 'Start value.' }, { name: 'to', type: num(), required: true, doc: 'End value.' }, over],
  },
  {
    name: 'cosine',
    doc: 'Half a cosine wave from `from` to `to`, reached at the end of the budget (or at `over`).',
    params: [{ name: 'from', type: num(), required: true, doc: 'Start value.' }, { name: 'to', type: num(), required: true, doc: 'End value.' }, over],
  },
  {
    name: 'warmup',
    doc: 'Rises linearly from 0 over `steps` environment steps, then follows `then` (a number or a schedule).',
    params: [
      { name: 'steps', type: num({ integer: true, min: 0 }), required: true, doc: 'Length of the warm-up, in environment steps.' },
      { name: 'then', type: num({ schedule: true }), required: true, doc: 'Value or schedule after the warm-up.' },
    ],
  },
];

/** Functions available in reward terms and conditions. */
export const FUNCTIONS: FunctionSpec[] = [
  { name: 'abs', doc: 'Absolute value.', params: [{ name: 'x', type: 'number' }], returns: 'number' },
  { name: 'sqrt', doc: 'Square root.', params: [{ name: 'x', type: 'number' }], returns: 'number' },
  { name: 'exp', doc: 'e to the power x.', params: [{ name: 'x', type: 'number' }], returns: 'number' },
  { name: 'log', doc: 'Natural logarithm.', params: [{ name: 'x', type: 'number' }], returns: 'number' },
  { name: 'min', doc: 'Smallest of the arguments.', params: [{ name: 'x', type: 'number' }], variadic: true, returns: 'number' },
  { name: 'max', doc: 'Largest of the arguments.', params: [{ name: 'x', type: 'number' }], variadic: true, returns: 'number' },
  {
    name: 'clip', doc: 'x limited to [lo, hi].', returns: 'number',
    params: [{ name: 'x', type: 'number' }, { name: 'lo', type: 'number' }, { name: 'hi', type: 'number' }],
  },
  { name: 'norm', doc: 'Euclidean length of a vector (of a number, such as a one-dimensional `action`: its absolute value).', params: [{ name: 'v', type: 'vector' }], returns: 'number' },
  { name: 'dist', doc: 'Euclidean distance between two vectors (e.g. `dist(achieved, goal)`).', params: [{ name: 'a', type: 'vector' }, { name: 'b', type: 'vector' }], returns: 'number' },
  {
    name: 'if', doc: '`a` where the condition holds, else `b`.', returns: 'number',
    params: [{ name: 'condition', type: 'bool' }, { name: 'a', type: 'number' }, { name: 'b', type: 'number' }],
  },
  { name: 'exact', doc: 'Verifier: 1 when the two strings are equal after trimming whitespace, else 0.', params: [{ name: 'a', type: 'string' }, { name: 'b', type: 'string' }], returns: 'bool', text: true },
  {
    name: 'numeric', returns: 'bool', text: true,
    doc: 'Verifier: 1 when both strings parse as numbers within `tol` of each other, else 0. A number is read as written, surrounding whitespace allowed: '
      + 'a sign, an optional "$", digits (thousands separated by commas in groups of three: "1,234"), a fraction, an exponent; "18.00", "$18" and "18" are all 18. '
      + 'Anything else ("18%", "18 apples", "1,23", "") is no number, so 0: read a worked solution\'s answer with `last_number` first.',
    params: [{ name: 'a', type: 'string' }, { name: 'b', type: 'string' }, { name: 'tol', type: 'number', default: 1e-6, doc: 'Absolute tolerance.' }],
  },
  { name: 'regex', doc: 'Verifier: 1 when the string matches the regular expression (JavaScript syntax), else 0.', params: [{ name: 's', type: 'string' }, { name: 'pattern', type: 'string', syntax: 'regex' }], returns: 'bool', text: true },
  { name: 'contains', doc: 'Verifier: 1 when the string contains the text, else 0.', params: [{ name: 's', type: 'string' }, { name: 'text', type: 'string' }], returns: 'bool', text: true },
  { name: 'length', doc: 'Number of characters in the string.', params: [{ name: 's', type: 'string' }], returns: 'number', text: true },
  {
    name: 'last_number', returns: 'string', text: true, params: [{ name: 's', type: 'string' }],
    doc: 'Extractor: the last number the text states, as text for a verifier (`numeric(last_number(completion), target)`, GSM8K-style): '
      + 'its sign, its digits without thousands separators, its fraction ("so she pays $1,234.50." gives "1234.50"); "" when there is none. '
      + 'A "-" joining two numbers or words is not a sign ("5-3" gives "3").',
  },
  {
    name: 'boxed', returns: 'string', text: true, params: [{ name: 's', type: 'string' }],
    doc: 'Extractor: the content of the last `\\boxed{...}` (or `\\fbox{...}`), trimmed, to its balanced closing brace (`\\boxed{\\frac{1}{2}}` gives "\\frac{1}{2}"); '
      + '"" when there is none or the last one is never closed. For a verifier: `exact(boxed(completion), target)` (MATH-style).',
  },
  {
    name: 'tagged', returns: 'string', text: true,
    params: [{ name: 's', type: 'string' }, { name: 'tag', type: 'string', syntax: 'tag', doc: 'The tag\'s name, a "string" literal: "answer" reads `<answer>...</answer>`.' }],
    doc: 'Extractor: the content of the last complete `<tag>...</tag>` of the text, trimmed; "" when there is none (an opening tag never closed does not count). '
      + 'For a verifier: `exact(tagged(completion, "answer"), target)`, `length(tagged(completion, "think"))`.',
  },
  {
    name: 'completion_code', returns: 'string', text: true, params: [{ name: 's', type: 'string' }],
    doc: 'Extractor: the code of the text\'s last fenced block (```` ```python ... ``` ````, any language tag or none), without the fences; the whole text when it has no complete block. '
      + 'For the code verifier: `passes(completion_code(completion), row.tests)`.',
  },
  {
    name: 'passes', returns: 'number', text: true, taskOnly: true,
    params: [
      { name: 'code', type: 'string', doc: 'The Python code to test, usually `completion_code(completion)`.' },
      { name: 'tests', type: 'string', syntax: 'tests', doc: 'The tests: a dataset field holding a list of Python statements (MBPP\'s `["assert f(1) == 2", ...]`), each a test, or one text of test code, one test; or a "string" literal.' },
    ],
    doc: 'Code verifier: the fraction of the tests that pass when run after the code, in Python (0 to 1; code that does not run passes none). '
      + 'Each completion runs in a process of its own, in a throwaway folder, with a time limit (TextTask\'s `code_timeout`), a memory limit (`code_memory`), a cap on its output and files, '
      + 'no network (a network namespace where the machine allows one, else sockets refused), and no new processes, signals to others, or writes outside its folder. '
      + 'All completions of a batch run at once, before any is scored. Single-turn text tasks (TextTask) only.',
  },
  {
    name: 'python', returns: 'number', taskOnly: true,
    params: [{ name: 'function', type: 'string', syntax: 'python-function', doc: 'The file (relative to the .rlx file, inside its folder) and the function in it: "./rewards.py:accuracy".' }],
    doc: 'A Python reward function, called as TRL calls one: `f(prompts=[...], completions=[...], completion_ids=[...], **columns)` (each dataset column a list, by its name), '
      + 'once per batch of completions, in a Python worker process (TextTask\'s `python` and `reward_timeout`). It returns one float per completion, or None where it does not score one: '
      + 'the terms that read a None are left out of that completion\'s reward. Single-turn text tasks (TextTask) only.',
  },
  { name: 'novelty', doc: 'Count-based exploration bonus: 1/sqrt(n) where n counts visits to the (discretised) observation.', params: [{ name: 'obs', type: 'vector' }], returns: 'number' },
];

// A tag name as `tagged(s, "answer")` takes it: XML's names, in ASCII.
const TAG_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]*$/;

/**
 * Why `tag` cannot be the tag `tagged(s, tag)` reads, or undefined when it can: a bare name such
 * as "answer" (the checker and the trainer both ask, so they agree).
 */
export function tagNameProblem(tag: string): string | undefined {
  if (TAG_NAME.test(tag)) return undefined;
  const bare = tag.replace(/^<\/?/, '').replace(/>$/, '');
  if (bare !== tag && TAG_NAME.test(bare)) return `write the tag's name alone: "${bare}" reads <${bare}>...</${bare}>`;
  return `${JSON.stringify(tag)} is not a tag name: a tag name is letters, digits and _ . : - (not first), such as "answer"`;
}

/** Names a reward term may use. */
export const REWARD_NAMES: RewardName[] = [
  { name: 'obs', doc: 'Observation before the step; `obs.FIELD` names one field.', type: 'vector', fields: 'obs', availableFor: 'nontext' },
  { name: 'next_obs', doc: 'Observation after the step; `next_obs.FIELD` names one field.', type: 'vector', fields: 'obs', availableFor: 'nontext' },
  { name: 'action', doc: 'The action taken (index or vector).', type: 'number', availableFor: 'nontext' },
  { name: 'goal', doc: 'The goal of a goal-conditioned env.', type: 'vector', availableFor: 'goal' },
  { name: 'achieved', doc: 'The goal actually achieved after the step (goal-conditioned envs).', type: 'vector', availableFor: 'goal' },
  { name: 'terminated', doc: 'The episode ended in a terminal state at this step (a dialogue: the env said `done`).', type: 'bool', availableFor: 'all' },
  { name: 'truncated', doc: 'The episode was cut off by its step limit at this step (a dialogue: its last allowed turn, without `done`).', type: 'bool', availableFor: 'all' },
  { name: 'success', doc: 'The env reports success at this step (goal reached, answer correct).', type: 'bool', availableFor: 'all' },
  { name: 't', doc: 'Step index within the episode, from 0 (a dialogue: the agent turn, from 0).', type: 'number', availableFor: 'all' },
  { name: 'info', doc: 'Extra values the env reports; `info.NAME`.', type: 'number', fields: 'info', availableFor: 'all' },
  { name: 'prompt', doc: 'What the policy read: the prompt of a text task; in a dialogue, the dialogue before this turn (the opening, then each turn and reply), one message per line.', type: 'string', availableFor: 'text' },
  { name: 'completion', doc: 'The text the policy wrote: the completion, or in a dialogue this agent turn.', type: 'string', availableFor: 'text' },
  { name: 'target', doc: 'The correct answer of a text task.', type: 'string', availableFor: 'task' },
  { name: 'reply', doc: 'The env\'s answer to this agent turn; empty on the turn that ends the dialogue (that reply is never shown).', type: 'string', availableFor: 'dialogue' },
  { name: 'row', doc: 'The dataset row the prompt came from: `row.NAME` is its field NAME (text, a number, or true/false), as the dataset\'s first rows type it; a row without the field stops training with an error naming its line.', type: 'string', fields: 'row', availableFor: 'task' },
  { name: 'env_reward', doc: 'The env\'s own reward for this agent turn (what step() returned; GuessNumber: 1 for the right guess).', type: 'number', availableFor: 'dialogue' },
  {
    name: 'self_certainty', type: 'number', availableFor: 'task',
    doc: 'Intrinsic reward (INTUITOR, Zhao et al. 2025, "Learning to Reason without External Rewards"): the mean over the completion\'s tokens of KL(uniform || p) = -log V - mean_v log p_v, '
      + 'p the distribution each token was sampled from (the policy at the sampling temperature). Higher: a more confident policy. No verifier needed.',
  },
  {
    name: 'neg_entropy', type: 'number', availableFor: 'task',
    doc: 'Intrinsic reward (entropy minimisation: Agarwal et al. 2025, Prabhudesai et al. 2025): minus the mean entropy of the distributions the completion\'s tokens were sampled from.',
  },
  {
    name: 'logprob', type: 'number', availableFor: 'task',
    doc: 'Intrinsic reward: the mean log-probability of the completion\'s tokens under the distributions they were sampled from (the policy at the sampling temperature).',
  },
];


/** What kind of env a name of `REWARD_NAMES` needs, in words (for messages and the reference). */
export const REWARD_NAME_ENVS: Readonly<Record<Exclude<RewardNameAvailability, 'all'>, string>> = {
  goal: 'goal-conditioned envs',
  text: 'text envs',
  task: 'single-turn text tasks (TextTask)',
  dialogue: 'dialogue envs (GuessNumber, user text modules)',
  nontext: 'non-text envs',
};

/** Whether a reward term on `env` may use `name`. */
export function rewardNameAvailable(name: RewardName, env: Pick<EnvSpec, 'action' | 'goalConditioned' | 'dialogue'>): boolean {
  switch (name.availableFor) {
    case 'all': return true;
    case 'goal': return env.goalConditioned === true;
    case 'text': return env.action === 'text';
    case 'task': return env.action === 'text' && env.dialogue !== true;
    case 'dialogue': return env.dialogue === true;
    case 'nontext': return env.action !== 'text';
  }
}

/** Metrics that `stop:` and curriculum `advance:` conditions may test. */
export const METRICS: MetricName[] = [
  { name: 'eval.mean_return', doc: 'Mean return of the latest evaluation.' },
  { name: 'eval.std_return', doc: 'Standard deviation of the returns of the latest evaluation.' },
  { name: 'eval.mean_length', doc: 'Mean episode length of the latest evaluation.' },
  { name: 'eval.success', doc: 'Fraction of successful episodes in the latest evaluation.' },
  { name: 'eval.accuracy', doc: 'Fraction of held-out prompts answered exactly right in the latest evaluation (text tasks).', textOnly: true },
  { name: 'train.mean_return', doc: 'Mean return of the last 20 training episodes.' },
  { name: 'train.mean_length', doc: 'Mean length of the last 20 training episodes.' },
  { name: 'train.success', doc: 'Fraction of successful training episodes among the last 20.' },
  { name: 'train.accuracy', doc: 'Fraction of the latest update\'s completions that were exactly right (text tasks).', textOnly: true },
  { name: 'steps', doc: 'Environment steps taken so far.' },
];
