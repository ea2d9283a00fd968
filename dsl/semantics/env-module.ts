// Reading what a user env module declares (`export const spec = {...}`, schema/env-module.ts)
// from its text, without running it: the checker and the language server must never run user
// code. So the spec must be a literal; where it is not, the checker says so at the module path.
// The same file format serves learner modules (`algorithm X = module(...)`, schema/learner-module.ts):
// a spec with `kind`, `settings` or `api` is a learner's, read by its own rules.
import { envModuleSpec, type EnvModuleSpec } from '../schema/env-module.js';
import { learnerModuleSpec, type LearnerModuleSpec } from '../schema/learner-module.js';

/** What the checker learned from a module's text. */
export type EnvModuleRead =
  | { readonly kind: 'missing' }
  /** The module exports no `spec`: its names are known only once it runs. */
  | { readonly kind: 'undeclared' }
  | { readonly kind: 'declared'; readonly spec: EnvModuleSpec }
  /** The module declares a learner (schema/learner-module.ts), not an env. */
  | { readonly kind: 'learner'; readonly spec: LearnerModuleSpec }
  /** `line`: 1-based, in the module's file. */
  | { readonly kind: 'invalid'; readonly message: string; readonly line: number }
  /** A Python file (`python("./envs/x.py:Class")`): the names it defines at its top level (classes, assignments, imports). */
  | {
      readonly kind: 'python';
      readonly names: readonly string[];
      /** The own methods (`def` one level in) of each top-level class that has no base classes (whose methods are all its own), for a python_text env's reset/step. */
      readonly methods?: Readonly<Record<string, readonly string[]>>;
    };

/**
 * The names a Python file defines at its top level, read from its text without running it:
 * `class Name`, `Name = ...`, and the names of its `import` and `from ... import` lines. Enough
 * to say "no class Reacher in it"; a name made otherwise (exec, a star import) is not seen, so
 * the checker only warns.
 */
export function readPythonNames(text: string): EnvModuleRead {
  const names = new Set<string>();
  const methods: Record<string, string[]> = {};
  let inClass: string[] | undefined;
  let indent: string | undefined;
  for (const line of text.split('\n')) {
    const defined = /^(?:class|def)[ \t]+([A-Za-z_]\w*)|^([A-Za-z_]\w*)[ \t]*(?::[^=]*)?=(?!=)/.exec(line);
    if (defined) names.add(defined[1] ?? defined[2]!);
    const imported = /^(?:from[ \t]+\S+[ \t]+)?import[ \t]+(.*)$/.exec(line);
    if (imported) for (const word of imported[1]!.match(/[A-Za-z_]\w*/g) ?? []) names.add(word);
    // A class's methods: `def` at the indentation of the class body's first statement.
    // A class with bases may inherit its methods: only one without (or of `object`) is listed.
    const classLine = /^class[ \t]+([A-Za-z_]\w*)[ \t]*(?:\(([^)]*)\))?/.exec(line);
    if (classLine) {
      const bases = (classLine[2] ?? '').split(',').map((b) => b.trim()).filter((b) => b !== '' && b !== 'object');
      inClass = bases.length === 0 ? (methods[classLine[1]!] = []) : undefined;
      indent = undefined;
      continue;
    }
    if (/^\S/.test(line) && !line.startsWith('#')) inClass = undefined;
    if (!inClass || line.trim() === '' || line.trim().startsWith('#')) continue;
    const lead = /^[ \t]*/.exec(line)![0];
    indent ??= lead;
    const method = /^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)/.exec(line);
    if (method && lead === indent) inClass.push(method[1]!);
  }
  return { kind: 'python', names: [...names], methods };
}

/** What a module's text declares, read without running it. */
export function readEnvModuleSpec(text: string): EnvModuleRead {
  // A top-level declaration at the start of a line (comments and strings cannot start one there).
  const found = /^[ \t]*export[ \t]+const[ \t]+spec\b[^=\n]*=/m.exec(text);
  if (!found) return { kind: 'undeclared' };
  const reader = new LiteralReader(text, found.index + found[0].length);
  try {
    const value = reader.value();
    if (isLearnerSpec(value)) {
      const learner = learnerModuleSpec(value);
      return 'spec' in learner ? { kind: 'learner', spec: learner.spec } : { kind: 'invalid', message: learner.problem, line: lineOf(text, found.index) };
    }
    const read = envModuleSpec(value);
    return 'spec' in read ? { kind: 'declared', spec: read.spec } : { kind: 'invalid', message: read.problem, line: lineOf(text, found.index) };
  } catch (err) {
    if (!(err instanceof NotLiteral)) throw err;
    const message = err instanceof TooDeep ? err.message : `rlx reads spec without running the module, so it must be written out as a literal: ${err.message}`;
    return { kind: 'invalid', message, line: lineOf(text, err.offset) };
  }
}

