// Expressions that are not plain values: reward terms (over the env's named fields), stop and
// advance conditions (over run metrics), and paths into an experiment (`env.size`).
import { closestNames, didYouMean, validList } from '../diagnostics.js';
import { FUNCTIONS, functionSpec, METRICS, REWARD_NAME_ENVS, REWARD_NAMES, rewardNameAvailable, tagNameProblem, type EnvSpec, type ExprType, type StringSyntax } from '../schema/index.js';
import type { Expression, QualifiedName } from '../syntax/ast.js';
import { nameText } from '../syntax/ast.js';
import type { Accept, CheckContext, ValueScope } from './context.js';
import { bindArguments } from '../semantics/arguments.js';
import { foldedNumber } from '../semantics/constant.js';
import { LinearRegex, PatternError } from '../../shared/regex.js';
import type { TaskRows } from './dataset-columns.js';
import { checkPythonFunction } from './python-rewards.js';
import type { ColumnType } from '../schema/dataset.js';

/**
 * The env a reward term is checked against: a built-in's spec (or the spec a user module declares,
 * env-module.ts), user code that declares none (fields unknown), or none yet.
 */
/** `module`: user code; `observations`: the names a Python env declares (`observations: [...]`), checked as a built-in's fields. */
/** `rows`: a TextTask's dataset columns (`row.NAME`), or that its task is generated. */
export type PairedEnv = { kind: 'builtin'; spec: EnvSpec; label: string; rows?: TaskRows } | { kind: 'module'; observations?: { names: readonly string[]; label: string } } | undefined;

type Inferred = ExprType | 'unknown';

const CONDITION_FUNCTIONS = FUNCTIONS.filter((f) => !f.text && !f.taskOnly && f.name !== 'novelty' && f.params.every((p) => p.type !== 'vector'));

export function checkCondition(ctx: CheckContext, expr: Expression, accept: Accept): void {
  const names = (name: QualifiedName): Inferred => {
    const text = nameText(name);
    if (METRICS.some((m) => m.name === text)) return 'number';
    const close = closestNames(text, METRICS.map((m) => m.name));
    accept('error', 'unknown-name', `unknown metric '${text}'; conditions can test ${METRICS.map((m) => m.name).join(', ')}${didYouMean(text, close)}`, name.range,
      { fixes: close.map((c) => ({ title: `Change to '${c}'`, edits: [{ range: name.range, newText: c }] })) });
    return 'unknown';
  };
  const type = new ExpressionTyper(ctx, accept, names, CONDITION_FUNCTIONS.map((f) => f.name)).infer(expr);
  if (type !== 'bool' && type !== 'unknown') {
    accept('error', 'type-mismatch', 'expected a condition that is true or false, such as `eval.mean_return >= 475`', expr.range);
  }
}

/** `env.size`: a numeric parameter of one of the experiment's parts. */
export function checkPath(ctx: CheckContext, expr: Expression, scope: ValueScope, accept: Accept): void {
  if (expr.kind !== 'Name' || expr.parts.length < 2) {
    accept('error', 'type-mismatch', 'expected a path to a parameter, such as `env.size`', expr.range);
    return;
  }
  const [head, param] = expr.parts;
  const parts = ['env', 'policy', 'algorithm'];
  if (!parts.includes(head.text)) {
    accept('error', 'unknown-name', `a path starts with ${parts.join(', ')}; found '${head.text}'`, head.range);
    return;
  }
  if (!scope.experiment) return;
  const target = ctx.model.referencedTarget(scope.experiment, head.text);
  const spec = target && (target.kind === 'builtin' ? target.spec : ctx.model.rootBuiltin(target.symbol));
  if (!spec) return;
  const found = spec.params.find((p) => p.name === param.text);
  if (!found) {
    const names = spec.params.map((p) => p.name);
    accept('error', 'unknown-property', `${spec.name} has no parameter '${param.text}'${validList(didYouMean(param.text, names), 'parameters', names)}`, param.range);
  } else if (found.type.kind !== 'number') {
    accept('error', 'type-mismatch', `'${head.text}.${param.text}' is not a number, so a curriculum cannot move it`, expr.range);
  }
}

