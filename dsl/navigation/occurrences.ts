// What every name in a file means: a declaration, a reference to one (or to a built-in), a
// property of some schema, an option, a function, a reward name, a metric... Hover, definition,
// references, highlight, rename and semantic tokens all start from this one classification, so
// they never disagree about what a name is. Computed per declaration and cached per analysis.
import {
  DECLARATION_SCHEMAS, METRICS, REWARD_NAMES, functionSpec, scheduleSpec, type BlockSpec, type ChoiceOption, type MetricName,
  type ParamSpec, type RewardName, type ValueType,
} from '../schema/index.js';
import { nameText, type DeclSymbol, type Model, type SourceUnit, type Target } from '../index.js';
import type * as A from '../index.js';
import {
  alternatives, bodySchema, envsOfReward, experimentSchema, optionsOf, partSchema, PARTS, sweepParam, sweptExperiment,
  type BodyPlace, type BodySchema, type EnvUse,
} from './body-schema.js';
import { functionSignature, optionSignature, scheduleSignature, type Signature } from './signatures.js';

export type Meaning =
  | { kind: 'declaration'; symbol: DeclSymbol }
  /** A name that stands for a declaration or built-in: a base, `over X`, a stage's algorithm, `env: Pole`. */
  | { kind: 'reference'; target: Target | undefined }
  /** `module` in `env X = module("./env.ts")`. */
  | { kind: 'module' }
  | { kind: 'property'; key: string; param: ParamSpec | undefined; schema: BodySchema | undefined; node: A.Property | undefined; owner: DeclSymbol }
  | { kind: 'block'; spec: BlockSpec | undefined; owner: DeclSymbol }
  /** The name of a `term` or `stage`. */
  | { kind: 'member'; node: A.NamedMember; owner: DeclSymbol }
  | { kind: 'option'; option: ChoiceOption }
  /** The callee of a function, schedule or option call. */
  | { kind: 'call'; signature: Signature }
  | { kind: 'argument'; name: string; signature: Signature }
  | { kind: 'reward-name'; spec: RewardName; envs: EnvUse[] }
  /** `theta` in `obs.theta`, `turns` in `info.turns`. */
  | { kind: 'field'; of: RewardName; name: string; envs: EnvUse[] }
  | { kind: 'metric'; metric: MetricName }
  | { kind: 'import'; path: string | undefined };

export interface Occurrence {
  range: A.Range;
  meaning: Meaning;
}

const EXPERIMENT_PARAMS = DECLARATION_SCHEMAS.experiment.params;

/** Classifies the names of one declaration (body, members, values) in source order. */
class Classifier {
  readonly out: Occurrence[] = [];

  constructor(private readonly model: Model, private readonly unit: SourceUnit) {}

  private add(range: A.Range, meaning: Meaning): void {
    this.out.push({ range, meaning });
  }

  declaration(decl: A.Declaration): void {
    const symbol = this.model.symbolOf(decl);
    if (!symbol) return; // a declaration without a name: nothing can refer to it, or resolve inside it reliably
    this.add(decl.name!.range, { kind: 'declaration', symbol });
    if (decl.base) this.base(decl.base);
    const over = decl.over?.parts;
    if (over?.length === 1) this.reference(over[0]);
    if (!decl.body) return;
    if (decl.declKind === 'sweep') this.sweepBody(decl.body, symbol);
    else this.body(decl.body, symbol, { kind: 'declaration' });
  }

  private base(base: A.BaseRef): void {
    const parts = base.name.parts;
    if (parts.length === 1 && parts[0].text === 'module' && base.args !== undefined) this.add(parts[0].range, { kind: 'module' });
    else if (parts.length === 1) this.reference(parts[0]);
  }

  private reference(name: A.Identifier): void {
    this.add(name.range, { kind: 'reference', target: this.model.lookup(this.unit, name.text) });
  }

  private body(body: A.Body, owner: DeclSymbol, place: BodyPlace): void {
    const schema = bodySchema(this.model, owner, place);
    for (const member of body.members) {
      if (member.kind === 'Property') {
        const key = member.path.map((p) => p.text).join('.');
        const param = schema && schema.params !== 'any' && member.path.length === 1 ? schema.params.find((p) => p.name === key) : undefined;
        for (const segment of member.path) this.add(segment.range, { kind: 'property', key, param, schema, node: member, owner });
        this.value(member.value, param?.type, owner);
      } else if (member.kind === 'Block') {
        this.add(member.name.range, { kind: 'block', spec: schema?.blocks.find((b) => b.name === member.name.text), owner });
        this.body(member.body, owner, { kind: 'block', name: member.name.text });
      } else {
        this.named(member, owner);
      }
    }
  }

