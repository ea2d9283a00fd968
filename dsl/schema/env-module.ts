// What a user env module (`env Mine = module("./mine.ts")`) declares about itself, so that the
// checker and the editor know its names without running user code:
//
//   export const spec = {
//     observations: ['x', 'y'],          // the observation numbers, in order: obs.x, obs.y
//     actions: 'discrete',               // 'discrete' | 'continuous' | 'multibinary' | 'text'
//     info: ['success', 'distance'],     // what step() reports in info: info.distance
//     goal: ['goal_x', 'goal_y'],        // optional, goal-conditioned: the observation numbers of the goal
//     achieved: ['x', 'y'],              // and of what the agent achieved, as many, in the same order
//   };
//
// A goal-conditioned module also exports `computeReward(achieved, goal, info)`: the reward step()
// would give for `achieved` when asked for `goal`. Hindsight relabeling calls it on the trainer's
// thread for each relabeled sample (the module is loaded there too), so it must be pure: no state,
// no I/O, the same answer for the same numbers. `info` is `{}` there (the replay buffer keeps no infos).
//
// A text env (a multi-turn dialogue: reset() returns the env's opening message, step() takes
// the agent's text) declares `actions: 'text'` and the bounds of its dialogues instead of
// observations: `max_turns`, `max_observation`, `max_action`, and optionally the `alphabet`
// its messages and the agent's turns are written in (printable ASCII by default).
//
// The checker reads it from the file's text (semantics/env-module.ts); the trainer checks the
// module's actual `spec` export against the same rules (envModuleSpec) and against what the
// module does. Other keys are refused, so a misspelling is caught.
import type { ActionKind, EnvSpec } from './types.js';

/** The bounds of a text env's dialogues, which fix the token grid its policy reads. */
export interface TextModuleSpec {
  /** Agent turns before a dialogue is cut. */
  readonly maxTurns: number;
  /** Longest message of the env (its opening or a reply), in characters. */
  readonly maxObservation: number;
  /** Longest agent turn, in characters. */
  readonly maxAction: number;
  /** Every character the env or the agent may write. */
  readonly alphabet: string;
}

export interface EnvModuleSpec {
  /** Names of the observation numbers, in order; empty when the module names none (always, for text). */
  readonly observations: readonly string[];
  readonly actions: ActionKind;
  /** Names step() reports in its info, as numbers or true/false. */
  readonly info: readonly string[];
  /** For `actions: 'text'`: the dialogue's bounds. */
  readonly text?: TextModuleSpec;
  /** A goal-conditioned module: the observation names of the desired goal and of the achieved one (as many). */
  readonly goal?: { readonly goal: readonly string[]; readonly achieved: readonly string[] };
}

/** The action kinds a module may declare. */
export const ENV_MODULE_ACTIONS: readonly ActionKind[] = ['discrete', 'continuous', 'multibinary', 'text'];

/** Printable ASCII (space to '~'): a text env's alphabet unless it declares one. */
export const DEFAULT_TEXT_ALPHABET = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');

/** The bounds a text env's spec may set; at most this many turns and characters. */
const TEXT_LIMITS = { max_turns: 100, max_observation: 1000, max_action: 1000 } as const;

const NUMERIC_KEYS = ['observations', 'actions', 'info', 'goal', 'achieved'];
const TEXT_KEYS = ['actions', 'info', 'max_turns', 'max_observation', 'max_action', 'alphabet'];
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The spec a value describes, or what is wrong with it (the trainer checks the module's export with this). */
export function envModuleSpec(value: unknown): { spec: EnvModuleSpec } | { problem: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'spec must be an object: { observations: [...], actions: \'discrete\', info: [...] }' };
  const record = value as Record<string, unknown>;
  const text = record.actions === 'text';
  const keys = text ? TEXT_KEYS : NUMERIC_KEYS;
  const unknown = Object.keys(record).filter((k) => !keys.includes(k));
  if (unknown.length > 0) {
    const why = text && unknown.includes('observations') ? ' (a text env\'s observations are its messages, bounded by max_observation)' : '';
    const textOnly = !text && unknown.every((k) => TEXT_KEYS.includes(k)) ? ' (only text envs, actions: \'text\', have them)' : '';
    return { problem: `spec has no key ${unknown.map((k) => `'${k}'`).join(', ')}${why}${textOnly}; its keys are ${keys.join(', ')}` };
  }
  const actions = record.actions;
  if (!ENV_MODULE_ACTIONS.includes(actions as ActionKind)) {
    const choices = ENV_MODULE_ACTIONS.map((a) => `'${a}'`);
    return { problem: `spec.actions must be ${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}${actions === undefined ? '' : `, not ${JSON.stringify(actions)}`}` };
  }
  const names = (key: 'observations' | 'info' | 'goal' | 'achieved'): string[] | string => {
    const list = record[key] ?? [];
    if (!Array.isArray(list) || !list.every((n) => typeof n === 'string' && NAME.test(n))) return `spec.${key} must be a list of names such as ['x', 'y']`;
    const twice = list.find((n, i) => list.indexOf(n) !== i);
    return twice === undefined ? (list as string[]) : `spec.${key} names '${twice}' twice`;
  };
  const observations = names('observations');
  if (typeof observations === 'string') return { problem: observations };
  const info = names('info');
  if (typeof info === 'string') return { problem: info };
  if (!text) {
    const goal = goalFields(record, observations);
    if (typeof goal === 'string') return { problem: goal };
    return { spec: { observations, actions: actions as ActionKind, info, ...(goal ? { goal } : {}) } };
  }
  const bounds = textBounds(record);
  if (typeof bounds === 'string') return { problem: bounds };
  return { spec: { observations: [], actions: 'text', info, text: bounds } };
}

