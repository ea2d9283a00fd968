// Hyperparameter schedules as the plan states them (dsl/compile/plan.ts `Schedule`),
// evaluated at a point of the stage's budget. Algorithms evaluate them once per update,
// at the environment step the update starts from, as CleanRL anneals its learning rate.
import type { Schedule } from '../dsl/compile/plan.js';

export type { Schedule };

/** The schedule kinds scheduleValue() evaluates (the language's SCHEDULES). */
export const SCHEDULE_KINDS = ['constant', 'linear', 'cosine', 'warmup'] as const;

/** A plan value that may be a schedule: a plain number is a constant. */
export type Schedulable = number | Schedule;

/** Whether the schedule is 0 at every step (a plain 0, or a constant schedule of 0). */
export function isZeroThroughout(schedule: Schedulable): boolean {
  return typeof schedule === 'number' ? schedule === 0 : schedule.schedule === 'constant' && schedule.value === 0;
}

/**
 * The value of `schedule` after `step` of `budget` environment steps. `over` is the
 * fraction of the budget the schedule runs for; after it the final value holds.
 */
export function scheduleValue(schedule: Schedulable, step: number, budget: number): number {
  if (typeof schedule === 'number') return schedule;
  switch (schedule.schedule) {
    case 'constant':
      return schedule.value;
    case 'linear':
    case 'cosine': {
      const span = schedule.over * budget;
      const progress = span > 0 ? Math.min(Math.max(step / span, 0), 1) : 1;
      const { from, to } = schedule;
      if (schedule.schedule === 'linear') return from + (to - from) * progress;
      return to + (from - to) * 0.5 * (1 + Math.cos(Math.PI * progress));
    }
    case 'warmup': {
      // Rises from 0 to whatever `then` says at the same step, and follows it afterwards.
      const then = scheduleValue(schedule.then, step, budget);
      return step < schedule.steps ? then * (step / schedule.steps) : then;
    }
  }
}

/** Checks that a plan value is a number or a well-formed schedule; `where` names it in the error. */
export function checkSchedulable(value: unknown, where: string): Schedulable {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  const s = value as Partial<Record<string, unknown>> | null;
  const num = (key: string) => typeof s?.[key] === 'number' && Number.isFinite(s[key]);
  if (s && typeof s === 'object') {
    if (s.schedule === 'constant' && num('value')) return value as Schedule;
    if ((s.schedule === 'linear' || s.schedule === 'cosine') && num('from') && num('to') && num('over')) return value as Schedule;
    if (s.schedule === 'warmup' && num('steps')) {
      checkSchedulable(s.then, `${where}.then`);
      return value as Schedule;
    }
  }
  throw new Error(`${where}: expected a number or a schedule ({schedule: constant|linear|cosine|warmup, ...}), got ${JSON.stringify(value)}`);
}