  private named(member: A.NamedMember, owner: DeclSymbol): void {
    if (member.name) this.add(member.name.range, { kind: 'member', node: member, owner });
    if (member.memberKind === 'term') {
      this.rewardExpression(member.value, envsOfReward(this.model, owner));
      return;
    }
    const baseName = member.base?.name.parts;
    if (baseName?.length === 1) this.reference(baseName[0]);
    if (member.body) this.body(member.body, owner, { kind: 'stage', base: baseName?.length === 1 ? baseName[0].text : undefined });
  }

  /** A sweep's properties are its own settings, or paths into its experiment with lists of values. */
  private sweepBody(body: A.Body, sweep: DeclSymbol): void {
    for (const member of body.members) {
      if (member.kind === 'Block') {
        this.add(member.name.range, { kind: 'block', spec: DECLARATION_SCHEMAS.sweep.blocks.find((b) => b.name === member.name.text), owner: sweep });
        this.body(member.body, sweep, { kind: 'block', name: member.name.text });
        continue;
      }
      if (member.kind !== 'Property') continue;
      const path = member.path.map((p) => p.text);
      const key = path.join('.');
      const { param, schema } = sweepParam(this.model, sweep, path);
      const [head, second] = member.path;
      if (second) {
        // The head names a part of the experiment (`algorithm`) or one of its blocks (`eval`).
        const block = DECLARATION_SCHEMAS.experiment.blocks.find((b) => b.name === head.text);
        if (block) this.add(head.range, { kind: 'block', spec: block, owner: sweep });
        else this.add(head.range, { kind: 'property', key: head.text, param: EXPERIMENT_PARAMS.find((p) => p.name === head.text), schema: experimentSchema(sweptExperiment(this.model, sweep)), node: undefined, owner: sweep });
      }
      for (const segment of member.path.slice(second ? 1 : 0)) this.add(segment.range, { kind: 'property', key, param, schema, node: member, owner: sweep });
      const own = path.length === 1 && DECLARATION_SCHEMAS.sweep.params.some((p) => p.name === path[0]);
      if (own || member.value?.kind !== 'List') this.value(member.value, param?.type, sweep);
      else for (const item of member.value.items) this.value(item, param?.type, sweep);
    }
  }

  /** A value, read by the type its parameter declares. */
  private value(expr: A.Expression | undefined, type: ValueType | undefined, owner: DeclSymbol): void {
    if (!expr) return;
    const kinds = alternatives(type).map((t) => t.kind);
    if (kinds.includes('condition')) return this.condition(expr);
    if (kinds.includes('path')) return this.path(expr, owner);
    if (expr.kind === 'Name' && expr.parts.length === 1) {
      const option = optionsOf(type).find((o) => o.name === expr.parts[0].text);
      const ref = alternatives(type).find((t) => t.kind === 'ref');
      if (option) this.add(expr.range, { kind: 'option', option });
      else if (ref?.kind === 'ref') this.reference(expr.parts[0]);
      else if (type === undefined && this.model.lookup(this.unit, expr.parts[0].text)?.kind === 'decl') this.reference(expr.parts[0]);
      return;
    }
    if (expr.kind === 'Call' && expr.callee.parts.length === 1) return this.call(expr, type, owner);
    if (expr.kind === 'List') {
      const list = alternatives(type).find((t) => t.kind === 'list');
      for (const item of expr.items) this.value(item, list?.kind === 'list' ? list.of : undefined, owner);
      return;
    }
    for (const child of subexpressions(expr)) this.value(child, undefined, owner);
  }

  private call(expr: A.Call, type: ValueType | undefined, owner: DeclSymbol): void {
    const name = expr.callee.parts[0].text;
    const option = optionsOf(type).find((o) => o.name === name);
    const schedule = scheduleSpec(name);
    if (option) {
      const signature = optionSignature(option);
      this.add(expr.callee.range, { kind: 'option', option });
      this.arguments(expr.args, signature, (p) => option.params?.find((q) => q.name === p)?.type, owner);
    } else if (schedule && alternatives(type).some((t) => t.kind === 'number' && t.schedule)) {
      const signature = scheduleSignature(schedule);
      this.add(expr.callee.range, { kind: 'call', signature });
      this.arguments(expr.args, signature, (p) => (p === 'then' ? type : undefined), owner);
    } else {
      for (const arg of expr.args) this.value(arg.value, undefined, owner);
    }
  }

  private arguments(args: A.Argument[], signature: Signature, typeOf: (param: string) => ValueType | undefined, owner: DeclSymbol): void {
    args.forEach((arg, i) => {
      const param = arg.name?.text ?? signature.params[i]?.name;
      if (arg.name) this.add(arg.name.range, { kind: 'argument', name: arg.name.text, signature });
      this.value(arg.value, param ? typeOf(param) : undefined, owner);
    });
  }