/** A learner's spec names its kind or settings (an env's names its actions). */
function isLearnerSpec(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && ['kind', 'settings', 'api'].some((k) => k in value);
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

class NotLiteral extends Error {
  constructor(message: string, readonly offset: number) {
    super(message);
  }
}

/** A literal, but nested past MAX_SPEC_NESTING: said as it is, not as "not a literal". */
class TooDeep extends NotLiteral {}

/**
 * How deep a spec's objects and lists may nest. A spec needs three levels (spec, settings, a
 * setting); the reader recurses once per level, so a limit keeps a file of 20,000 `{` from
 * overflowing the checker's stack.
 */
export const MAX_SPEC_NESTING = 32;

/** Reads one JavaScript literal (objects, lists, strings, numbers, true/false/null), comments allowed. */
class LiteralReader {
  private depth = 0;

  constructor(private readonly text: string, private at: number) {}

  value(): unknown {
    this.skip();
    const c = this.text[this.at];
    if (c === '{' || c === '[') {
      if (this.depth >= MAX_SPEC_NESTING) throw new TooDeep(`spec nests objects and lists more than ${MAX_SPEC_NESTING} deep; it needs three levels (spec, settings, a setting)`, this.at);
      this.depth++;
      try {
        return c === '{' ? this.object() : this.list();
      } finally {
        this.depth--;
      }
    }
    if (c === '"' || c === "'") return this.string();
    const word = /^(-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|true|false|null)\b/.exec(this.text.slice(this.at, this.at + 64));
    if (word) {
      this.at += word[0].length;
      return word[0] === 'true' ? true : word[0] === 'false' ? false : word[0] === 'null' ? null : Number(word[0]);
    }
    const what = /^[^\s,}\]]{1,30}/.exec(this.text.slice(this.at))?.[0] ?? 'the end of the file';
    throw new NotLiteral(`found ${what}`, this.at);
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.at++;
    for (;;) {
      this.skip();
      if (this.eat('}')) return out;
      const c = this.text[this.at];
      const key = c === '"' || c === "'" ? this.string() : this.identifier();
      this.skip();
      if (!this.eat(':')) throw new NotLiteral(`expected ':' after '${key}'`, this.at);
      // Defined, not assigned: `__proto__: {...}` is then a key the spec's checks see (and refuse), not a prototype.
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.skip();
      if (!this.eat(',') && this.text[this.at] !== '}') throw new NotLiteral("expected ',' or '}'", this.at);
    }
  }

  private list(): unknown[] {
    const out: unknown[] = [];
    this.at++;
    for (;;) {
      this.skip();
      if (this.eat(']')) return out;
      out.push(this.value());
      this.skip();
      if (!this.eat(',') && this.text[this.at] !== ']') throw new NotLiteral("expected ',' or ']'", this.at);
    }
  }

  private string(): string {
    const quote = this.text[this.at];
    const start = this.at;
    let out = '';
    for (this.at++; this.at < this.text.length; this.at++) {
      const c = this.text[this.at];
      if (c === quote) {
        this.at++;
        return out;
      }
      if (c === '\n') break;
      if (c === '\\') this.at++;
      out += this.text[this.at];
    }
    throw new NotLiteral('a string that does not end on its line', start);
  }

  private identifier(): string {
    const name = /^[A-Za-z_$][\w$]*/.exec(this.text.slice(this.at, this.at + 256))?.[0];
    if (!name) throw new NotLiteral('expected a key', this.at);
    this.at += name.length;
    return name;
  }

  private eat(c: string): boolean {
    if (this.text[this.at] !== c) return false;
    this.at++;
    return true;
  }

  /** Skips white space and comments. */
  private skip(): void {
    for (;;) {
      const rest = /^(?:\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/)/.exec(this.text.slice(this.at, this.at + 4096));
      if (!rest || rest[0].length === 0) return;
      this.at += rest[0].length;
    }
  }
}
