// Compiles the plan's normalised expressions (PlanExpr) to JavaScript source, once, so that
// a reward term or a stop condition evaluated millions of times is a plain JS function that
// V8 optimises like hand-written code: no tree walk, no allocation per evaluation.
//
// Safety: the generated source contains only number literals, operators, Math functions and
// the accessors that a NameResolver returns; strings and unknown names from a plan are
// rejected here, never pasted into code. So a plan file from elsewhere cannot inject code.
//
// Values: numbers; booleans count as 0/1 (docs/language.md#rewards-and-conditions), so comparisons give 1 or 0
// and conditions test `!== 0`. Vectors (`obs`, `goal`, `[a, b]`) exist only at compile time,
// as lists of scalar expressions, and are consumed by norm(), dist() and novelty(), which take a
// number as a vector of one.
import type { PlanExpr } from '../../dsl/compile/plan.js';
import { NOT_IMPLEMENTED_FUNCTIONS } from '../not-implemented.js';
import { InputError } from '../../shared/input-error.js';

/** Compiled code: a scalar expression, or a vector of them. */
export type Code = { readonly scalar: string } | { readonly vector: readonly string[] };

/** Maps a name (`obs.x`, `eval.mean_return`) to code; throws a message for an unknown name. */
export type NameResolver = (ref: string) => Code;

/** Functions whose calls compile to code that needs a helper object `h` at run time. */
export interface HelperFunctions {
  /** `novelty(v)`: code calling the run-time helper with the vector's elements. */
  readonly novelty?: (args: readonly string[]) => string;
  /** Text envs only: code for a verifier call (exact, regex, ...), or undefined for another function. */
  readonly text?: (call: string, args: readonly PlanExpr[], scalar: (expr: PlanExpr) => string) => string | undefined;
  /** Single-turn text tasks only: code reading the value of `python("./file.py:function")` for the completion. */
  readonly python?: (spec: string) => string;
}

/** The functions this compiler implements (the registry's non-text ones). */
export const EXPR_FUNCTIONS = ['abs', 'sqrt', 'exp', 'log', 'min', 'max', 'clip', 'norm', 'dist', 'if', 'novelty', 'python'] as const;

/** An expression the compiler cannot turn into code; the caller names the reward or condition it is in. */
export class ExprError extends InputError {
  override name = 'ExprError';
}

const BINARY: Record<string, (a: string, b: string) => string> = {
  '+': (a, b) => `(${a} + ${b})`,
  '-': (a, b) => `(${a} - ${b})`,
  '*': (a, b) => `(${a} * ${b})`,
  '/': (a, b) => `(${a} / ${b})`,
  '^': (a, b) => `Math.pow(${a}, ${b})`,
  '==': (a, b) => `(${a} === ${b} ? 1 : 0)`,
  '!=': (a, b) => `(${a} !== ${b} ? 1 : 0)`,
  '<': (a, b) => `(${a} < ${b} ? 1 : 0)`,
  '<=': (a, b) => `(${a} <= ${b} ? 1 : 0)`,
  '>': (a, b) => `(${a} > ${b} ? 1 : 0)`,
  '>=': (a, b) => `(${a} >= ${b} ? 1 : 0)`,
  and: (a, b) => `(${a} !== 0 && ${b} !== 0 ? 1 : 0)`,
  or: (a, b) => `(${a} !== 0 || ${b} !== 0 ? 1 : 0)`,
};

const MATH_1: Record<string, string> = { abs: 'Math.abs', sqrt: 'Math.sqrt', exp: 'Math.exp', log: 'Math.log' };

/** A JS literal for a number, including the values JSON cannot hold. */
export function numberLiteral(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '(-Infinity)';
  if (Object.is(value, -0)) return '(-0)';
  return value < 0 ? `(${String(value)})` : String(value);
}

/** Compiles `expr` to the source of one scalar JS expression. */
export function compileScalar(expr: PlanExpr, resolve: NameResolver, helpers: HelperFunctions = {}): string {
  const code = compile(expr, resolve, helpers);
  if ('vector' in code) throw new ExprError(`expected a number, got a vector of ${code.vector.length} (use norm() or dist())`);
  return code.scalar;
}

