// Plans are written with a fixed key order (the order the compiler builds them in) and a fixed
// layout, so the same input always gives byte-identical JSON.
import type { Plan } from './plan.js';

export function stringifyPlan(plan: Plan | Plan[]): string {
  return JSON.stringify(plan, (_key, value: unknown) => (typeof value === 'number' && Object.is(value, -0) ? 0 : value), 2) + '\n';
}

/**
 * The plans of a sweep as one JSON list, byte for byte what `stringifyPlan(list)` gives, written
 * a plan at a time so that a large sweep never has to be held whole.
 */
export function writePlanList(plans: Iterable<Plan>, write: (chunk: string) => void): void {
  let first = true;
  for (const plan of plans) {
    const text = stringifyPlan(plan).slice(0, -1).replace(/^/gm, '  ');
    write(first ? `[\n${text}` : `,\n${text}`);
    first = false;
  }
  write(first ? '[]\n' : '\n]\n');
}
