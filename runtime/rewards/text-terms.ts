// Verifier calls in reward terms (`exact(completion, target)`, `0.1 * regex(completion, "^[0-9]+$")`),
// compiled to JS like every other term (runtime/rewards/expr.ts) for a text environment.
//
// Texts exist only as verifier arguments: the names `prompt`, `completion`, `target` (TextTask),
// `reply` (dialogues), "string" literals, and the extractors' answers read out of those
// (`last_number(completion)`, `boxed(...)`, `tagged(..., "answer")`, nested as deep as written);
// everything a verifier returns is a number. So this hook compiles a verifier call whole, reading
// its text arguments itself, and the rest of the compiler never sees a text value. Like the
// number compiler it pastes nothing from the plan into code: a literal becomes
// `h.text.strings[k]`, a pattern or tag name is checked here, once (a bad one is an error when the
// reward is compiled, not when a completion arrives), and the code refers to it by index.
import type { PlanExpr } from '../../dsl/compile/plan.js';
import { FUNCTIONS, REWARD_NAMES, rewardNameAvailable, tagNameProblem } from '../../dsl/schema/index.js';
import { ExprError } from './expr.js';
import type { RowFields } from './row-fields.js';
import { CodeCases, completionCode } from './code-verifier.js';
import { boxed, contains, exact, lastNumber, length, LinearRegex, numeric, PatternError, regex, tagged } from './verifiers.js';

/** The names text environments give reward terms (strings, set per completion or agent turn). */
export const TEXT_NAMES = ['prompt', 'completion', 'target', 'reply'] as const;
export type TextName = (typeof TEXT_NAMES)[number];

/**
 * The text names a single-turn task (TextTask) or a dialogue (GuessNumber, a user text module)
 * gives its reward terms: the registry's string names available there, so that the checker
 * (which reads the registry) and the compiled reward agree by construction.
 */
export function textNamesOf(env: { readonly dialogue: boolean }): readonly TextName[] {
  const names = REWARD_NAMES.filter((n) => n.type === 'string' && n.fields === undefined && rewardNameAvailable(n, { action: 'text', dialogue: env.dialogue })).map((n) => n.name);
  const unknown = names.find((name) => !(TEXT_NAMES as readonly string[]).includes(name));
  // A string name added to the registry needs its field in TextFields and in the envs that set it.
  if (unknown !== undefined) throw new Error(`reward name '${unknown}' is a string in the registry but not one of TEXT_NAMES`);
  return names as TextName[];
}

/** The extractors: text functions that give text (an answer read out of a text), a verifier's argument. */
export const TEXT_EXTRACTORS = ['last_number', 'boxed', 'tagged', 'completion_code'] as const;

/** The text functions this module compiles: the verifiers (giving numbers) and the extractors. */
export const TEXT_FUNCTIONS = ['exact', 'numeric', 'regex', 'contains', 'length', 'passes', ...TEXT_EXTRACTORS] as const;

const isExtractor = (call: string) => (TEXT_EXTRACTORS as readonly string[]).includes(call);

/** What the generated code reads as `c.prompt`, `c.completion`, `c.target`, `c.reply`. */
export interface TextFields {
  prompt: string;
  completion: string;
  target: string;
  reply: string;
}

/** Compiles a number-valued argument (numeric's `tol`) with the surrounding compiler. */
export type ScalarCompiler = (expr: PlanExpr) => string;

/** The run-time half: what `h.text` is in the generated code. */
export class TextVerifiers {
  readonly strings: string[] = [];
  readonly patterns: LinearRegex[] = [];
  readonly tags: string[] = [];
  readonly exact = exact;
  readonly numeric = numeric;
  readonly contains = contains;
  readonly length = length;
  readonly lastNumber = lastNumber;
  readonly boxed = boxed;
  readonly completionCode = completionCode;
  /** The passes() calls' cases, run a batch at a time (code-verifier.ts). */
  readonly code = new CodeCases('the reward\'s passes()');
  /** Whether a term calls passes(): the env then collects and runs a batch's cases before scoring it. */
  readsCode = false;

  /** `names`: the text names this env has (textNamesOf); `row`: a single-turn task's row fields (`row.NAME` as text). */
  constructor(private readonly names: readonly TextName[] = textNamesOf({ dialogue: false }), private readonly row?: RowFields) {}

  regex(index: number, s: string): number {
    return regex(s, this.patterns[index]);
  }

  tagged(index: number, s: string): string {
    return tagged(s, this.tags[index]);
  }

  /** Code for a verifier call, or undefined when `call` is not a verifier. Throws ExprError. */
  compileCall(call: string, args: readonly PlanExpr[], scalar: ScalarCompiler): string | undefined {
    if (!(TEXT_FUNCTIONS as readonly string[]).includes(call)) return undefined;
    if (isExtractor(call)) {
      throw new ExprError(`${call}() gives text, not a number: check it with a verifier, such as numeric(last_number(completion), target) or exact(${call}(...), target)`);
    }
    const spec = checkArity(call, args);
    const text = (k: number) => this.text(call, spec.params[k].name, args[k]);
    switch (call) {
      case 'exact':
      case 'contains':
        return `h.text.${call}(${text(0)}, ${text(1)})`;
      case 'length':
        return `h.text.length(${text(0)})`;
      case 'numeric': {
        const tol = args.length > 2 ? scalar(args[2]) : String(spec.params[2].default);
        return `h.text.numeric(${text(0)}, ${text(1)}, ${tol})`;
      }
      case 'regex':
        return `h.text.regex(${this.pattern(args[1])}, ${text(0)})`;
      case 'passes':
        this.readsCode = true;
        return `h.text.code.passes(${text(0)}, ${this.tests(args[1])})`;
    }
    return undefined;
  }

