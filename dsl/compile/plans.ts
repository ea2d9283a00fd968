// The plans of an experiment (one) or a sweep (one per member), made on demand: a sweep may have
// far more members than fit in memory at once, so nothing builds a plan before it is asked for,
// and a caller that shows a few (`first(n)`) builds only those.

import type { Plan, PlanExpr } from './plan.js';
import { GYMNASIUM_ENV_KIND } from '../schema/python-env.js';
import { PYTHON_TEXT_ENV_KIND } from '../schema/python-text-env.js';

export class Plans implements Iterable<Plan> {
  /**
   * `count` plans, the i-th made by `make(i)` each time it is asked for. `variants` makes a few
   * plans between them holding every value any plan has (a sweep: each value of each axis once),
   * for questions about all members that a sample of the first ones cannot answer.
   */
  constructor(
    readonly count: number,
    private readonly make: (index: number) => Plan,
    private readonly makeVariants: () => Plan[] = () => this.first(count),
  ) {}

  static of(plans: readonly Plan[]): Plans {
    return new Plans(plans.length, (i) => structuredClone(plans[i]));
  }

  /**
   * Plans that between them hold every value of every plan (for a sweep, one per value of each
   * axis: their number is the sum of the axes' lengths, not their product). Which user env
   * modules a sweep may load, say, is a question about these.
   */
  variants(): Plan[] {
    return this.makeVariants();
  }

  /** The plan at `index` (0-based); a fresh object each time. */
  at(index: number): Plan {
    if (!Number.isSafeInteger(index) || index < 0 || index >= this.count) throw new RangeError(`no plan ${index}: there are ${this.count}`);
    return this.make(index);
  }

  /** The first `n` plans (all of them when there are fewer). */
  first(n: number): Plan[] {
    const out: Plan[] = [];
    for (let i = 0; i < Math.min(n, this.count); i++) out.push(this.make(i));
    return out;
  }

  *[Symbol.iterator](): Iterator<Plan> {
    for (let i = 0; i < this.count; i++) yield this.make(i);
  }
}

/**
 * The user code the plans would run, each once, as the plans write it: modules (`module("./x.ts")`:
 * envs, and learners of stages), and Python envs, which run the workspace's Python (an interpreter
 * and packages it may choose): a python("./x.py:Class") env as its file, a gymnasium("Id") env as
 * `gymnasium("Id")`, a reward's python("./rewards.py:fn") as its argument.
 */
export function userModules(plans: Iterable<Plan>): string[] {
  const modules = new Set<string>();
  for (const plan of plans) {
    if (plan.env.kind === 'module') modules.add(plan.env.module ?? plan.env.name);
    if (plan.env.kind === PYTHON_TEXT_ENV_KIND) modules.add(String(plan.env.params.file));
    if (plan.env.kind === GYMNASIUM_ENV_KIND) modules.add(typeof plan.env.params.file === 'string' ? plan.env.params.file : `gymnasium("${String(plan.env.params.id)}")`);
    for (const stage of plan.stages) if (stage.algorithm.kind === 'module') modules.add(stage.algorithm.module ?? stage.algorithm.name);
    // A reward's python("./rewards.py:fn") terms run the workspace's Python too.
    for (const term of plan.reward?.terms ?? []) for (const spec of pythonCalls(term.expr)) modules.add(spec);
  }
  return [...modules];
}

/** The arguments of the python("...") calls in an expression. */
function pythonCalls(expr: PlanExpr): string[] {
  if ('call' in expr) {
    const inner = expr.args.flatMap(pythonCalls);
    const arg = expr.args[0];
    return expr.call === 'python' && arg && 'const' in arg && typeof arg.const === 'string' ? [arg.const, ...inner] : inner;
  }
  if ('op' in expr) return expr.args.flatMap(pythonCalls);
  if ('list' in expr) return expr.list.flatMap(pythonCalls);
  return [];
}
