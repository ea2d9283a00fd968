// Turning checked source values into plan values: numbers with suffixes resolved, schedules and
// named options in one normal form, defaults filled. The checker has already accepted every
// value that reaches here, so these functions trust the shapes they see.
import { functionSpec, scheduleSpec, type ChoiceOption, type ParamSpec, type PlanValue, type ValueType } from '../schema/index.js';
import type * as A from '../syntax/ast.js';
import { nameText } from '../syntax/ast.js';
import { constantNumber, literalValue } from '../semantics/constant.js';
import { bindArguments } from '../semantics/arguments.js';
import type { PlanExpr, Schedule } from './plan.js';

export function toPlanValue(expr: A.Expression | undefined, type: ValueType): PlanValue {
  if (!expr) return null;
  switch (type.kind) {
    case 'number':
      if (type.schedule) return toSchedule(expr) as unknown as PlanValue;
      return constantNumber(expr) ?? null;
    case 'bool': return expr.kind === 'Boolean' ? expr.value : null;
    case 'string': return expr.kind === 'String' ? expr.value : null;
    case 'list': return expr.kind === 'List' ? expr.items.map((i) => toPlanValue(i, type.of)) : null;
    case 'choice': return toChoice(expr, type.options);
    case 'ref': return expr.kind === 'Name' ? nameText(expr) : null;
    case 'oneOf': {
      const looksLikeName = expr.kind === 'Name' || expr.kind === 'Call' || expr.kind === 'None';
      const chosen = type.types.find((t) => (t.kind === 'choice') === looksLikeName) ?? type.types[0];
      return toPlanValue(expr, chosen);
    }
    case 'condition': return toPlanExpr(expr) as unknown as PlanValue;
    case 'path': return expr.kind === 'Name' ? nameText(expr) : null;
    case 'literal': return untypedValue(expr);
  }
}

/** A parameter's plan value: as stated, else its default (schedulable numbers as constant schedules). */
export function paramValue(param: ParamSpec, stated: A.Expression | undefined): PlanValue {
  if (stated) return toPlanValue(stated, param.type);
  if (param.default === undefined) return null;
  if (param.type.kind === 'number' && param.type.schedule && typeof param.default === 'number') {
    return { schedule: 'constant', value: param.default };
  }
  return param.default;
}

export function toSchedule(expr: A.Expression): Schedule {
  if (expr.kind === 'Call' && expr.callee.parts.length === 1) {
    const spec = scheduleSpec(expr.callee.parts[0].text);
    if (spec) {
      const { bound } = bindArguments(expr.args, spec.params, spec.name, expr.range);
      const num = (name: string): number => {
        const arg = bound.get(name)?.value;
        const fallback = spec.params.find((p) => p.name === name)?.default;
        return (arg ? constantNumber(arg) : undefined) ?? (typeof fallback === 'number' ? fallback : 0);
      };
      switch (spec.name) {
        case 'constant': return { schedule: 'constant', value: num('value') };
        case 'linear':
        case 'cosine': return { schedule: spec.name, from: num('from'), to: num('to'), over: num('over') };
        case 'warmup': {
          const then = bound.get('then')?.value;
          return { schedule: 'warmup', steps: num('steps'), then: then ? toSchedule(then) : { schedule: 'constant', value: 0 } };
        }
      }
    }
  }
  return { schedule: 'constant', value: constantNumber(expr) ?? 0 };
}

function toChoice(expr: A.Expression, options: ChoiceOption[]): PlanValue {
  // `none` is a keyword (the None literal), and also an option of several parameters.
  if (expr.kind === 'None') return options.some((o) => o.name === 'none') ? 'none' : null;
  const nameNode = expr.kind === 'Name' ? expr : expr.kind === 'Call' ? expr.callee : undefined;
  const option = nameNode && options.find((o) => o.name === nameText(nameNode));
  if (!option) return null;
  const params = option.params ?? [];
  if (params.length === 0) return option.name;
  const args = expr.kind === 'Call' ? expr.args : [];
  const { bound } = bindArguments(args, params, option.name, expr.range);
  const out: Record<string, PlanValue> = { kind: option.name };
  for (const p of params) out[p.name] = paramValue(p, bound.get(p.name)?.value);
  return out;
}

const BINARY = new Set(['+', '-', '*', '/', '^', '==', '!=', '<', '<=', '>', '>=', 'and', 'or']);

/** The normal form of a reward term or condition: numbers folded, calls with arguments in parameter order. */
export function toPlanExpr(expr: A.Expression | undefined): PlanExpr {
  if (!expr) return { const: 0 };
  const folded = constantNumber(expr);
  if (folded !== undefined) return { const: folded };
  switch (expr.kind) {
    case 'String': return { const: expr.value };
    case 'Boolean': return { const: expr.value };
    case 'Name': return { ref: nameText(expr) };
    case 'Paren': return toPlanExpr(expr.expression);
    case 'List': return { list: expr.items.map(toPlanExpr) };
    case 'Unary': return { op: expr.operator === '-' ? 'neg' : 'not', args: [toPlanExpr(expr.operand)] };
    case 'Binary':
      if (!BINARY.has(expr.operator)) return { const: 0 };
      return { op: expr.operator, args: [toPlanExpr(expr.left), toPlanExpr(expr.right)] } as PlanExpr;
    case 'Call': {
      const name = nameText(expr.callee);
      const spec = functionSpec(name);
      if (!spec || spec.variadic) return { call: name, args: expr.args.map((a) => toPlanExpr(a.value)) };
      const params = spec.params.map((p) => ({ name: p.name, required: p.default === undefined }));
      const { bound } = bindArguments(expr.args, params, name, expr.range);
      const args = spec.params.map((p) => {
        const arg = bound.get(p.name)?.value;
        return arg ? toPlanExpr(arg) : { const: p.default ?? 0 };
      });
      return { call: name, args };
    }
    default: return { const: 0 };
  }
}

/** A value of a user-code env's parameter, whose type nobody declared: read it as written. */
export function untypedValue(expr: A.Expression | undefined): PlanValue {
  if (!expr) return null;
  const literal = literalValue(expr);
  if (literal !== undefined) return literal as PlanValue;
  switch (expr.kind) {
    case 'Name': return nameText(expr);
    case 'List': return expr.items.map(untypedValue);
    default: return toPlanExpr(expr) as unknown as PlanValue;
  }
}
