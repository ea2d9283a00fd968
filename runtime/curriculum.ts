// A plan's `curriculum { param, from, to, step, advance }`: the env parameter's value over the
// run. It starts at `from`; each time `advance` holds where the trainer tests it (after an
// evaluation, or after every update without an `eval` block) it moves one `step` towards `to`.
// The value is kept in the checkpoint's trainer counters, so a resume continues at it.
// A whole-number parameter (GridWorld's size) takes whole values.
import type { Plan } from '../dsl/compile/plan.js';
import { builtin, type EnvSpec } from '../dsl/schema/index.js';
import { GYMNASIUM_ENV_KIND } from '../dsl/schema/python-env.js';
import { checkEnvParams } from './envs/registry.js';
import { numberType } from './plan-params.js';
import { Condition } from './run/stop.js';

/** Values listed at most when checking a built-in env's curriculum ahead of training. */
const CHECKED_VALUES = 10_000;

export class Curriculum {
  private constructor(
    /** As the plan writes it: `env.size`. */
    readonly param: string,
    /** The env parameter's own name: `size`. */
    readonly envParam: string,
    readonly from: number,
    readonly to: number,
    readonly step: number,
    private readonly integer: boolean,
    readonly advance: Condition,
  ) {}

  /** The plan's curriculum; null without one. checkPlan() has vouched for it. */
  static of(plan: Plan): Curriculum | null {
    const c = plan.curriculum;
    if (!c) return null;
    return new Curriculum(c.param, c.param.slice('env.'.length), c.from, c.to, c.step, isInteger(plan, c.param), Condition.compile(c.advance, 'curriculum advance'));
  }

  /** Whether `value` is the last one (`to`). */
  finished(value: number): boolean {
    return value === this.to;
  }

  /** The value one step after `value` towards `to` (never past it). */
  next(value: number): number {
    const direction = Math.sign(this.to - value);
    let next = value + direction * this.step;
    if ((direction > 0 && next > this.to) || (direction < 0 && next < this.to)) next = this.to;
    // 0.1 + 0.2 steps should print as 0.3: twelve significant digits are plenty for a parameter.
    return this.integer ? Math.round(next) : Number(next.toPrecision(12));
  }

  /** Every value from `from` to `to`, at most `limit` of them. */
  values(limit = Infinity): number[] {
    const out = [this.from];
    while (!this.finished(out[out.length - 1]!) && out.length < limit) out.push(this.next(out[out.length - 1]!));
    return out;
  }
}

/** Whether `env.NAME` is a whole-number parameter of a built-in env. */
function isInteger(plan: Plan, param: string): boolean {
  const spec = builtin(plan.env.kind);
  const type = spec?.declKind === 'env' ? spec.params.find((p) => `env.${p.name}` === param)?.type : undefined;
  return type !== undefined && numberType(type)?.integer === true;
}

/**
 * Why the trainer cannot run `plan`'s curriculum (empty when it can). `text`: whether the env
 * writes text (undefined for a module not loaded yet: its copies are checked when rebuilt).
 */
export function curriculumProblems(plan: Plan, text: boolean | undefined): string[] {
  const c = plan.curriculum;
  if (!c) return [];
  if (text === true) return [`a curriculum moves a parameter of an observation env; env ${plan.env.name} is a text task`];
  if (plan.env.kind === GYMNASIUM_ENV_KIND) {
    // A Python env's copies are remade with the new keyword argument (python-env-plan.ts kwargsOf).
    if (!/^env\.kwargs\.[A-Za-z_][A-Za-z0-9_]*$/.test(c.param)) return [`a curriculum over env ${plan.env.name}, a Python env, moves one of its keyword arguments: param: env.kwargs.NAME, got ${c.param}`];
  } else if (!c.param.startsWith('env.') || c.param.split('.').length !== 2) {
    return [`curriculum param must be an env parameter such as env.size, got ${c.param}`];
  }
  if (!(c.step > 0)) return [`curriculum step must be > 0, got ${c.step}`];
  try {
    Condition.compile(c.advance, 'curriculum advance');
  } catch (err) {
    return [(err as Error).message];
  }
  const name = c.param.slice('env.'.length);
  const spec = builtin(plan.env.kind);
  if (spec?.declKind !== 'env') return []; // a user module's parameters are its own
  const param = (spec as EnvSpec).params.find((p) => p.name === name);
  if (!param) return [`curriculum param ${c.param}: ${plan.env.kind} has no parameter ${name} (it has ${(spec as EnvSpec).params.map((p) => p.name).join(', ')})`];
  const type = numberType(param.type);
  if (!type) return [`curriculum param ${c.param} is not a number, so a curriculum cannot move it`];
  if (param.changesSpaces) return [`curriculum param ${c.param} changes the size of ${plan.env.kind}'s observations or actions: a curriculum cannot move it`];
  if (type.integer && ![c.from, c.to, c.step].every(Number.isInteger)) return [`curriculum param ${c.param} is a whole number: from, to and step must be whole numbers (got ${c.from}, ${c.to}, ${c.step})`];
  // Each value the curriculum can reach must make a valid env (GridWorld: a fixed goal inside every size).
  const curriculum = Curriculum.of(plan)!;
  for (const value of curriculum.values(CHECKED_VALUES)) {
    try {
      checkEnvParams(plan.env.kind, { ...plan.env.params, [name]: value });
    } catch (err) {
      return [`curriculum ${c.param} = ${value}: ${(err as Error).message}`];
    }
  }
  return [];
}
