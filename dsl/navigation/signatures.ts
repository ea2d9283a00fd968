// Everything callable in rlx, described one way: reward functions and verifiers, schedules,
// options that take arguments (`future(k: 4)`) and `module("./env.ts")`. Signature help shows
// these, hover shows their labels, completion inserts them as snippets.
import {
  functionSpec, pretrained, scheduleSpec, type ChoiceOption, type FunctionSpec, type ParamSpec, type ValueType,
} from '../schema/index.js';
import { optionsOf } from './body-schema.js';
import { formatNumber } from '../syntax/literals.js';
import { defaultText, describeType } from './value-text.js';

export interface SignatureParam {
  name: string;
  /** As shown inside the signature: `x: number`, `over = 1`. */
  label: string;
  doc?: string;
}

export interface Signature {
  name: string;
  kind: 'function' | 'schedule' | 'option' | 'module';
  params: SignatureParam[];
  doc: string;
  /** `min` and `max` take any number of arguments of their one parameter. */
  variadic?: boolean;
  /** `clip(x: number, lo: number, hi: number) -> number`. */
  label: string;
}

function build(name: string, kind: Signature['kind'], params: SignatureParam[], doc: string, suffix = '', variadic = false): Signature {
  const inner = params.map((p) => p.label).join(', ') + (variadic ? ', ...' : '');
  return { name, kind, params, doc, variadic, label: `${name}(${inner})${suffix}` };
}

export function functionSignature(fn: FunctionSpec): Signature {
  const params = fn.params.map((p) => ({
    name: p.name,
    label: `${p.name}: ${p.type}${p.default !== undefined ? ` = ${formatNumber(p.default)}` : ''}`,
    doc: p.doc,
  }));
  return build(fn.name, 'function', params, fn.doc, ` -> ${fn.returns}`, fn.variadic);
}

function specParams(params: ParamSpec[]): SignatureParam[] {
  return params.map((p) => {
    const fallback = defaultText(p);
    return { name: p.name, label: fallback === undefined ? p.name : `${p.name} = ${fallback}`, doc: `${p.doc} (${describeType(p.type)})` };
  });
}

export function scheduleSignature(schedule: { name: string; doc: string; params: ParamSpec[] }): Signature {
  return build(schedule.name, 'schedule', specParams(schedule.params), schedule.doc);
}

export function optionSignature(option: ChoiceOption): Signature {
  return build(option.name, 'option', specParams(option.params ?? []), option.doc);
}

export const MODULE_SIGNATURE: Signature = build('module', 'module',
  [{ name: 'path', label: 'path: string', doc: 'The TypeScript file of the environment or learner, relative to this file.' }],
  'An environment or a learner written as code: for an env the file exports the env (observation fields, step, reset); for an algorithm, its settings and buildLoss (docs/learners.md).');

export const PRETRAINED_SIGNATURE: Signature = build(pretrained.name, 'module',
  [{ name: 'path', label: 'path: string', doc: pretrained.folder!.doc }], pretrained.doc);

/**
 * What a call of `name` means where it stands. In a value of type `type`, options and schedules
 * come first (`random(samples: 20)` is a sweep strategy there); in expressions, functions.
 */
export function signatureOf(name: string, where: { type?: ValueType; expression?: boolean; base?: boolean }): Signature | undefined {
  if (where.base) return name === 'module' ? MODULE_SIGNATURE : name === PRETRAINED_SIGNATURE.name ? PRETRAINED_SIGNATURE : undefined;
  const option = optionsOf(where.type).find((o) => o.name === name && o.params?.length);
  if (option) return optionSignature(option);
  const schedule = scheduleSpec(name);
  if (schedule && (where.type === undefined || acceptsSchedule(where.type))) return scheduleSignature(schedule);
  const fn = functionSpec(name);
  if (fn && (where.expression || where.type === undefined)) return functionSignature(fn);
  return undefined;
}

function acceptsSchedule(type: ValueType): boolean {
  return type.kind === 'number' ? type.schedule === true : type.kind === 'oneOf' && type.types.some(acceptsSchedule);
}

/**
 * The parameter an argument binds to: by name when named, else by position (variadic: always the
 * first). A positional argument after named ones binds to nothing (the checker reports it).
 */
export function activeParameter(signature: Signature, index: number, named: string | undefined, namedBefore = false): number | undefined {
  if (named !== undefined) {
    const at = signature.params.findIndex((p) => p.name === named);
    return at >= 0 ? at : undefined;
  }
  if (namedBefore) return undefined;
  if (signature.variadic) return 0;
  return index < signature.params.length ? index : undefined;
}
