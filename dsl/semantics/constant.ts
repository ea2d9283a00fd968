// Constant folding of numeric expressions, for hyperparameters written as `1 - 1e-3` or `-0.05`,
// and for reward terms whose parts are never finite (`1/0`, `log(0)`).
import type { BinaryOperator, Expression } from '../syntax/ast.js';

/** The number an expression stands for, or undefined when it is not a numeric constant. */
export function constantNumber(expr: Expression | undefined): number | undefined {
  return fold(expr, false);
}

/**
 * A number, string, boolean, none, or list of these, as JSON (none: null); undefined for anything
 * else (a name, a call, a list holding one). What a Python env's kwargs value may be, and how the
 * compiler reads an untyped parameter's literal.
 */
export function literalValue(expr: Expression): unknown {
  const n = constantNumber(expr);
  if (n !== undefined) return n;
  switch (expr.kind) {
    case 'String': return expr.value;
    case 'Boolean': return expr.value;
    case 'None': return null;
    case 'List': {
      const items = expr.items.map(literalValue);
      return items.some((item) => item === undefined) ? undefined : items;
    }
    default: return undefined;
  }
}

/**
 * Like constantNumber, and also through calls of the pure math functions of reward terms with
 * constant arguments (`log(0)`, `sqrt(-1)`): for finding the parts of a term that are never finite.
 */
export function foldedNumber(expr: Expression | undefined): number | undefined {
  return fold(expr, true);
}

/** The pure math functions of reward terms, as the trainer computes them (runtime/rewards/expr.ts). */
const MATH: Record<string, { arity?: number; fn: (...xs: number[]) => number }> = {
  abs: { arity: 1, fn: Math.abs }, sqrt: { arity: 1, fn: Math.sqrt }, exp: { arity: 1, fn: Math.exp }, log: { arity: 1, fn: Math.log },
  min: { fn: Math.min }, max: { fn: Math.max },
  clip: { arity: 3, fn: (x, lo, hi) => Math.min(Math.max(x, lo), hi) },
};

function fold(expr: Expression | undefined, calls: boolean): number | undefined {
  if (!expr) return undefined;
  switch (expr.kind) {
    case 'Number':
      return expr.value;
    case 'Paren':
      return fold(expr.expression, calls);
    case 'Unary': {
      if (expr.operator !== '-') return undefined;
      const v = fold(expr.operand, calls);
      return v === undefined ? undefined : -v;
    }
    case 'Binary': {
      const a = fold(expr.left, calls);
      const b = fold(expr.right, calls);
      return a === undefined || b === undefined ? undefined : arithmetic(expr.operator, a, b);
    }
    case 'Call': {
      const math = calls && expr.callee.parts.length === 1 ? MATH[expr.callee.parts[0].text] : undefined;
      // A call with the wrong arguments has its own diagnostic.
      if (!math || expr.args.length === 0 || (math.arity !== undefined && expr.args.length !== math.arity)) return undefined;
      const args = expr.args.map((a) => (a.name ? undefined : fold(a.value, calls)));
      return args.every((a) => a !== undefined) ? math.fn(...(args as number[])) : undefined;
    }
    default:
      return undefined;
  }
}

function arithmetic(operator: BinaryOperator, a: number, b: number): number | undefined {
  switch (operator) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': return a / b;
    case '^': return a ** b;
    default: return undefined;
  }
}
