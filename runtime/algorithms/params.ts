// Reading an algorithm's params from a plan: the names and defaults are the algorithm's table
// (the registry in dsl/schema declares the same; the drift test keeps them equal); a missing
// param takes its default, a wrong one is an error naming the algorithm and the param.
import { checkSchedulable, type Schedulable } from '../schedule.js';

export type ParamTable = Readonly<Record<string, { readonly default: unknown; readonly doc: string }>>;

export class ParamReader<T extends ParamTable> {
  constructor(
    private readonly algorithm: string,
    private readonly table: T,
    private readonly params: Readonly<Record<string, unknown>>,
  ) {
    for (const name of Object.keys(params)) {
      if (!Object.hasOwn(table, name)) throw new Error(`${algorithm}: unknown param "${name}"; valid params: ${Object.keys(table).join(', ')}`);
    }
  }

  private get(name: keyof T & string): unknown {
    return this.params[name] ?? this.table[name].default;
  }

  private fail(name: string, what: string): never {
    throw new Error(`${this.algorithm}: param "${name}" must be ${what}, got ${JSON.stringify(this.get(name))}`);
  }

  count(name: keyof T & string): number {
    const v = this.get(name);
    return Number.isSafeInteger(v) && (v as number) >= 1 ? (v as number) : this.fail(name, 'a positive integer');
  }

  number(name: keyof T & string): number {
    const v = this.get(name);
    return typeof v === 'number' && Number.isFinite(v) ? v : this.fail(name, 'a number');
  }

  flag(name: keyof T & string): boolean {
    const v = this.get(name);
    return typeof v === 'boolean' ? v : this.fail(name, 'true or false');
  }

  schedule(name: keyof T & string): Schedulable {
    return checkSchedulable(this.get(name), `${this.algorithm}: param "${name}"`);
  }

  /** A number, or null for `none`. */
  numberOrNone(name: keyof T & string): number | null {
    const v = this.get(name);
    return v === 'none' || v === null ? null : this.number(name);
  }
}
