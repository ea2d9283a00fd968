// Parameter tables for the built-in environments: one table per env, each
// entry with its default, its type and range and a line of documentation.
// The constructor, makeEnv() and envInfo() all read the same table, so a
// default is written exactly once. (The language's schema registry in dsl/
// declares the same parameters for the checker; a test compares the two.)

/** Thrown for a bad environment parameter; says which env and which param. */
export class EnvParamError extends Error {
  constructor(
    readonly env: string,
    readonly param: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'EnvParamError';
  }
}

/** Thrown by a ParamSpec's parse(); resolveParams() adds the env and param names. */
class InvalidValue extends Error {}

export interface ParamSpec<T> {
  /** For documentation and envInfo(): number, integer, enum, or a special type such as goal. */
  readonly type: string;
  readonly default: T;
  readonly doc: string;
  readonly min?: number;
  readonly max?: number;
  readonly values?: readonly string[];
  /** Checks a user's value and returns it in canonical form; throws when it does not fit. */
  parse(value: unknown): T;
}

// Each entry keeps its own value type (ParamSpec is covariant in T), which
// ParamValues recovers.
export type ParamTable = Readonly<Record<string, ParamSpec<unknown>>>;

export type ParamValues<T extends ParamTable> = { -readonly [K in keyof T]: T[K] extends ParamSpec<infer V> ? V : never };

/** What envInfo() reports for one parameter. */
export interface ParamDescription {
  readonly name: string;
  readonly type: string;
  readonly default: unknown;
  readonly doc: string;
  readonly min?: number;
  readonly max?: number;
  readonly values?: readonly string[];
}

export function invalid(message: string): never {
  throw new InvalidValue(message);
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null) return 'none';
  if (typeof value === 'object') return JSON.stringify(value) ?? String(value);
  return String(value);
}

interface RangeOptions {
  min?: number;
  max?: number;
  /** The value must be strictly above min (a mass or a time step cannot be 0). */
  minExclusive?: boolean;
}

function checkRange(value: number, options: RangeOptions): void {
  const { min, max, minExclusive } = options;
  if (min !== undefined && (minExclusive ? value <= min : value < min)) {
    invalid(`must be ${minExclusive ? '>' : '>='} ${min}, got ${value}`);
  }
  if (max !== undefined && value > max) invalid(`must be <= ${max}, got ${value}`);
}

export function numberParam(defaultValue: number, doc: string, options: RangeOptions = {}): ParamSpec<number> {
  return {
    type: 'number',
    default: defaultValue,
    doc,
    min: options.min,
    max: options.max,
    parse(value) {
      if (typeof value !== 'number' || !Number.isFinite(value)) invalid(`must be a finite number, got ${describeValue(value)}`);
      checkRange(value, options);
      return value;
    },
  };
}

export function integerParam(
  defaultValue: number,
  doc: string,
  options: RangeOptions = {},
): ParamSpec<number> {
  return {
    type: 'integer',
    default: defaultValue,
    doc,
    min: options.min,
    max: options.max,
    parse(value) {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) invalid(`must be an integer, got ${describeValue(value)}`);
      checkRange(value, options);
      return value;
    },
  };
}

export function enumParam<const V extends string>(values: readonly V[], defaultValue: V, doc: string): ParamSpec<V> {
  return {
    type: 'enum',
    default: defaultValue,
    doc,
    values,
    parse(value) {
      if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) {
        invalid(`must be one of ${values.join(', ')}, got ${describeValue(value)}`);
      }
      return value as V;
    },
  };
}

/** Levenshtein distance, for "did you mean" hints on misspelt names. */
function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0];
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j];
      previous[j] = Math.min(previous[j] + 1, previous[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length];
}

/** The closest candidate to `name`, if it is close enough to be a likely typo. */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= Math.max(1, Math.floor(name.length / 3)) ? best : undefined;
}

/**
 * Fills defaults and checks every given value against `table`. Throws an
 * EnvParamError naming the env, the param and (for unknown names) the valid ones.
 */
export function resolveParams<T extends ParamTable>(envKind: string, table: T, given: object = {}): ParamValues<T> {
  const names = Object.keys(table);
  const resolved: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(given)) {
    if (!Object.hasOwn(table, name)) {
      const hint = closestName(name, names);
      throw new EnvParamError(
        envKind,
        name,
        `${envKind}: unknown param "${name}"${hint ? ` (did you mean "${hint}"?)` : ''}; valid params: ${names.join(', ')}`,
      );
    }
    if (value === undefined) continue;
    try {
      resolved[name] = table[name].parse(value);
    } catch (error) {
      if (!(error instanceof InvalidValue)) throw error;
      throw new EnvParamError(envKind, name, `${envKind}: param "${name}" ${error.message}`);
    }
  }
  for (const name of names) {
    if (!(name in resolved)) resolved[name] = table[name].default;
  }
  return resolved as ParamValues<T>;
}

export function describeParams(table: ParamTable): ParamDescription[] {
  return Object.entries(table).map(([name, spec]) => {
    const description: { -readonly [K in keyof ParamDescription]: ParamDescription[K] } = {
      name,
      type: spec.type,
      default: spec.default,
      doc: spec.doc,
    };
    if (spec.min !== undefined) description.min = spec.min;
    if (spec.max !== undefined) description.max = spec.max;
    if (spec.values !== undefined) description.values = spec.values;
    return description;
  });
}