  /** Code for a text argument: one of the text names, a literal, or an extractor's answer. */
  private text(call: string, param: string, arg: PlanExpr): string {
    if ('ref' in arg && (this.names as readonly string[]).includes(arg.ref)) return `c.${arg.ref}`;
    if ('ref' in arg && arg.ref.startsWith('row.')) {
      const field = arg.ref.slice('row.'.length);
      if (!this.row) throw new ExprError(`${call}(): "${arg.ref}": only a single-turn text task (TextTask) with a dataset has rows`);
      if (field === '' || field.includes('.')) throw new ExprError(`${call}(): "${arg.ref}": name one field of the dataset row, such as row.answer`);
      return `h.row.text(c, ${this.row.index(field)})`;
    }
    if ('ref' in arg && (TEXT_NAMES as readonly string[]).includes(arg.ref)) {
      const which = this.names.includes('reply') ? 'a dialogue has no target (single-turn TextTask has)' : 'only dialogue envs have a reply';
      throw new ExprError(`${call}(): "${arg.ref}": ${which}; this env's texts are ${this.names.join(', ')}`);
    }
    if ('const' in arg && typeof arg.const === 'string') return `h.text.strings[${this.strings.push(arg.const) - 1}]`;
    if ('call' in arg && isExtractor(arg.call)) return this.extract(arg.call, arg.args);
    throw new ExprError(`${call}(): "${param}" must be text (${this.names.join(', ')}${this.row ? ', row.NAME' : ''} or a "string", or ${TEXT_EXTRACTORS.join('/')} of one), got ${describe(arg)}`);
  }

  /** Code for an extractor's call, a text argument of a verifier (or of another extractor). */
  private extract(call: string, args: readonly PlanExpr[]): string {
    const spec = checkArity(call, args);
    const text = this.text(call, spec.params[0].name, args[0]);
    switch (call) {
      case 'last_number': return `h.text.lastNumber(${text})`;
      case 'boxed': return `h.text.boxed(${text})`;
      case 'tagged': return `h.text.tagged(${this.tag(args[1])}, ${text})`;
      case 'completion_code': return `h.text.completionCode(${text})`;
    }
    throw new Error(`extractor ${call}() has no code`);
  }

  /** Code for passes()' tests: a dataset field (a list of tests, or one) or a "string" literal (one test). */
  private tests(arg: PlanExpr): string {
    if ('ref' in arg && arg.ref.startsWith('row.') && this.row) {
      const field = arg.ref.slice('row.'.length);
      if (field === '' || field.includes('.')) throw new ExprError(`passes(): "${arg.ref}": name one field of the dataset row, such as row.tests`);
      return `h.row.tests(c, ${this.row.index(field)})`;
    }
    if ('const' in arg && typeof arg.const === 'string') return `[h.text.strings[${this.strings.push(arg.const) - 1}]]`;
    if ('ref' in arg && arg.ref.startsWith('row.')) throw new ExprError(`passes(): "${arg.ref}": only a single-turn text task (TextTask) with a dataset has rows`);
    throw new ExprError(`passes(): "tests" must be a dataset field (row.tests: a list of Python statements, or one text of test code) or a "string" literal, got ${describe(arg)}`);
  }

  private tag(arg: PlanExpr): number {
    if (!('const' in arg) || typeof arg.const !== 'string') {
      throw new ExprError(`tagged(): the tag must be a "string" literal such as "answer" (it is read once, before training), got ${describe(arg)}`);
    }
    const problem = tagNameProblem(arg.const);
    if (problem !== undefined) throw new ExprError(`tagged(): ${problem}`);
    return this.tags.push(arg.const) - 1;
  }

  private pattern(arg: PlanExpr): number {
    if (!('const' in arg) || typeof arg.const !== 'string') {
      throw new ExprError(`regex(): the pattern must be a "string" literal (it is compiled once, before training), got ${describe(arg)}`);
    }
    try {
      return this.patterns.push(LinearRegex.compile(arg.const)) - 1;
    } catch (err) {
      if (err instanceof PatternError) throw new ExprError(`regex(): ${err.message}`, { cause: err });
      throw err;
    }
  }
}

/** The registry's spec of a text function called with `args`, when their count fits it. Throws ExprError. */
function checkArity(call: string, args: readonly PlanExpr[]): (typeof FUNCTIONS)[number] {
  const spec = FUNCTIONS.find((f) => f.name === call)!;
  const required = spec.params.filter((p) => p.default === undefined).length;
  if (args.length < required || args.length > spec.params.length) {
    const count = required === spec.params.length ? `${required}` : `${required} or ${spec.params.length}`;
    throw new ExprError(`${call}() takes ${count} argument(s), got ${args.length}`);
  }
  return spec;
}

function describe(arg: PlanExpr): string {
  if ('ref' in arg) return `"${arg.ref}"`;
  if ('const' in arg) return JSON.stringify(arg.const);
  if ('call' in arg) return `${arg.call}(...)`;
  return 'list' in arg ? 'a list' : 'an arithmetic expression';
}
