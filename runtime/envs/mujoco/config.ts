// One reader of a MuJoCo env's settings, by the types the registry declares for them
// (dsl/schema/mujoco-envs.ts): whole numbers as counts (max_steps, frame_skip), booleans as
// flags, a bound that may be `none` as a number or null, any other number as a number. An env's
// file then names only its config's shape, and a new setting is written once, in the registry.
import type { ParamSpec } from '../../../dsl/schema/index.js';
import { envParams } from '../params.js';

/** A range's bounds; null: unbounded on that side (Gymnasium's inf). */
export interface Range {
  readonly min: number | null;
  readonly max: number | null;
}

/** The settings of MuJoCo env `kind`, defaults filled in and each value checked (an EnvParamError names a bad one). */
export function mujocoConfig<T extends object>(kind: string, given: object): Readonly<T> {
  const p = envParams(kind, given);
  const read = (spec: ParamSpec): number | boolean | null => {
    const type = spec.type;
    if (type.kind === 'bool') return p.flag(spec.name);
    if (type.kind === 'oneOf') return p.numberOrNone(spec.name);
    if (type.kind === 'number' && type.integer) return p.count(spec.name);
    return p.number(spec.name);
  };
  return Object.freeze(Object.fromEntries(p.declared.map((spec) => [spec.name, read(spec)]))) as Readonly<T>;
}

/** Settings NAME_min and NAME_max of a config as one range. */
export function rangeOf(config: object, name: string): Range {
  const values = config as Record<string, number | null>;
  return { min: values[`${name}_min`], max: values[`${name}_max`] };
}

/** Gymnasium's open interval test, min < value < max. */
export function insideOpen(value: number, range: Range): boolean {
  return (range.min === null || range.min < value) && (range.max === null || value < range.max);
}

/** Gymnasium's closed interval test, min <= value <= max (Ant's health). */
export function insideClosed(value: number, range: Range): boolean {
  return (range.min === null || range.min <= value) && (range.max === null || value <= range.max);
}

/** np.clip(value, min, max), an unbounded side left open. */
export function clip(value: number, range: Range): number {
  if (range.min !== null && value < range.min) return range.min;
  if (range.max !== null && value > range.max) return range.max;
  return value;
}
