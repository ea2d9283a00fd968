// Small constructors that keep the registry tables readable.
import type { DeclKind } from '../syntax/ast.js';
import type { ChoiceOption, DataFileType, NumberType, ParamSpec, PlanValue, ValueType } from './types.js';

export const num = (opts: Omit<NumberType, 'kind'> = {}): NumberType => ({ kind: 'number', ...opts });
export const int = (opts: Omit<NumberType, 'kind' | 'integer'> = {}): NumberType => ({ kind: 'number', integer: true, ...opts });
/** A positive whole count (steps, sizes): `500k`. */
export const count = (opts: Omit<NumberType, 'kind' | 'integer'> = {}): NumberType => int({ min: 1, ...opts });
export const probability = (opts: Omit<NumberType, 'kind'> = {}): NumberType => num({ min: 0, max: 1, ...opts });
export const bool: ValueType = { kind: 'bool' };
export const string: ValueType = { kind: 'string' };
/** The path of a data file a learner reads, relative to the .rlx file; `what` it holds, for docs and messages, and how its contents are checked. */
export const file = (what: string, format?: DataFileType['format']): ValueType => ({ kind: 'string', file: format ? { what, format } : { what } });
export const nonEmptyString: ValueType = { kind: 'string', nonEmpty: true };
export const list = (of: ValueType, minItems?: number): ValueType => ({ kind: 'list', of, minItems });
export const choice = (...options: ChoiceOption[]): ValueType => ({ kind: 'choice', options });
export const option = (name: string, doc: string, params?: ParamSpec[]): ChoiceOption => ({ name, doc, params });
export const ref = (declKind: DeclKind): ValueType => ({ kind: 'ref', declKind });
export const oneOf = (...types: ValueType[]): ValueType => ({ kind: 'oneOf', types });
export const condition: ValueType = { kind: 'condition' };
export const path: ValueType = { kind: 'path' };
export const literal: ValueType = { kind: 'literal' };

export function param(name: string, type: ValueType, defaultValue: PlanValue | undefined, doc: string): ParamSpec {
  return defaultValue === undefined ? { name, type, doc } : { name, type, default: defaultValue, doc };
}

export function required(name: string, type: ValueType, doc: string): ParamSpec {
  return { name, type, required: true, doc };
}

/** The `max_steps` every environment has: episodes are truncated there. */
export const maxSteps = (defaultSteps: number): ParamSpec =>
  param('max_steps', count({ max: 1e6 }), defaultSteps, 'Episode length limit: the episode is truncated after this many steps.');

/** A learning rate: positive, warned about when unusually large. */
export const learningRate = (defaultValue: number): ParamSpec =>
  param('learning_rate', num({ min: 0, exclusiveMin: true, max: 10, schedule: true, suspicious: { above: 0.1, why: 'learning rates above 0.1 usually make training diverge' } }), defaultValue,
    'Optimiser step size (Adam); a number or a schedule such as `linear(2.5e-4, 0)`.');

export const discount = (defaultValue: number): ParamSpec =>
  param('gamma', num({ min: 0, max: 1, suspicious: { below: 0.8, why: 'a discount below 0.8 makes the agent very short-sighted' } }), defaultValue,
    'Discount factor for future rewards, in [0, 1].');

export const relabel: ParamSpec = param('relabel', choice(
  option('none', 'No relabeling.'),
  option('future', 'Replace the goal with one achieved later in the same episode (HER "future").', [param('k', count({ max: 64 }), 4, 'Relabeled copies per transition.')]),
  option('final', 'Replace the goal with the one achieved at the end of the episode.'),
  option('episode', 'Replace the goal with one achieved anywhere in the episode.', [param('k', count({ max: 64 }), 4, 'Relabeled copies per transition.')]),
), 'none', 'Hindsight experience replay: relabel stored transitions with goals that were actually achieved. Needs a goal-conditioned env.');
