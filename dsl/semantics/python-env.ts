// What the checker may know of a Python env (`env Cart = gymnasium("CartPole-v1")`): its spaces,
// learnt by running it once at check time (a probe). The checker never runs Python itself: a
// host that may (rlx check, the language server in a trusted workspace) injects a
// PythonEnvFactsProvider (runtime/envs/python/probe-cache.ts), and the model turns facts into the
// env's spec, so `obs.` names and the action kind are checked and completed as for a TS module
// that declares its spec. Without a provider, or before a probe has answered, nothing is known
// and the names are checked when training starts.
import { GYMNASIUM_ENV_PARAMS } from '../schema/python-env.js';
import type { PythonEnvFacts, PythonEnvQuery } from '../schema/python-env-facts.js';
import type { EnvSpec } from '../schema/types.js';
import type { Expression } from '../syntax/ast.js';
import { constantNumber, literalValue } from './constant.js';
import type { EffectiveDeclaration } from './model.js';

export type { PythonEnvAction, PythonEnvFacts, PythonEnvFactsProvider, PythonEnvProbeFailure, PythonEnvQuery, PythonEnvRead } from '../schema/python-env-facts.js';

/**
 * The query of a gymnasium(...) env (`made`: its id) or a python(...) env (`made`: the file,
 * absolute, and the class) from its effective settings; undefined when one is not a literal
 * the checker can read.
 */
export function pythonEnvQuery(made: { id: string } | { file: string; className: string }, effective: EffectiveDeclaration): PythonEnvQuery | undefined {
  const stated = (name: string) => effective.properties.get(name)?.node.value;
  const defaults = (name: string) => GYMNASIUM_ENV_PARAMS.find((p) => p.name === name)?.default;
  const python = stated('python') ? stringOf(stated('python')) : '';
  const envTimeout = stated('env_timeout') ? constantNumber(stated('env_timeout')) : (defaults('env_timeout') as number);
  const importsExpr = stated('imports');
  const imports = importsExpr === undefined ? [] : importsExpr.kind === 'List' ? importsExpr.items.map(stringOf) : undefined;
  const kwargs = kwargsOf(effective);
  if (python === undefined || envTimeout === undefined || imports === undefined || imports.some((i) => i === undefined) || kwargs === undefined) return undefined;
  const env = 'id' in made ? { id: made.id } : { id: '', file: made.file, className: made.className };
  return { ...env, kwargs, imports: imports as string[], python, envTimeout };
}

/** The `kwargs { }` block as the trainer will send it; undefined when a value is not a literal (the checker reports it). */
function kwargsOf(effective: EffectiveDeclaration): Record<string, unknown> | undefined {
  const kwargs: Record<string, unknown> = {};
  for (const [key, { node }] of effective.blocks.get('kwargs') ?? []) {
    const value = node.value ? literalValue(node.value) : undefined;
    if (value === undefined) return undefined;
    kwargs[key] = value;
  }
  return kwargs;
}

/** The query as a string: the same env, the same key (keys are sorted, so a kwargs' order does not matter). */
export function pythonEnvKey(query: PythonEnvQuery): string {
  return JSON.stringify(sortKeys(query));
}

/** The spec the checker and completion use for a probed env. */
export function pythonEnvSpec(facts: PythonEnvFacts, label: string): EnvSpec {
  return {
    declKind: 'env',
    name: label,
    doc: `A Python environment (${facts.observationShape.join('x') || 'scalar'} observations, ${actionWords(facts.action)}), as probed: ${label}.`,
    params: [],
    obsFields: [...facts.observationNames],
    action: facts.action.kind,
    infoFields: [],
    ...(facts.goalConditioned ? { goalConditioned: true } : {}),
    ...(facts.actionMask === true ? { actionMask: true } : {}),
    // A Box of uint8 pixels as the whole observation, [C, H, W] or [H, W, C]: what a cnn policy reads.
    ...(facts.image?.key === '' && facts.image.shape.length === 3 ? { image: true } : {}),
  };
}

function actionWords(action: PythonEnvFacts['action']): string {
  if (action.kind === 'discrete') return `${action.n} discrete actions`;
  if (action.kind === 'multibinary') return `actions of ${action.n} bits`;
  return `${action.dims} continuous action dimensions`;
}

function stringOf(expr: Expression | undefined): string | undefined {
  return expr?.kind === 'String' ? expr.value : undefined;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]));
}
