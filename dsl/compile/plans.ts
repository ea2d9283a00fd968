// The plans of an experiment (one) or a sweep (one per member), made on demand: a sweep may have
// far more members than fit in memory at once, so nothing builds a plan before it is asked for,
// and a caller that shows a few (`first(n)`) builds only those.

import type { Plan } from './plan.js';

export class Plans implements Iterable<Plan> {
  /** `count` plans, the i-th made by `make(i)` each time it is asked for. */
  constructor(readonly count: number, private readonly make: (index: number) => Plan) {}

  static of(plans: readonly Plan[]): Plans {
    return new Plans(plans.length, (i) => structuredClone(plans[i]));
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
