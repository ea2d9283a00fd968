// The cursor while typing, resolved against the schema: the declaration it is in, and for a
// value the type expected there, down through open calls and lists (`linear(1, 0, over: |`
// expects the `over` argument of a schedule). Completion and signature help share this.
import type { ValueType } from '../schema/index.js';
import type { DeclSymbol, Model, SourceUnit } from '../index.js';
import { scanBefore, type BodyFrame, type OpenBracket, type Scan } from './prefix.js';
import { alternatives, bodySchema, optionsOf, sweepParam, type BodyPlace } from './body-schema.js';
import { signatureOf, type Signature } from './signatures.js';
import { defaultText } from './value-text.js';

export interface Cursor {
  scan: Scan;
  /** The declaration around the cursor; a stand-in for an unnamed one (`algorithm = PPO {`). */
  symbol: DeclSymbol | undefined;
}

export function cursorAt(model: Model, unit: SourceUnit, offset: number): Cursor {
  const scan = scanBefore(unit.text, unit.parse.file, offset);
  return { scan, symbol: declarationAt(model, unit, scan.declarationAt) };
}

/** The declaration whose keyword is at `offset`; a stand-in symbol when it has no name yet. */
export function declarationAt(model: Model, unit: SourceUnit, offset: number | undefined): DeclSymbol | undefined {
  const decl = offset === undefined ? undefined : unit.parse.file.declarations.find((d) => d.keywordRange.start === offset);
  return decl && (model.symbolOf(decl) ?? { name: '', decl, unit });
}

/** The body a frame stack designates: the declaration's, one of its blocks, or a stage's. */
export function bodyPlace(frames: BodyFrame[]): BodyPlace | undefined {
  if (frames.length === 1) return { kind: 'declaration' };
  const inner = frames[1];
  if (frames.length !== 2 || inner.kind === 'unknown' || inner.kind === 'declaration') return undefined;
  return inner.kind === 'block' ? { kind: 'block', name: inner.name } : { kind: 'stage', base: inner.base };
}

/** How a value is read: as a reward term, a condition over metrics, or a plain value of its type. */
export type Mode = 'term' | 'condition' | undefined;

export interface ValueScope {
  model: Model;
  unit: SourceUnit;
  /** The declaration around the value (the reward of a term, the experiment of a condition). */
  owner: DeclSymbol;
  type: ValueType | undefined;
  mode: Mode;
  /** A swept property: its value is a list of values of `type`. */
  swept: boolean;
  /** The parameter's default, as source. */
  fallback: string | undefined;
}

/** The value a property (or, with no property, a term) expects, in the body the frames designate. */
export function valueScope(model: Model, unit: SourceUnit, owner: DeclSymbol, place: { body: BodyFrame[]; property: string[] | undefined }): ValueScope {
  const scope: ValueScope = { model, unit, owner, type: undefined, mode: place.property ? undefined : 'term', swept: false, fallback: undefined };
  if (!place.property) return scope;
  if (owner.decl.declKind === 'sweep' && place.body.length === 1) {
    const { param, schema } = sweepParam(model, owner, place.property);
    return withMode({ ...scope, type: param?.type, swept: schema?.label !== 'sweep' });
  }
  const where = bodyPlace(place.body);
  const schema = where && place.property.length === 1 ? bodySchema(model, owner, where) : undefined;
  const param = schema && schema.params !== 'any' ? schema.params.find((p) => p.name === place.property![0]) : undefined;
  return withMode({ ...scope, type: param?.type, fallback: param && defaultText(param) });
}

function withMode(scope: ValueScope): ValueScope {
  return alternatives(scope.type).some((t) => t.kind === 'condition') ? { ...scope, mode: 'condition' } : scope;
}

export interface Argument {
  signature: Signature;
  open: OpenBracket;
}

/** Descends through the open calls and lists to what the cursor's argument or item expects. */
export function descend(scope: ValueScope, open: OpenBracket[]): ValueScope & { calls: Argument[] } {
  let { type, swept, mode } = scope;
  const calls: Argument[] = [];
  for (const bracket of open) {
    if (bracket.bracket === '[') {
      // The first list of a swept property lists values of the property's own type.
      const list = alternatives(type).find((t) => t.kind === 'list');
      type = swept ? type : list?.kind === 'list' ? list.of : undefined;
      swept = false;
      continue;
    }
    const signature = bracket.callee && signatureOf(bracket.callee.join('.'), { type, expression: mode !== undefined });
    if (!signature) {
      type = undefined;
      continue;
    }
    calls.push({ signature, open: bracket });
    const param = bracket.named ?? signature.params[signature.variadic ? 0 : bracket.index]?.name;
    if (signature.kind === 'option') type = optionsOf(type).find((o) => o.name === signature.name)?.params?.find((p) => p.name === param)?.type;
    else if (signature.kind === 'schedule') type = param === 'then' ? type : undefined; // `then` is a value or schedule like the whole
    else type = undefined;
    if (signature.kind !== 'function') mode = undefined; // a function's arguments are expressions too
  }
  return { ...scope, type, swept, mode, calls };
}