/** A reward term: checked for its names alone, and against the paired env when there is one. */
export function checkRewardTerm(ctx: CheckContext, expr: Expression, env: PairedEnv, accept: Accept): void {
  const names = (name: QualifiedName, listsAllowed?: boolean): Inferred => rewardName(name, env, accept, listsAllowed);
  const type = new ExpressionTyper(ctx, accept, names, FUNCTIONS.map((f) => f.name), env).infer(expr);
  if (type === 'string' || type === 'vector') {
    // An extractor's text is an answer still to be checked: say how.
    const hint = type === 'string' && expr.kind === 'Call' ? `; check it with a verifier, such as numeric(${ctx.unit.text.slice(expr.range.start, expr.range.end)}, target)` : '';
    accept('error', 'type-mismatch', `a reward term must be a number (or true/false, counted as 1/0); this is a ${type}${hint}`, expr.range);
  }
  checkFinite(ctx, expr, accept);
}

/**
 * The innermost part of a reward term that is NaN or infinite whatever the env does (`1/0`,
 * `log(0)`, `obs.x / 0`): the trainer would stop at its first step. True when one was reported.
 */
function checkFinite(ctx: CheckContext, expr: Expression | undefined, accept: Accept): boolean {
  if (!expr) return false;
  const parts = expr.kind === 'Paren' ? [expr.expression] : expr.kind === 'Unary' ? [expr.operand] : expr.kind === 'Binary' ? [expr.left, expr.right]
    : expr.kind === 'Call' ? expr.args.map((a) => a.value) : expr.kind === 'List' ? expr.items : [];
  if (parts.some((part) => checkFinite(ctx, part, accept))) return true;
  const text = ctx.unit.text.slice(expr.range.start, expr.range.end);
  const value = foldedNumber(expr);
  if (value !== undefined && !Number.isFinite(value)) {
    accept('error', 'out-of-range', `\`${text}\` is ${value}: a reward term must stay a finite number`, expr.range);
    return true;
  }
  if (expr.kind === 'Binary' && expr.operator === '/' && foldedNumber(expr.right) === 0) {
    accept('error', 'out-of-range', `\`${text}\` divides by zero: it is infinite or NaN whatever the env does`, expr.range);
    return true;
  }
  return false;
}

function rewardName(name: QualifiedName, env: PairedEnv, accept: Accept, listsAllowed = false): Inferred {
  const head = name.parts[0];
  const spec = REWARD_NAMES.find((n) => n.name === head.text);
  if (!spec) {
    const close = closestNames(head.text, REWARD_NAMES.map((n) => n.name));
    accept('error', 'unknown-name', `unknown name '${head.text}' in a reward term; available: ${REWARD_NAMES.map((n) => n.name).join(', ')}${didYouMean(head.text, close)}`, head.range,
      { fixes: close.map((c) => ({ title: `Change to '${c}'`, edits: [{ range: head.range, newText: c }] })) });
    return 'unknown';
  }
  if (env?.kind === 'builtin') {
    const e = env.spec;
    if (!rewardNameAvailable(spec, e)) {
      const why = spec.availableFor === 'nontext' ? 'text envs do not have it' : `only ${REWARD_NAME_ENVS[spec.availableFor as Exclude<typeof spec.availableFor, 'all'>]} have it`;
      accept('error', 'unknown-field', `'${head.text}' is not available with ${env.label} (${e.name}): ${why}`, head.range);
      return 'unknown';
    }
  }
  if (!spec.fields) {
    if (name.parts.length > 1) accept('error', 'unknown-field', `'${head.text}' has no fields`, name.parts[1].range);
    return spec.type;
  }
  if (spec.fields === 'row') return rowField(name, env, accept, listsAllowed);
  if (name.parts.length === 1) return spec.type;
  const field = name.parts[1];
  if (name.parts.length > 2) accept('error', 'unknown-field', `'${head.text}.${field.text}' has no fields`, name.parts[2].range);
  const declared = env?.kind === 'module' ? env.observations : undefined;
  if (spec.fields === 'obs' && declared && !declared.names.includes(field.text)) {
    const close = closestNames(field.text, declared.names);
    accept('error', 'unknown-field', `${declared.label} has no observation '${field.text}'; its observations are: ${declared.names.join(', ')}${didYouMean(field.text, close)}`,
      field.range, { fixes: close.map((c) => ({ title: `Change to '${c}'`, edits: [{ range: field.range, newText: c }] })) });
    return 'unknown';
  }
  if (spec.fields === 'obs' && env?.kind === 'builtin' && !env.spec.obsFields.includes(field.text)) {
    const fields = env.spec.obsFields;
    const close = closestNames(field.text, fields);
    accept('error', 'unknown-field', fields.length === 0
      ? `${env.label} (${env.spec.name}) has no named observation fields`
      : `${env.label} (${env.spec.name}) has no observation field '${field.text}'; its fields are: ${fields.join(', ')}${didYouMean(field.text, close)}`,
    field.range, { fixes: close.map((c) => ({ title: `Change to '${c}'`, edits: [{ range: field.range, newText: c }] })) });
    return 'unknown';
  }
  if (spec.fields === 'info' && env?.kind === 'builtin' && !(env.spec.infoFields ?? []).includes(field.text)) {
    const fields = env.spec.infoFields ?? [];
    const close = closestNames(field.text, fields);
    accept('error', 'unknown-field', fields.length === 0
      ? `${env.label} (${env.spec.name}) reports no info values to reward terms`
      : `${env.label} (${env.spec.name}) reports no info value '${field.text}'; it reports: ${fields.join(', ')}${didYouMean(field.text, close)}`,
    field.range, { fixes: close.map((c) => ({ title: `Change to '${c}'`, edits: [{ range: field.range, newText: c }] })) });
    return 'unknown';
  }
  return 'number';
}

