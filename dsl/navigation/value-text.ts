// Schema values and types as a person reads them in rlx: defaults written the way a user would
// write them (`10k`, `linear(1, 0.05, over: 0.5)`, `none`), types in short code-like form.
import type { NumberType, ParamSpec, PlanValue, ValueType } from '../schema/index.js';
import { formatNumber } from '../syntax/literals.js';
import { optionsOf } from './body-schema.js';


/** A plan value written back as source; strings that are option names stay bare. */
export function formatValue(value: PlanValue | undefined, type?: ValueType): string {
  if (value === undefined) return '';
  if (value === null) return 'none';
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return optionsOf(type).some((o) => o.name === value) ? value : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => formatValue(v, type?.kind === 'list' ? type.of : undefined)).join(', ')}]`;
  if (typeof value.schedule === 'string') return formatSchedule(value);
  return JSON.stringify(value);
}

function formatSchedule(value: { [key: string]: PlanValue }): string {
  const n = (key: string) => formatValue(value[key]);
  switch (value.schedule) {
    case 'constant': return `constant(${n('value')})`;
    case 'warmup': return `warmup(${n('steps')}, ${n('then')})`;
    default: return `${String(value.schedule)}(${n('from')}, ${n('to')}${value.over !== undefined && value.over !== 1 ? `, over: ${n('over')}` : ''})`;
  }
}

/** A parameter's default as source text, or undefined when it has none. */
export function defaultText(param: ParamSpec): string | undefined {
  return param.default === undefined ? undefined : formatValue(param.default, param.type);
}

/** `number | schedule`, `integer`, `tanh | relu`, `future(k) | final`, `[integer]`, `env`. */
export function describeType(type: ValueType): string {
  switch (type.kind) {
    case 'number': return (type.integer ? 'integer' : 'number') + (type.schedule ? ' | schedule' : '');
    case 'bool': return 'true | false';
    case 'string': return type.file ? 'file path' : 'string';
    case 'list': return `[${describeType(type.of)}]`;
    case 'choice': return type.options.map((o) => (o.params?.length ? `${o.name}(${o.params.map((p) => p.name).join(', ')})` : o.name)).join(' | ');
    case 'ref': return `${type.declKind} name`;
    case 'oneOf': return type.types.map(describeType).join(' | ');
    case 'condition': return 'condition';
    case 'path': return 'path (env.NAME)';
    case 'literal': return 'number | string | true | false | none | [...]';
  }
}

/** `>= 0 and <= 1`, or undefined for an unbounded number; lists and alternatives look inside. */
export function describeRange(type: ValueType): string | undefined {
  if (type.kind === 'list') return describeRange(type.of);
  if (type.kind === 'oneOf') return type.types.map(describeRange).find((r) => r !== undefined);
  if (type.kind !== 'number') return undefined;
  return numberRange(type);
}

function numberRange(type: NumberType): string | undefined {
  const parts: string[] = [];
  if (type.min !== undefined) parts.push(`${type.exclusiveMin ? '>' : '>='} ${formatNumber(type.min)}`);
  if (type.max !== undefined) parts.push(`${type.exclusiveMax ? '<' : '<='} ${formatNumber(type.max)}`);
  const s = type.suspicious;
  const unusual = s && [s.above !== undefined ? `above ${formatNumber(s.above)}` : '', s.below !== undefined ? `below ${formatNumber(s.below)}` : ''].filter(Boolean).join(', ');
  if (parts.length === 0 && !unusual) return undefined;
  return [parts.join(' and '), unusual ? `(unusual ${unusual})` : ''].filter(Boolean).join(' ');
}

/** The source text of a node in its file, on one line and shortened for a summary. */
export function sourceText(text: string, range: { start: number; end: number }, max = 60): string {
  const flat = text.slice(range.start, range.end).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
