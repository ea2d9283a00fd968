// Plans are written with a fixed key order (the order the compiler builds them in) and a fixed
// layout, so the same input always gives byte-identical JSON.
import type { Plan } from './plan.js';

export function stringifyPlan(plan: Plan | Plan[]): string {
  return JSON.stringify(plan, (_key, value: unknown) => (typeof value === 'number' && Object.is(value, -0) ? 0 : value), 2) + '\n';
}
