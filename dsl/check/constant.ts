// Constant folding of numeric expressions, for hyperparameters written as `1 - 1e-3` or `-0.05`.
import type { Expression } from '../syntax/ast.js';

/** The number an expression stands for, or undefined when it is not a numeric constant. */
export function constantNumber(expr: Expression | undefined): number | undefined {
  if (!expr) return undefined;
  switch (expr.kind) {
    case 'Number':
      return expr.value;
    case 'Paren':
      return constantNumber(expr.expression);
    case 'Unary': {
      if (expr.operator !== '-') return undefined;
      const v = constantNumber(expr.operand);
      return v === undefined ? undefined : -v;
    }
    case 'Binary': {
      const a = constantNumber(expr.left);
      const b = constantNumber(expr.right);
      if (a === undefined || b === undefined) return undefined;
      switch (expr.operator) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '/': return a / b;
        case '^': return a ** b;
        default: return undefined;
      }
    }
    default:
      return undefined;
  }
}
