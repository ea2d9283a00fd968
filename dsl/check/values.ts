// Checking one value against the type a parameter declares in the schema registry: numbers and
// their ranges, schedules, named options, references to declarations, lists.
import { closestNames, didYouMean, type Fix } from '../diagnostics.js';
import { builtinsOfKind, scheduleSpec, SCHEDULES, type NumberType, type ParamSpec, type ValueType } from '../schema/index.js';
import type { DeclKind, Expression, Range } from '../syntax/ast.js';
import { formatNumber } from '../syntax/literals.js';
import { bindArguments } from '../semantics/arguments.js';
import { constantNumber } from '../semantics/constant.js';
import type { Accept, CheckContext, ValueScope } from './context.js';
import { checkDataFile } from './datasets.js';
import { checkCondition, checkPath } from './expressions.js';

export function describeValue(expr: Expression): string {
  switch (expr.kind) {
    case 'Number': return `the number ${expr.raw}`;
    case 'String': return `the string ${expr.raw}`;
    case 'Boolean': return `'${expr.value}'`;
    case 'None': return "'none'";
    case 'Name': return `the name '${expr.parts.map((p) => p.text).join('.')}'`;
    case 'Call': return `a call of '${expr.callee.parts.map((p) => p.text).join('.')}'`;
    case 'List': return 'a list';
    default: return 'an expression';
  }
}

function expectation(type: ValueType): string {
  switch (type.kind) {
    case 'number':
      return (type.integer ? 'a whole number' : 'a number') + (type.schedule ? ' or a schedule (constant, linear, cosine, warmup)' : '');
    case 'bool': return 'true or false';
    case 'string': return type.file ? `the path of a file of ${type.file.what}, in double quotes` : 'a string in double quotes';
    case 'list': return `a list of ${expectation(type.of).replace(/^an? /, '')}s, like [${type.of.kind === 'number' ? '64, 64' : '...'}]`;
    case 'choice': return `one of: ${type.options.map((o) => o.name + (o.params?.length ? '(...)' : '')).join(', ')}`;
    case 'ref': return `the name of ${type.declKind === 'env' ? 'an' : 'a'} ${type.declKind}`;
    case 'oneOf': return type.types.map(expectation).join(', or ');
    case 'condition': return 'a condition such as `eval.mean_return >= 475`';
    case 'path': return 'a path such as `env.size`';
    case 'literal': return 'a number, a string, true/false, none or a list of these (sent to Python as written)';
  }
}

/** A value that can be sent as JSON as written: no names, calls or expressions other than constant numbers. */
function isLiteral(expr: Expression): boolean {
  if (expr.kind === 'String' || expr.kind === 'Boolean' || expr.kind === 'None') return true;
  if (expr.kind === 'List') return expr.items.every(isLiteral);
  return constantNumber(expr) !== undefined;
}

function replaceFix(title: string, range: Range, newText: string): Fix {
  return { title, edits: [{ range, newText }] };
}

export class ValueChecker {
  constructor(private readonly ctx: CheckContext, private readonly accept: Accept = ctx.accept) {}

  check(expr: Expression | undefined, type: ValueType, label: string, scope: ValueScope): void {
    if (!expr) return; // a syntax error already covers a missing value
    switch (type.kind) {
      case 'number': return this.number(expr, type, label, scope);
      case 'bool':
        if (expr.kind !== 'Boolean') this.mismatch(expr, type, label);
        return;
      case 'string':
        if (expr.kind !== 'String') this.mismatch(expr, type, label);
        else if (type.nonEmpty && expr.value === '') this.accept('error', 'out-of-range', `${label} must not be the empty string`, expr.range);
        // A data file is read where the spec names it, as `rlx train` will read it (and copy it into the run).
        else if (type.file && expr.value === '') this.accept('error', 'out-of-range', `${label} expects ${expectation(type)}; found the empty string`, expr.range);
        else if (type.file) checkDataFile(this.ctx, expr, { label, noun: 'data file' }, type.file.format, this.accept);
        return;
      case 'list': return this.list(expr, type, label, scope);
      case 'choice': return this.choice(expr, type.options, label, scope);
      case 'ref': return this.reference(expr, type.declKind, label);
      case 'oneOf': return this.oneOf(expr, type.types, label, scope);
      case 'condition': return checkCondition(this.ctx, expr, this.accept);
      case 'path': return checkPath(this.ctx, expr, scope, this.accept);
      case 'literal':
        // Each item of a list on its own, so that the one that cannot be sent is marked.
        if (expr.kind === 'List') for (const item of expr.items) this.check(item, type, label, scope);
        else if (!isLiteral(expr)) this.mismatch(expr, type, label);
        return;
    }
  }

  private mismatch(expr: Expression, type: ValueType, label: string): void {
    this.accept('error', 'type-mismatch', `${label} expects ${expectation(type)}; found ${describeValue(expr)}`, expr.range);
  }

