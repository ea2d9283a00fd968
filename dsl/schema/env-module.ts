// What a user env module (`env Mine = module("./mine.ts")`) declares about itself, so that the
// checker and the editor know its names without running user code:
//
//   export const spec = {
//     observations: ['x', 'y'],          // the observation numbers, in order: obs.x, obs.y
//     actions: 'discrete',               // 'discrete' | 'continuous'
//     info: ['success', 'distance'],     // what step() reports in info: info.distance
//   };
//
// The checker reads it from the file's text (semantics/env-module.ts); the trainer checks the
// module's actual `spec` export against the same rules (envModuleSpec) and against what the
// module does. Other keys are refused, so a misspelling is caught; the rules grow here when
// modules gain kinds (text envs: `actions: 'text'`).
import type { ActionKind, EnvSpec } from './types.js';

export interface EnvModuleSpec {
  /** Names of the observation numbers, in order; empty when the module names none. */
  readonly observations: readonly string[];
  readonly actions: ActionKind;
  /** Names step() reports in its info, as numbers or true/false. */
  readonly info: readonly string[];
}

/** The action kinds a module may declare. */
export const ENV_MODULE_ACTIONS: readonly ActionKind[] = ['discrete', 'continuous'];

const KEYS = ['observations', 'actions', 'info'];
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The spec a value describes, or what is wrong with it (the trainer checks the module's export with this). */
export function envModuleSpec(value: unknown): { spec: EnvModuleSpec } | { problem: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'spec must be an object: { observations: [...], actions: \'discrete\', info: [...] }' };
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((k) => !KEYS.includes(k));
  if (unknown.length > 0) return { problem: `spec has no key ${unknown.map((k) => `'${k}'`).join(', ')}; its keys are ${KEYS.join(', ')}` };
  const names = (key: 'observations' | 'info'): string[] | string => {
    const list = record[key] ?? [];
    if (!Array.isArray(list) || !list.every((n) => typeof n === 'string' && NAME.test(n))) return `spec.${key} must be a list of names such as ['x', 'y']`;
    const twice = list.find((n, i) => list.indexOf(n) !== i);
    return twice === undefined ? (list as string[]) : `spec.${key} names '${twice}' twice`;
  };
  const observations = names('observations');
  if (typeof observations === 'string') return { problem: observations };
  const info = names('info');
  if (typeof info === 'string') return { problem: info };
  const actions = record.actions;
  if (!ENV_MODULE_ACTIONS.includes(actions as ActionKind)) {
    return { problem: `spec.actions must be ${ENV_MODULE_ACTIONS.map((a) => `'${a}'`).join(' or ')}${actions === undefined ? '' : `, not ${JSON.stringify(actions)}`}` };
  }
  return { spec: { observations, actions: actions as ActionKind, info } };
}

/** The env spec the checker and completion use for a module that declares one. */
export function moduleEnvSpec(spec: EnvModuleSpec, file: string): EnvSpec {
  return {
    declKind: 'env',
    name: `module("${file}")`,
    doc: `A user environment: ${file}.`,
    params: [],
    obsFields: [...spec.observations],
    action: spec.actions,
    infoFields: [...spec.info],
  };
}
