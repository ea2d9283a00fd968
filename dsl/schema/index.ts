// The schema registry: the one place that says which built-ins exist and what they take.
import type { DeclKind } from '../syntax/ast.js';
import { ALGORITHMS, stageHandoverProblem } from './algorithms.js';
import { DECLARATION_SCHEMAS } from './declarations.js';
import { ENVS, MODULE_ENV_PARAMS } from './envs.js';
import { FUNCTIONS, METRICS, REWARD_NAME_ENVS, REWARD_NAMES, rewardNameAvailable, SCHEDULES, tagNameProblem } from './expressions.js';
import { LORA_TARGETS, POLICIES, pretrained } from './policies.js';
import { NOT_IMPLEMENTED_BUILTINS, NOT_IMPLEMENTED_FEATURES, NOT_IMPLEMENTED_METRICS } from './not-implemented.js';
import type { AlgorithmSpec, BuiltinSpec, FunctionSpec, ParamSpec } from './types.js';

export * from './types.js';
export { stageHandoverProblem };
export { ALGORITHMS, DECLARATION_SCHEMAS, ENVS, MODULE_ENV_PARAMS, FUNCTIONS, METRICS, POLICIES, REWARD_NAME_ENVS, REWARD_NAMES, rewardNameAvailable, SCHEDULES, tagNameProblem };
export { LORA_TARGETS, pretrained };
export { algorithmWork, dataFilesOf, fileTypeOf, stageDataFiles, stageWork } from './work.js';
export { NOT_IMPLEMENTED_BUILTINS, NOT_IMPLEMENTED_FEATURES, NOT_IMPLEMENTED_METRICS };

/** The language version recorded in every plan. */
export const LANGUAGE_VERSION = '1';

const BUILTINS: BuiltinSpec[] = [...ENVS, ...ALGORITHMS, ...POLICIES];
const byName = new Map<string, BuiltinSpec>(BUILTINS.map((b) => [b.name, b]));
const functionsByName = new Map<string, FunctionSpec>(FUNCTIONS.map((f) => [f.name, f]));
const schedulesByName = new Map(SCHEDULES.map((s) => [s.name, s]));

export function builtin(name: string): BuiltinSpec | undefined {
  return byName.get(name);
}

/** A built-in written as a call with its folder (`pretrained("./models/x")`), never as a bare name. */
export function takesFolder(spec: BuiltinSpec): boolean {
  return spec.declKind === 'policy' && spec.folder !== undefined;
}

/**
 * What a built-in name is, in words ('built-in algorithm', 'built-in function', 'schedule'), for
 * every name a declaration may not take (docs/language.md: "may not reuse a built-in's name"):
 * the built-in envs, algorithms and policies, and the functions and schedules expressions call.
 */
export function builtinNameKind(name: string): string | undefined {
  const spec = byName.get(name);
  if (spec) return `built-in ${spec.declKind}`;
  if (functionsByName.has(name)) return 'built-in function';
  if (schedulesByName.has(name)) return 'built-in schedule';
  return undefined;
}

export function builtinsOfKind(kind: DeclKind): BuiltinSpec[] {
  return BUILTINS.filter((b) => b.declKind === kind);
}

export function algorithmSpec(name: string): AlgorithmSpec | undefined {
  const b = byName.get(name);
  return b?.declKind === 'algorithm' ? b : undefined;
}

export function functionSpec(name: string): FunctionSpec | undefined {
  return functionsByName.get(name);
}

export function scheduleSpec(name: string): { name: string; doc: string; params: ParamSpec[] } | undefined {
  return schedulesByName.get(name);
}
