// Text envs run by Python (`env Shop = python_text("./envs/shop.py:Shop") { ... }`): a class with
// Gymnasium's methods over text (reset() -> (observation, info), step(action: str) -> (observation,
// reward, terminated, truncated, info), optionally expert(observation) -> str), which the text
// learners train on as on GuessNumber (docs/agents.md). The checker, completion and hover read
// its settings here; the trainer reads the same from the plan (runtime/text/python-dialogue.ts).
// What it shares with the numeric python(...) env (the interpreter, env_timeout,
// copies_per_process, kwargs) is the same entry of python-env.ts, so the two cannot drift.
import { count, list, param, string } from './build.js';
import { DEFAULT_TEXT_ALPHABET } from './env-module.js';
import { GYMNASIUM_ENV_BLOCKS, GYMNASIUM_ENV_PARAMS } from './python-env.js';
import type { BlockSpec, EnvSpec, ParamSpec } from './types.js';

/** The base function: `python_text("./envs/shop.py:Shop")`. */
export const PYTHON_TEXT_BASE = 'python_text';

/** The plan's env kind: its file (relative to the .rlx file that compiled it) and class are params.file and params.class. */
export const PYTHON_TEXT_ENV_KIND = 'python_text';

/** The methods the class must have, and the optional one that gives demonstrations. */
export const PYTHON_TEXT_METHODS = ['reset', 'step'] as const;
export const PYTHON_TEXT_EXPERT = 'expert';

/** The alphabet when the declaration names none: printable ASCII and the newline (messages of a list are joined by newlines). */
export const PYTHON_TEXT_ALPHABET = `${DEFAULT_TEXT_ALPHABET}\n`;

const shared = (name: string): ParamSpec => GYMNASIUM_ENV_PARAMS.find((p) => p.name === name)!;

export const PYTHON_TEXT_ENV_PARAMS: ParamSpec[] = [
  param('max_turns', count({ max: 100 }), 8, 'Agent turns before a dialogue is cut (truncated).'),
  param('max_observation', count({ max: 4000 }), 200,
    'Longest message of the env (the opening or a reply; a list of messages counts its contents joined by newlines), in characters; a longer one fails the run, naming it. With the character-level transformer it fixes the token grid: keep it small.'),
  param('max_action', count({ max: 1000 }), 32, 'Longest agent turn, in characters (a pretrained model\'s turn: this many of its tokens, plus its end id).'),
  param('alphabet', string, '',
    'Every character the env or the agent may write (the character-level transformer\'s vocabulary); printable ASCII and the newline when left out. A message with another character fails the run, naming it.'),
  param('info', list(string), [],
    'Names step() reports in its info, as numbers or True/False, for `info.NAME` in reward terms: `info: ["has_key", "moves"]`. Each must be in every step\'s info.'),
  shared('python'),
  { ...shared('env_timeout'), doc: 'Seconds one reset(), step() or expert() may take before the run fails with "did not return within N s" (starting a worker may take 60 s or this, whichever is longer).' },
  { ...shared('copies_per_process'), doc: 'Env copies (dialogues at once) each Python worker process holds; more copies start more processes.' },
];

/** The blocks a python_text(...) env's body takes: `kwargs { }`, as a python(...) env's. */
export const PYTHON_TEXT_ENV_BLOCKS: BlockSpec[] = GYMNASIUM_ENV_BLOCKS.map((b) =>
  b.name === 'kwargs' ? { ...b, doc: 'Keyword arguments of the class, passed as written: `kwargs { rooms: 3, seed_items: true }`.' } : b);

/** The env spec the checker and completion use for a python_text(...) env: a dialogue whose info names are the declaration's `info`. */
export function pythonTextEnvSpec(written: string, info: readonly string[]): EnvSpec {
  return {
    declKind: 'env',
    name: `${PYTHON_TEXT_BASE}("${written}")`,
    doc: `A Python text environment (a dialogue): ${written}.`,
    params: [],
    obsFields: [],
    action: 'text',
    infoFields: [...info],
    dialogue: true,
  };
}