/** How a column's type reads in a reward term: text, a number, true/false; others only a Python reward function reads. */
const COLUMN_TYPES: Partial<Record<ColumnType, Inferred>> = { string: 'string', number: 'number', bool: 'bool' };

/**
 * `row.NAME`: a column of the paired TextTask's dataset, typed from its first rows; unknown where
 * there is no dataset to read. A list is text where `listsAllowed` (passes()' tests: the trainer
 * reads a list of texts there, and says which row holds anything else).
 */
function rowField(name: QualifiedName, env: PairedEnv, accept: Accept, listsAllowed: boolean): Inferred {
  const head = name.parts[0];
  if (name.parts.length === 1) {
    // Said once, by the reward's own check (no env).
    if (env === undefined) accept('error', 'type-mismatch', "'row' is the dataset row: name one of its fields, such as row.answer", head.range);
    return 'unknown';
  }
  const field = name.parts[1];
  if (name.parts.length > 2) accept('error', 'unknown-field', `'row.${field.text}' has no fields (a Python reward function reads nested values)`, name.parts[2].range);
  const rows = env?.kind === 'builtin' ? env.rows : undefined;
  if (!rows || env?.kind !== 'builtin') return 'unknown';
  if (rows.kind === 'generated') {
    accept('error', 'unknown-field', `${env.label}'s task ${rows.task} generates its examples: it has no dataset rows, so no row.${field.text}; row.NAME needs task: dataset("./file.jsonl")`, head.range);
    return 'unknown';
  }
  const type = rows.columns.get(field.text);
  if (type === undefined) {
    const names = [...rows.columns.keys()];
    const close = closestNames(field.text, names);
    accept('error', 'unknown-field', `the rows of ${rows.written} (${env.label}) have no field '${field.text}'; their fields are: ${names.join(', ')}${didYouMean(field.text, close)}`,
      field.range, { fixes: close.map((c) => ({ title: `Change to '${c}'`, edits: [{ range: field.range, newText: c }] })) });
    return 'unknown';
  }
  const inferred = COLUMN_TYPES[type];
  if (inferred) return inferred;
  if (type === 'list' && listsAllowed) return 'string';
  if (type !== 'mixed') {
    const kind = type === 'list' ? 'a list' : type === 'object' ? 'an object' : 'null';
    accept('error', 'unknown-field', `row.${field.text} is ${kind} in the first rows of ${rows.written}: a reward term reads text, numbers and true/false; a Python reward function (python("./file.py:fn")) gets any field`, field.range);
  }
  return 'unknown';
}

/** Infers the type of an expression, reporting unknown functions and misuse of strings. */
class ExpressionTyper {
  constructor(
    private readonly ctx: CheckContext,
    private readonly accept: Accept,
    private readonly names: (name: QualifiedName, listsAllowed?: boolean) => Inferred,
    private readonly allowedFunctions: string[],
    private readonly env?: PairedEnv,
  ) {}

