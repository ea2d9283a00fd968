// Reading a built-in env's configuration from a plan (or from makeEnv's caller). Its names,
// defaults, docs and ranges are the language's (dsl/schema/envs.ts); each env reads them with
// envParams() into its own typed config, so a default is written exactly once, in the registry.
import { builtin, type ParamSpec } from '../../dsl/schema/index.js';
import { numberType, PlanParams, ParamError } from '../plan-params.js';

/** Thrown for a bad environment param; says which env and which param. */
export class EnvParamError extends ParamError {
  override name = 'EnvParamError';
  constructor(
    readonly env: string,
    param: string,
    message: string,
  ) {
    super(env, param, message);
  }
}

/** The configuration `given` for built-in env `kind`: defaults from the registry, each value checked. */
export function envParams(kind: string, given: object = {}): PlanParams {
  return PlanParams.of(kind, given as Record<string, unknown>, kind, (env, param, message) => new EnvParamError(env, param, message));
}

/** What envInfo() reports for one parameter. */
export interface ParamDescription {
  readonly name: string;
  /** number, integer, enum, or the registry's kind of value (a choice with arguments: `choice`). */
  readonly type: string;
  readonly default: unknown;
  readonly doc: string;
  readonly min?: number;
  readonly max?: number;
  readonly values?: readonly string[];
}

/** The registry's params of env `kind`, described. */
export function describeParams(kind: string): ParamDescription[] {
  return (builtin(kind)?.params ?? []).map(describe);
}

function describe(spec: ParamSpec): ParamDescription {
  const number = numberType(spec.type);
  const base = { name: spec.name, default: spec.default, doc: spec.doc };
  if (number) {
    return { ...base, type: number.integer ? 'integer' : 'number', ...(number.min !== undefined ? { min: number.min } : {}), ...(number.max !== undefined ? { max: number.max } : {}) };
  }
  if (spec.type.kind === 'choice') {
    const bare = spec.type.options.every((o) => !o.params);
    return { ...base, type: bare ? 'enum' : 'choice', values: spec.type.options.map((o) => o.name) };
  }
  return { ...base, type: spec.type.kind };
}