  /** `stop:` and `advance:`: names are run metrics, calls are functions. */
  private condition(expr: A.Expression): void {
    if (expr.kind === 'Name') {
      const metric = METRICS.find((m) => m.name === nameText(expr));
      if (metric) for (const part of expr.parts) this.add(part.range, { kind: 'metric', metric });
      return;
    }
    if (expr.kind === 'Call') this.functionCall(expr, (arg) => this.condition(arg));
    else for (const child of subexpressions(expr)) this.condition(child);
  }

  /** A curriculum's `param: env.size`: a part of the experiment, then one of its parameters. */
  private path(expr: A.Expression, experiment: DeclSymbol): void {
    if (expr.kind !== 'Name' || expr.parts.length !== 2) return;
    const [head, param] = expr.parts;
    const schema = partSchema(this.model, experiment, head.text);
    if (!(PARTS as readonly string[]).includes(head.text)) return;
    this.add(head.range, { kind: 'property', key: head.text, param: EXPERIMENT_PARAMS.find((p) => p.name === head.text), schema: experimentSchema(experiment), node: undefined, owner: experiment });
    const found = schema && schema.params !== 'any' ? schema.params.find((p) => p.name === param.text) : undefined;
    this.add(param.range, { kind: 'property', key: param.text, param: found, schema, node: undefined, owner: experiment });
  }

  /** A reward term: reward names with their fields, and functions. */
  private rewardExpression(expr: A.Expression | undefined, envs: EnvUse[]): void {
    if (!expr) return;
    if (expr.kind === 'Name') {
      const [head, field] = expr.parts;
      const spec = REWARD_NAMES.find((n) => n.name === head.text);
      if (!spec) return;
      this.add(head.range, { kind: 'reward-name', spec, envs });
      if (field && spec.fields) this.add(field.range, { kind: 'field', of: spec, name: field.text, envs });
      return;
    }
    if (expr.kind === 'Call') this.functionCall(expr, (arg) => this.rewardExpression(arg, envs));
    else for (const child of subexpressions(expr)) this.rewardExpression(child, envs);
  }

  private functionCall(expr: A.Call, argument: (value: A.Expression) => void): void {
    const fn = expr.callee.parts.length === 1 ? functionSpec(expr.callee.parts[0].text) : undefined;
    const signature = fn && functionSignature(fn);
    if (signature) this.add(expr.callee.range, { kind: 'call', signature });
    for (const arg of expr.args) {
      if (arg.name && signature) this.add(arg.name.range, { kind: 'argument', name: arg.name.text, signature });
      if (arg.value) argument(arg.value);
    }
  }
}

function subexpressions(expr: A.Expression): A.Expression[] {
  switch (expr.kind) {
    case 'Unary': return expr.operand ? [expr.operand] : [];
    case 'Binary': return expr.right ? [expr.left, expr.right] : [expr.left];
    case 'Paren': return expr.expression ? [expr.expression] : [];
    case 'List': return expr.items;
    case 'Call': return expr.args.flatMap((a) => (a.value ? [a.value] : []));
    default: return [];
  }
}

const byDeclaration = new WeakMap<A.Declaration, { model: Model; list: Occurrence[] }>();

/** The classified names of one declaration, in source order. */
export function declarationOccurrences(model: Model, unit: SourceUnit, decl: A.Declaration): Occurrence[] {
  const cached = byDeclaration.get(decl);
  if (cached?.model === model) return cached.list;
  const classifier = new Classifier(model, unit);
  classifier.declaration(decl);
  const list = classifier.out.sort((a, b) => a.range.start - b.range.start);
  byDeclaration.set(decl, { model, list });
  return list;
}

/** Every classified name of a file: its imports, then each declaration's names. */
export function fileOccurrences(model: Model, unit: SourceUnit): Occurrence[] {
  const imports: Occurrence[] = unit.imports.flatMap((imp) => (imp.node.path ? [{ range: imp.node.path.range, meaning: { kind: 'import' as const, path: imp.path } }] : []));
  return [...imports, ...unit.parse.file.declarations.flatMap((d) => declarationOccurrences(model, unit, d))];
}

/** The name under the cursor; a cursor just after a name (`Pole|`) still finds it. */
export function occurrenceAt(model: Model, unit: SourceUnit, offset: number): Occurrence | undefined {
  const decl = unit.parse.file.declarations.find((d) => d.range.start <= offset && offset <= d.range.end);
  const candidates = decl ? declarationOccurrences(model, unit, decl) : fileOccurrences(model, unit);
  return candidates.find((o) => o.range.start <= offset && offset < o.range.end)
    ?? candidates.find((o) => o.range.end === offset);
}