  infer(expr: Expression | undefined): Inferred {
    if (!expr) return 'unknown';
    switch (expr.kind) {
      case 'Number': return 'number';
      case 'String': return 'string';
      case 'Boolean': return 'bool';
      case 'None':
        this.accept('error', 'type-mismatch', "'none' has no value in an expression", expr.range);
        return 'unknown';
      case 'Name': return this.names(expr);
      case 'Paren': return this.infer(expr.expression);
      case 'List':
        expr.items.forEach((i) => {
          const t = this.infer(i);
          this.expectNumeric(i, t);
          this.expectVectorFree(i, t, 'a list');
        });
        return 'vector';
      case 'Unary': {
        const t = this.infer(expr.operand);
        if (expr.operand) this.expectVectorFree(expr.operand, t);
        if (expr.operator === 'not') return 'bool';
        if (expr.operand) this.expectNumeric(expr.operand, t);
        return 'number';
      }
      case 'Binary': {
        const l = this.infer(expr.left);
        const r = this.infer(expr.right);
        // The trainer compiles every operator over numbers only (runtime/rewards/expr.ts): a vector
        // operand is refused there, so it is an error here, once, where it stands.
        this.expectVectorFree(expr.left, l);
        if (expr.right) this.expectVectorFree(expr.right, r);
        switch (expr.operator) {
          case 'and': case 'or': return 'bool';
          case '==': case '!=': return 'bool';
          case '<': case '<=': case '>': case '>=':
            this.expectNumeric(expr.left, l);
            if (expr.right) this.expectNumeric(expr.right, r);
            return 'bool';
          default:
            this.expectNumeric(expr.left, l);
            if (expr.right) this.expectNumeric(expr.right, r);
            return 'number';
        }
      }
      case 'Call': return this.call(expr);
    }
  }

  private expectNumeric(expr: Expression, type: Inferred): void {
    if (type === 'string') this.accept('error', 'type-mismatch', 'text cannot be used in arithmetic; use a verifier such as exact(completion, target)', expr.range);
  }

  /** A vector (obs, goal, [a, b]) only goes into norm(), dist() and novelty(): elsewhere it needs one of them. */
  private expectVectorFree(expr: Expression, type: Inferred, where = 'an operator'): void {
    if (type === 'vector') this.accept('error', 'type-mismatch', `a vector cannot be used in ${where}, which takes numbers; name one field (obs.x) or use norm() or dist()`, expr.range);
  }

  private call(expr: Expression & { kind: 'Call' }): Inferred {
    const name = nameText(expr.callee);
    const spec = functionSpec(name);
    if (!spec || !this.allowedFunctions.includes(name)) {
      const close = closestNames(name, this.allowedFunctions);
      this.accept('error', 'unknown-function', `unknown function '${name}'${didYouMean(name, close)}`, expr.callee.range,
        { fixes: close.map((c) => ({ title: `Change to '${c}'`, edits: [{ range: expr.callee.range, newText: c }] })) });
      expr.args.forEach((a) => this.infer(a.value));
      return 'unknown';
    }
    if (spec.text && this.env?.kind === 'builtin' && this.env.spec.action !== 'text') {
      this.accept('error', 'unknown-field', `'${name}' checks text, but ${this.env.label} (${this.env.spec.name}) is not a text task`, expr.callee.range);
    }
    if (spec.taskOnly && this.env?.kind === 'builtin' && (this.env.spec.action !== 'text' || this.env.spec.dialogue)) {
      this.accept('error', 'unknown-field', `'${name}' scores the completions of a single-turn text task (TextTask); ${this.env.label} (${this.env.spec.name}) is not one`, expr.callee.range);
    }
    if (spec.taskOnly && this.env?.kind === 'module') {
      this.accept('error', 'unknown-field', `'${name}' scores the completions of a single-turn text task (TextTask), not of user code's env`, expr.callee.range);
    }
    // passes()' tests may be a dataset field holding a list (of texts).
    const listsAllowed = (a: (typeof expr.args)[number], i: number) => (a.name ? spec.params.find((p) => p.name === a.name!.text) : spec.params[i])?.syntax === 'tests';
    const argTypes = expr.args.map((a, i) => listsAllowed(a, i) && a.value?.kind === 'Name' ? this.names(a.value, true) : this.infer(a.value));
    if (spec.variadic) {
      if (expr.args.length === 0) this.accept('error', 'wrong-arguments', `${name} needs at least one argument`, expr.range);
      expr.args.forEach((a, i) => {
        if (!a.value) return;
        this.expectNumeric(a.value, argTypes[i]);
        this.expectVectorFree(a.value, argTypes[i], `${name}()`);
      });
      return spec.returns;
    }
    const params = spec.params.map((p) => ({ name: p.name, required: p.default === undefined }));
    const { bound, problems } = bindArguments(expr.args, params, name, expr.range);
    for (const p of problems) this.accept('error', 'wrong-arguments', p.message, p.range);
    for (const p of spec.params) {
      const arg = bound.get(p.name);
      if (!arg?.value) continue;
      const actual = argTypes[expr.args.indexOf(arg)];
      // A row's number is text to a verifier as JSON writes it (`numeric(last_number(completion), row.answer)`).
      const rowNumber = actual === 'number' && arg.value.kind === 'Name' && arg.value.parts[0]?.text === 'row';
      if (p.type === 'string' && (actual === 'number' || actual === 'bool' || actual === 'vector') && !rowNumber) {
        this.accept('error', 'type-mismatch', `argument '${p.name}' of ${name} must be text; found a ${actual}`, arg.value.range);
      } else if ((p.type === 'number' || p.type === 'bool') && actual === 'string') {
        this.accept('error', 'type-mismatch', `argument '${p.name}' of ${name} must be a number; found text`, arg.value.range);
      } else if ((p.type === 'number' || p.type === 'bool') && actual === 'vector') {
        this.accept('error', 'type-mismatch', `argument '${p.name}' of ${name} must be a number; found a vector (name one field, obs.x, or use norm() or dist())`, arg.value.range);
      } else if (p.syntax && p.syntax !== 'tests' && actual === 'string') {
        this.checkLiteral(name, p.name, p.syntax, arg.value);
      }
    }
    return spec.returns;
  }