  private number(expr: Expression, type: NumberType, label: string, scope: ValueScope): void {
    if (expr.kind === 'Call' && type.schedule && expr.callee.parts.length === 1) {
      const spec = scheduleSpec(expr.callee.parts[0].text);
      if (spec) return this.schedule(expr, spec, type, label, scope);
      const close = closestNames(expr.callee.parts[0].text, SCHEDULES.map((s) => s.name));
      this.accept('error', 'unknown-function', `'${expr.callee.parts[0].text}' is not a schedule; schedules are ${SCHEDULES.map((s) => s.name).join(', ')}${didYouMean(expr.callee.parts[0].text, close)}`,
        expr.callee.range, { fixes: close.map((c) => replaceFix(`Change to '${c}'`, expr.callee.range, c)) });
      return;
    }
    const value = constantNumber(expr);
    if (value === undefined) return this.mismatch(expr, type, label);
    this.numberInRange(value, expr.range, type, label, true);
  }

  /** Range and integrality of a number; `exclusive` false for schedule end points (annealing to 0 is fine). */
  private numberInRange(value: number, range: Range, type: NumberType, label: string, exclusive: boolean): void {
    if (type.integer && !Number.isInteger(value)) {
      this.accept('error', 'type-mismatch', `${label} expects a whole number; found ${value}`, range,
        { fixes: [replaceFix(`Round to ${Math.round(value)}`, range, String(Math.round(value)))] });
      return;
    }
    const belowMin = type.min !== undefined && (value < type.min || (exclusive && type.exclusiveMin === true && value === type.min));
    const aboveMax = type.max !== undefined && (value > type.max || (exclusive && type.exclusiveMax === true && value === type.max));
    if (belowMin || aboveMax || Number.isNaN(value)) {
      const lo = type.min === undefined ? undefined : `${type.exclusiveMin && exclusive ? '>' : '>='} ${type.min}`;
      const hi = type.max === undefined ? undefined : `${type.exclusiveMax && exclusive ? '<' : '<='} ${type.max}`;
      const bound = [lo, hi].filter(Boolean).join(' and ');
      const clampTo = belowMin ? type.min! : type.max!;
      const canClamp = !(belowMin ? type.exclusiveMin && exclusive : type.exclusiveMax && exclusive);
      this.accept('error', 'out-of-range', `${label} must be ${bound}; found ${formatNumber(value)}`, range,
        canClamp ? { fixes: [replaceFix(`Clamp to ${formatNumber(clampTo)}`, range, formatNumber(clampTo))] } : undefined);
      return;
    }
    const s = type.suspicious;
    if (s && ((s.above !== undefined && value > s.above) || (s.below !== undefined && value < s.below))) {
      this.accept('warning', 'suspicious-value', `${label} = ${formatNumber(value)} is unusual: ${s.why}`, range);
    }
  }

  private schedule(expr: Expression & { kind: 'Call' }, spec: { name: string; params: ParamSpec[] }, type: NumberType, label: string, scope: ValueScope): void {
    const { bound, problems } = bindArguments(expr.args, spec.params, spec.name, expr.range);
    for (const p of problems) this.accept('error', 'wrong-arguments', p.message, p.range);
    for (const param of spec.params) {
      const arg = bound.get(param.name);
      if (!arg?.value) continue;
      const argLabel = `${spec.name}(${param.name}) of ${label}`;
      if (param.name === 'from' || param.name === 'to' || param.name === 'value') {
        const v = constantNumber(arg.value);
        if (v === undefined) this.accept('error', 'type-mismatch', `${argLabel} expects a number; found ${describeValue(arg.value)}`, arg.value.range);
        else this.numberInRange(v, arg.value.range, { ...type, schedule: false }, label, false);
      } else if (param.name === 'then') {
        this.check(arg.value, type, label, scope);
      } else {
        this.check(arg.value, param.type, argLabel, scope);
      }
    }
    // Annealing to 0 is fine; staying at 0 for a value that must be above 0 does nothing (learning_rate: constant(0)).
    const ends = ['value', 'from', 'to'].map((name) => bound.get(name)?.value).filter((v) => v !== undefined);
    if (type.min === 0 && type.exclusiveMin && ends.length > 0 && ends.every((v) => constantNumber(v) === 0)) {
      this.accept('warning', 'suspicious-value', `${label} is 0 for the whole run with this schedule, so it has no effect; it must be above 0 at some point`, expr.range);
    }
  }

  private list(expr: Expression, type: ValueType & { kind: 'list' }, label: string, scope: ValueScope): void {
    if (expr.kind !== 'List') return this.mismatch(expr, type, label);
    if (type.minItems !== undefined && expr.items.length < type.minItems) {
      this.accept('error', 'type-mismatch', `${label} needs at least ${type.minItems} item${type.minItems === 1 ? '' : 's'}`, expr.range);
    }
    for (const item of expr.items) this.check(item, type.of, `each item of ${label}`, scope);
  }