/** A goal-conditioned spec's goal and achieved names (both or neither, as many, each an observation), or what is wrong. */
function goalFields(record: Record<string, unknown>, observations: readonly string[]): EnvModuleSpec['goal'] | string | undefined {
  if (record.goal === undefined && record.achieved === undefined) return undefined;
  if (record.goal === undefined || record.achieved === undefined) return `a goal-conditioned spec names both goal and achieved (the observation numbers of the desired goal and of the achieved one); it has only ${record.goal === undefined ? 'achieved' : 'goal'}`;
  const lists: Record<string, string[]> = {};
  for (const key of ['goal', 'achieved'] as const) {
    const list = record[key];
    if (!Array.isArray(list) || list.length === 0 || !list.every((n) => typeof n === 'string')) return `spec.${key} must be a non-empty list of observation names such as ['x', 'y']`;
    const missing = list.find((n) => !observations.includes(n));
    if (missing !== undefined) return `spec.${key} names '${missing}', which is not among spec.observations (${observations.join(', ') || 'none declared'})`;
    lists[key] = list as string[];
  }
  if (lists.goal!.length !== lists.achieved!.length) return `spec.goal names ${lists.goal!.length} numbers and spec.achieved ${lists.achieved!.length}: a goal and what was achieved are compared number by number`;
  return { goal: lists.goal!, achieved: lists.achieved! };
}

/** A text spec's bounds, or what is wrong with them. */
function textBounds(record: Record<string, unknown>): TextModuleSpec | string {
  const counts: Record<string, number> = {};
  for (const [key, max] of Object.entries(TEXT_LIMITS)) {
    const value = record[key];
    if (value === undefined) return `a text env's spec needs ${key}: a whole number from 1 to ${max} (${TEXT_HINTS[key as keyof typeof TEXT_LIMITS]})`;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) return `spec.${key} must be a whole number from 1 to ${max}, not ${JSON.stringify(value)}`;
    counts[key] = value;
  }
  const alphabet = record.alphabet ?? DEFAULT_TEXT_ALPHABET;
  if (typeof alphabet !== 'string' || alphabet.length === 0) return `spec.alphabet must be a non-empty string of the characters the env and the agent write, not ${JSON.stringify(alphabet)}`;
  return { maxTurns: counts.max_turns!, maxObservation: counts.max_observation!, maxAction: counts.max_action!, alphabet };
}

const TEXT_HINTS: Record<keyof typeof TEXT_LIMITS, string> = {
  max_turns: 'agent turns before a dialogue is cut',
  max_observation: 'the longest message the env writes, in characters',
  max_action: 'the longest turn the agent may write, in characters',
};

/** The env spec the checker and completion use for a module that declares one. */
export function moduleEnvSpec(spec: EnvModuleSpec, file: string): EnvSpec {
  return {
    declKind: 'env',
    name: `module("${file}")`,
    doc: spec.text ? `A user text environment (a dialogue of at most ${spec.text.maxTurns} agent turns): ${file}.` : `A user environment: ${file}.`,
    params: [],
    obsFields: [...spec.observations],
    action: spec.actions,
    infoFields: [...spec.info],
    ...(spec.goal ? { goalConditioned: true } : {}),
    ...(spec.text ? { dialogue: true } : {}),
  };
}