  /**
   * `"^\d+$"`: an rlx string keeps only `\"`, `\\` and `\n` as escapes, so `\d` is the letter d and
   * the pattern, valid, silently means something else. The regex escape is written `\\d`.
   */
  private checkLostEscape(fn: string, param: string, literal: Expression & { kind: 'String' }): void {
    const lost = /\\([^\\"n])/.exec(literal.raw.replace(/\\\\/g, ''));
    if (!lost) return;
    this.accept('warning', 'suspicious-value',
      `in argument '${param}' of ${fn}, \`\\${lost[1]}\` is just '${lost[1]}' in an rlx string; for the regular expression's \`\\${lost[1]}\`, write \`\\\\${lost[1]}\``, literal.range);
  }

  /** A regex pattern or tag name: a "string" literal (the trainer reads it once, before training) that means something. */
  private checkLiteral(fn: string, param: string, syntax: StringSyntax, expr: Expression): void {
    let literal = expr;
    while (literal.kind === 'Paren' && literal.expression) literal = literal.expression;
    if (literal.kind !== 'String') {
      const example = syntax === 'regex' ? '"^[0-9]+$"' : syntax === 'python-function' ? '"./rewards.py:accuracy"' : '"answer"';
      this.accept('error', 'type-mismatch', `argument '${param}' of ${fn} must be a "string" literal such as ${example}: it is read once, before training, not per completion`, expr.range);
    } else if (syntax === 'python-function') {
      checkPythonFunction(this.ctx, literal, this.accept);
    } else if (syntax === 'regex') {
      const problem = regexProblem(literal.value);
      if (problem) this.accept('error', 'invalid-regex', `argument '${param}' of ${fn}: ${problem}`, literal.range);
      else this.checkLostEscape(fn, param, literal);
    } else {
      const problem = tagNameProblem(literal.value);
      if (problem) this.accept('error', 'type-mismatch', `argument '${param}' of ${fn}: ${problem}`, literal.range);
    }
  }
}

/**
 * Why a pattern would be refused when the reward is compiled, or undefined when it would not:
 * the trainer's own matcher decides (JavaScript syntax, no backreferences or lookaround), so
 * `rlx check` and `rlx train` cannot disagree about a pattern.
 */
function regexProblem(pattern: string): string | undefined {
  try {
    LinearRegex.compile(pattern);
    return undefined;
  } catch (err) {
    if (err instanceof PatternError) return err.message;
    throw err;
  }
}