  private choice(expr: Expression, options: { name: string; params?: ParamSpec[] }[], label: string, scope: ValueScope): void {
    const names = options.map((o) => o.name);
    // `none` is a keyword (the None literal), yet also the name of options such as
    // `baseline: none` and `relabel: none`: where the place offers it, the literal is that option.
    if (expr.kind === 'None' && names.includes('none')) return;
    const nameNode = expr.kind === 'Name' ? expr : expr.kind === 'Call' ? expr.callee : undefined;
    if (!nameNode || nameNode.parts.length !== 1) {
      this.accept('error', 'type-mismatch', `${label} expects one of: ${names.join(', ')}; found ${describeValue(expr)}`, expr.range);
      return;
    }
    const word = nameNode.parts[0].text;
    const option = options.find((o) => o.name === word);
    if (!option) {
      const close = closestNames(word, names);
      this.accept('error', 'type-mismatch', `'${word}' is not a valid ${label}; expected one of: ${names.join(', ')}${didYouMean(word, close)}`, nameNode.range,
        { fixes: close.map((c) => replaceFix(`Change to '${c}'`, nameNode.range, c)) });
      return;
    }
    const params = option.params ?? [];
    if (expr.kind === 'Name') {
      const needed = params.filter((p) => p.required);
      if (needed.length > 0) {
        this.accept('error', 'wrong-arguments', `${word} needs arguments: ${word}(${params.map((p) => p.name).join(', ')})`, expr.range);
      }
      return;
    }
    if (params.length === 0) {
      this.accept('error', 'wrong-arguments', `${word} takes no arguments; write it as '${word}'`, expr.range,
        { fixes: [replaceFix(`Remove the arguments`, expr.range, word)] });
      return;
    }
    const call = expr as Expression & { kind: 'Call' };
    const { bound, problems } = bindArguments(call.args, params, word, call.range);
    for (const p of problems) this.accept('error', 'wrong-arguments', p.message, p.range);
    for (const param of params) {
      const arg = bound.get(param.name);
      if (arg?.value) this.check(arg.value, param.type, `${word}(${param.name})`, scope);
    }
  }

  private reference(expr: Expression, kind: DeclKind, label: string): void {
    if (expr.kind !== 'Name' || expr.parts.length !== 1) {
      this.accept('error', 'type-mismatch', `${label} expects the name of ${kind === 'env' ? 'an' : 'a'} ${kind}; found ${describeValue(expr)}`, expr.range);
      return;
    }
    const ident = expr.parts[0];
    const target = this.ctx.model.resolve(this.ctx.unit, ident);
    if (!target) {
      const close = this.ctx.model.nameIndex(this.ctx.unit, kind, builtinsOfKind(kind).map((b) => b.name)).closest(ident.text);
      this.accept('error', 'unknown-name', `unknown ${kind} '${ident.text}'${didYouMean(ident.text, close)}`, ident.range,
        { fixes: close.map((c) => replaceFix(`Change to '${c}'`, ident.range, c)) });
      return;
    }
    const actual = target.kind === 'decl' ? target.symbol.decl.declKind : target.spec.declKind;
    if (actual !== kind) {
      this.accept('error', 'wrong-kind', `'${ident.text}' is ${actual === 'env' || actual === 'algorithm' || actual === 'experiment' ? 'an' : 'a'} ${actual}, but ${label} needs ${kind === 'env' || kind === 'algorithm' || kind === 'experiment' ? 'an' : 'a'} ${kind}`, ident.range);
    }
  }

  private oneOf(expr: Expression, types: ValueType[], label: string, scope: ValueScope): void {
    const attempts = types.map((type) => {
      const found: Parameters<Accept>[] = [];
      new ValueChecker(this.ctx, (...args) => found.push(args)).check(expr, type, label, scope);
      return { type, found, errors: found.filter((f) => f[0] === 'error').length };
    });
    const ok = attempts.find((a) => a.errors === 0);
    if (ok) {
      for (const f of ok.found) this.accept(...f);
      return;
    }
    // No alternative fits: report against the one the text most looks like.
    const looksLikeName = expr.kind === 'Name' || expr.kind === 'Call';
    const best = attempts.find((a) => (looksLikeName ? a.type.kind === 'choice' : a.type.kind !== 'choice')) ?? attempts[0];
    if (best.found.some((f) => f[1] === 'type-mismatch' && f[3].start === expr.range.start && f[3].end === expr.range.end)) {
      this.accept('error', 'type-mismatch', `${label} expects ${types.map(expectation).join(', or ')}; found ${describeValue(expr)}`, expr.range);
    } else {
      for (const f of best.found) this.accept(...f);
    }
  }
}
