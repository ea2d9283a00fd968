// The one reader of a plan component's params (an algorithm's hyperparameters, a policy's
// settings, an env's configuration). What each built-in takes, its defaults, docs and ranges
// are declared once, in the language's schema registry (dsl/schema); this reader fills the
// defaults from there and checks each value against the declared type and range, so a plan
// written by hand or by a program gets the same answers as one the checker passed. Errors
// name the component and the param.
import { closestNames } from '../dsl/diagnostics.js';
import { builtin, type NumberType, type ParamSpec, type ValueType } from '../dsl/schema/index.js';
import { checkSchedulable, type Schedulable } from './schedule.js';
import { InputError } from '../shared/input-error.js';

/** A plan value that does not fit what the registry declares; names the component and the param. */
export class ParamError extends InputError {
  override name = 'ParamError';
  constructor(
    readonly owner: string,
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

export class PlanParams {
  private readonly specs: ReadonlyMap<string, ParamSpec>;

  /**
   * `owner` names the component in messages ("PPO", "policy mlp"); `declared` is its params
   * as the registry declares them; `given` is the plan's values.
   */
  constructor(
    private readonly owner: string,
    declared: readonly ParamSpec[],
    private readonly given: Readonly<Record<string, unknown>>,
    private readonly makeError: (owner: string, param: string, message: string) => Error = (...args) => new ParamError(...args),
  ) {
    this.specs = new Map(declared.map((p) => [p.name, p]));
    for (const name of Object.keys(given)) {
      if (this.specs.has(name)) continue;
      const valid = [...this.specs.keys()];
      const [hint] = closestNames(name, valid, 1);
      throw this.makeError(owner, name, `${owner}: unknown param "${name}"${hint ? ` (did you mean "${hint}"?)` : ''}; valid params: ${valid.join(', ')}`);
    }
  }

  /** The params of the registry's built-in `name` (an algorithm, policy or env kind). */
  static of(name: string, given: Readonly<Record<string, unknown>>, owner: string = name, makeError?: (owner: string, param: string, message: string) => Error): PlanParams {
    const spec = builtin(name);
    if (!spec) throw new Error(`${owner}: "${name}" is not a built-in of the language`);
    return new PlanParams(owner, spec.params, given, makeError);
  }

  /** The declared params, for descriptions (envInfo). */
  get declared(): readonly ParamSpec[] {
    return [...this.specs.values()];
  }

  private spec(name: string): ParamSpec {
    const spec = this.specs.get(name);
    // A reader asking for a param the registry does not declare is a bug in rlx, not the plan.
    if (!spec) throw new Error(`${this.owner}: the registry declares no param "${name}"`);
    return spec;
  }

  /** The plan's value, or the registry's default. */
  value(name: string): unknown {
    // Only a missing value takes the default: null is the plan's `none`, which may be wrong.
    const given = this.given[name];
    return given !== undefined ? given : (this.spec(name).default ?? null);
  }

  /** Throws the component's error for param `name`: `what` it must be, and what it got. */
  fail(name: string, what: string): never {
    const got = this.value(name);
    throw this.makeError(this.owner, name, `${this.owner}: param "${name}" must be ${what}, got ${describeValue(got)}`);
  }

  /** A number within the declared range (a whole one where declared so). */
  number(name: string): number {
    const v = this.value(name);
    const type = numberType(this.spec(name).type);
    if (typeof v !== 'number' || !Number.isFinite(v) || (type && !inRange(v, type))) this.fail(name, type ? describeRange(type) : 'a number');
    return v;
  }

  /** A whole number >= 1 within the declared range. */
  count(name: string): number {
    const v = this.number(name);
    return Number.isSafeInteger(v) && v >= 1 ? v : this.fail(name, 'a positive integer');
  }

  flag(name: string): boolean {
    const v = this.value(name);
    return typeof v === 'boolean' ? v : this.fail(name, 'true or false');
  }

  /** A number or a schedule of numbers. */
  schedule(name: string): Schedulable {
    const v = this.value(name);
    if (typeof v === 'number') return this.number(name);
    try {
      return checkSchedulable(v, `${this.owner}: param "${name}"`);
    } catch (err) {
      throw this.makeError(this.owner, name, (err as Error).message);
    }
  }

  /** A number, or null for `none`. */
  numberOrNone(name: string): number | null {
    const v = this.value(name);
    return v === 'none' || v === null ? null : this.number(name);
  }

  /** One of the declared options (bare names). */
  option<const T extends string>(name: string, options: readonly T[]): T {
    const v = this.value(name);
    return typeof v === 'string' && (options as readonly string[]).includes(v) ? (v as T) : this.fail(name, `one of ${options.join(', ')}`);
  }

  /** A non-empty list of positive whole numbers, each in the declared range. */
  counts(name: string): number[] {
    const v = this.value(name);
    const declared = this.spec(name).type;
    const item = declared.kind === 'list' ? numberType(declared.of) : undefined;
    const fits = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 1 && (!item || inRange(x as number, item));
    return Array.isArray(v) && v.length > 0 && v.every(fits) ? (v as number[]) : this.fail(name, `a non-empty list of ${item ? describeRange({ ...item, integer: true }).replace('a whole number', 'whole numbers') : 'positive whole numbers'}`);
  }
}

/** The number type of a param (the number branch of a oneOf), if it has one. */
export function numberType(type: ValueType): NumberType | undefined {
  if (type.kind === 'number') return type;
  if (type.kind === 'oneOf') return type.types.map(numberType).find((t) => t !== undefined);
  return undefined;
}

function inRange(v: number, t: NumberType): boolean {
  if (t.integer && !Number.isSafeInteger(v)) return false;
  if (t.min !== undefined && (t.exclusiveMin ? v <= t.min : v < t.min)) return false;
  if (t.max !== undefined && (t.exclusiveMax ? v >= t.max : v > t.max)) return false;
  return true;
}

function describeRange(t: NumberType): string {
  const what = t.integer ? 'a whole number' : 'a number';
  const bounds = [
    t.min !== undefined ? `${t.exclusiveMin ? '>' : '>='} ${t.min}` : '',
    t.max !== undefined ? `${t.exclusiveMax ? '<' : '<='} ${t.max}` : '',
  ].filter(Boolean);
  return bounds.length > 0 ? `${what} ${bounds.join(' and ')}` : what;
}

function describeValue(value: unknown): string {
  if (value === null) return 'none';
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value) ?? String(value);
}