function compile(expr: PlanExpr, resolve: NameResolver, helpers: HelperFunctions): Code {
  const scalar = (e: PlanExpr): string => compileScalar(e, resolve, helpers);
  // A number is a vector of one element, as the checker has it: norm(action) on a one-dimensional
  // action (Pendulum) is its absolute value.
  const vector = (e: PlanExpr): readonly string[] => {
    const code = compile(e, resolve, helpers);
    return 'vector' in code ? code.vector : [code.scalar];
  };
  if ('const' in expr) {
    const value = expr.const;
    if (typeof value === 'boolean') return { scalar: value ? '1' : '0' };
    if (typeof value === 'number') return { scalar: numberLiteral(value) };
    throw new ExprError(`text values such as ${JSON.stringify(value)} need a text environment, which is not implemented yet`);
  }
  if ('ref' in expr) return resolve(expr.ref);
  if ('list' in expr) return { vector: expr.list.map(scalar) };
  if ('op' in expr) {
    if (expr.op === 'neg') return { scalar: `(-${scalar(expr.args[0])})` };
    if (expr.op === 'not') return { scalar: `(${scalar(expr.args[0])} === 0 ? 1 : 0)` };
    const emit = BINARY[expr.op];
    if (!emit) throw new ExprError(`unknown operator "${String(expr.op)}"`);
    const [a, b] = expr.args as [PlanExpr, PlanExpr];
    return { scalar: emit(scalar(a), scalar(b)) };
  }
  const { call, args } = expr;
  const arity = (n: number) => {
    if (args.length !== n) throw new ExprError(`${call}() takes ${n} argument(s), got ${args.length}`);
  };
  if (Object.hasOwn(MATH_1, call)) {
    arity(1);
    return { scalar: `${MATH_1[call]}(${scalar(args[0])})` };
  }
  switch (call) {
    case 'min':
    case 'max':
      if (args.length === 0) throw new ExprError(`${call}() needs at least one argument`);
      return { scalar: `Math.${call}(${args.map(scalar).join(', ')})` };
    case 'clip':
      arity(3);
      return { scalar: `Math.min(Math.max(${scalar(args[0])}, ${scalar(args[1])}), ${scalar(args[2])})` };
    case 'if':
      arity(3);
      return { scalar: `(${scalar(args[0])} !== 0 ? ${scalar(args[1])} : ${scalar(args[2])})` };
    case 'norm': {
      arity(1);
      const v = vector(args[0]);
      return { scalar: `Math.sqrt(${v.map((x) => `${x} * ${x}`).join(' + ') || '0'})` };
    }
    case 'dist': {
      arity(2);
      const a = vector(args[0]);
      const b = vector(args[1]);
      if (a.length !== b.length) throw new ExprError(`dist() needs vectors of the same length, got ${a.length} and ${b.length}`);
      return { scalar: `Math.sqrt(${a.map((x, i) => `(${x} - ${b[i]}) * (${x} - ${b[i]})`).join(' + ') || '0'})` };
    }
    case 'python': {
      arity(1);
      const arg = args[0];
      if (!('const' in arg) || typeof arg.const !== 'string') throw new ExprError('python() takes the file and function as one "string" literal, such as python("./rewards.py:accuracy")');
      if (!helpers.python) throw new ExprError('python() reward functions score the completions of a single-turn text task (TextTask); this env is not one');
      return { scalar: helpers.python(arg.const) };
    }
    case 'novelty': {
      arity(1);
      if (!helpers.novelty) throw new ExprError('novelty() is only available in reward terms');
      return { scalar: helpers.novelty(vector(args[0])) };
    }
  }
  const verifier = helpers.text?.(call, args, scalar);
  if (verifier !== undefined) return { scalar: verifier };
  if (Object.hasOwn(NOT_IMPLEMENTED_FUNCTIONS, call)) throw new ExprError(`${call}(): ${NOT_IMPLEMENTED_FUNCTIONS[call]}`);
  throw new ExprError(`unknown function ${call}()`);
}
