// `row.NAME` in a text task's reward terms: a field of the dataset row the prompt came from. The
// compiled code reads it through here (`h.row.number(c, k)`, `h.row.text(c, k)`), so that a row
// without the field, or with a value the term cannot use, is an error naming the row's line and
// the field, not a NaN or an "undefined" trained on.
import { InputError } from '../../shared/input-error.js';

/** A dataset row that a reward term cannot read (no such field, or a value of the wrong kind). */
export class RowFieldError extends InputError {
  override name = 'RowFieldError';
}

/** What the compiled code reads a row from: the row, and where it is (`./data.jsonl line 12`). */
export interface RowSource {
  row: Readonly<Record<string, unknown>> | undefined;
  rowWhere: string;
}

export class RowFields {
  /** The fields the terms read, each once; code refers to them by index. */
  readonly names: string[] = [];

  constructor(private readonly owner: string) {}

  index(name: string): number {
    const found = this.names.indexOf(name);
    return found >= 0 ? found : this.names.push(name) - 1;
  }

  /** A field as a number: a JSON number, or true/false as 1/0. */
  number(c: RowSource, k: number): number {
    const value = this.value(c, k);
    if (typeof value === 'number') return value;
    if (typeof value === 'boolean') return value ? 1 : 0;
    throw this.wrong(c, k, value, 'a number (or true/false)', typeof value === 'string' ? `; text goes into a verifier, such as exact(completion, row.${this.names[k]})` : '');
  }

  /** A field as text, for a verifier: a string, or a number as JSON writes it (`numeric(last_number(completion), row.answer)` with "answer": 42). */
  text(c: RowSource, k: number): string {
    const value = this.value(c, k);
    if (typeof value === 'string') return value;
    if (typeof value === 'number') return String(value);
    throw this.wrong(c, k, value, 'text (or a number)', '');
  }

  /** A field as the code verifier's tests: a list of texts (one test each), or one text (one test). */
  tests(c: RowSource, k: number): string[] {
    const value = this.value(c, k);
    if (typeof value === 'string') return [value];
    if (Array.isArray(value) && value.every((t) => typeof t === 'string')) return value as string[];
    throw this.wrong(c, k, value, 'tests: a list of texts (Python statements such as "assert f(1) == 2"), or one text of test code', Array.isArray(value) ? '; every item of the list must be text' : '');
  }

  private value(c: RowSource, k: number): unknown {
    const row = c.row;
    const name = this.names[k]!;
    if (row === undefined) throw new RowFieldError(`${this.owner}: row.${name}: the task's examples are generated, not read from a dataset, so they have no row fields; row.NAME needs task: dataset("./file.jsonl")`);
    if (!Object.hasOwn(row, name)) {
      const fields = Object.keys(row);
      throw new RowFieldError(`${this.owner}: ${c.rowWhere} has no field "${name}" (row.${name}); its fields are ${fields.join(', ')}. Give every row the field, or drop it from the reward`);
    }
    return row[name];
  }

  private wrong(c: RowSource, k: number, value: unknown, wanted: string, hint: string): RowFieldError {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : typeof value === 'string' ? 'text' : typeof value === 'boolean' ? 'true/false' : typeof value;
    return new RowFieldError(`${this.owner}: ${c.rowWhere}: row.${this.names[k]} is ${kind}, where the term needs ${wanted}${hint}`);
  }
}
