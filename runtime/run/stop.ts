// `stop:` conditions (and later curriculum `advance:`): boolean expressions over run
// metrics, compiled once like reward terms. A metric with no value yet (no evaluation has
// run, no episode has finished) is NaN, and any comparison with NaN is false, so a
// condition over it cannot stop a run before its metric exists.
import type { PlanExpr } from '../../dsl/compile/plan.js';
import { compileScalar, ExprError, numberLiteral } from '../rewards/expr.js';

/** The metrics a condition may name (the language's METRICS, dsl/schema/expressions.ts). */
export const CONDITION_METRICS = [
  'eval.mean_return',
  'eval.std_return',
  'eval.mean_length',
  'eval.success',
  'eval.accuracy',
  'train.mean_return',
  'train.mean_length',
  'train.success',
  'train.accuracy',
  'steps',
] as const;

export type ConditionMetric = (typeof CONDITION_METRICS)[number];

export class Condition {
  private constructor(
    readonly text: string,
    private readonly fn: (m: Float64Array) => number,
    private readonly used: readonly ConditionMetric[],
  ) {}

  /** Compiles `expr`; `where` names it in errors ("stop"). */
  static compile(expr: PlanExpr, where: string): Condition {
    const used: ConditionMetric[] = [];
    const resolve = (ref: string) => {
      const index = (CONDITION_METRICS as readonly string[]).indexOf(ref);
      if (index < 0) throw new ExprError(`unknown metric "${ref}"; conditions can use ${CONDITION_METRICS.join(', ')}`);
      if (!used.includes(ref as ConditionMetric)) used.push(ref as ConditionMetric);
      return { scalar: `m[${index}]` };
    };
    try {
      const source = `return ${compileScalar(expr, resolve)};`;
      return new Condition(formatExpr(expr), new Function('m', source) as (m: Float64Array) => number, used);
    } catch (err) {
      if (err instanceof ExprError) throw new ExprError(`${where}: ${err.message}`, { cause: err });
      throw err;
    }
  }

  /** Whether the condition holds for these metric values (missing ones count as NaN). */
  holds(values: Partial<Record<ConditionMetric, number>>): boolean {
    const m = new Float64Array(CONDITION_METRICS.length).fill(NaN);
    CONDITION_METRICS.forEach((name, i) => {
      const v = values[name];
      if (v !== undefined) m[i] = v;
    });
    return this.fn(m) !== 0;
  }

  /** "eval.mean_return = 480.5" for the metrics the condition uses. */
  describe(values: Partial<Record<ConditionMetric, number>>): string {
    return this.used.map((name) => `${name} = ${metricText(values[name] ?? NaN)}`).join(', ');
  }
}

/** A metric's value in a message: three decimals at most, `n/a` before it has one. */
function metricText(x: number): string {
  return Number.isFinite(x) ? String(Math.round(x * 1000) / 1000) : 'n/a';
}

const PRECEDENCE: Record<string, number> = { or: 1, and: 2, '==': 3, '!=': 3, '<': 3, '<=': 3, '>': 3, '>=': 3, '+': 4, '-': 4, '*': 5, '/': 5, '^': 6 };

/** The expression as the language writes it, for messages and logs. */
export function formatExpr(expr: PlanExpr, parent = 0): string {
  if ('const' in expr) return typeof expr.const === 'string' ? JSON.stringify(expr.const) : typeof expr.const === 'number' ? numberLiteral(expr.const).replace(/^\((.*)\)$/, '$1') : String(expr.const);
  if ('ref' in expr) return expr.ref;
  if ('list' in expr) return `[${expr.list.map((e) => formatExpr(e)).join(', ')}]`;
  if ('call' in expr) return `${expr.call}(${expr.args.map((e) => formatExpr(e)).join(', ')})`;
  if (expr.op === 'neg') return `-${formatExpr(expr.args[0], 7)}`;
  if (expr.op === 'not') return `not ${formatExpr(expr.args[0], 3)}`;
  const p = PRECEDENCE[expr.op];
  const [a, b] = expr.args as [PlanExpr, PlanExpr];
  const text = `${formatExpr(a, p)} ${expr.op} ${formatExpr(b, p + 1)}`;
  return p < parent ? `(${text})` : text;
}
