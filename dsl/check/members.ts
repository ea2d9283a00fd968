// Which members a declaration may hold, and checking its own members against them: unknown and
// duplicate properties, values against their declared types, blocks, and required properties.
import { GYMNASIUM_ENV_BLOCKS, GYMNASIUM_ENV_PARAMS } from '../schema/python-env.js';
import { PYTHON_TEXT_ENV_BLOCKS, PYTHON_TEXT_ENV_PARAMS } from '../schema/python-text-env.js';
import { didYouMean, closestNames, validList, type Fix } from '../diagnostics.js';
import { algorithmSpec, builtinsOfKind, DECLARATION_SCHEMAS, type BlockSpec, type ParamSpec } from '../schema/index.js';
import { knownName } from '../schema/known-names.js';
import type * as A from '../syntax/ast.js';
import type { DeclSymbol } from '../semantics/model.js';
import { propertyKey, pythonEnvLabel, pythonEnvRoot, pythonTextRoot } from '../semantics/model.js';
import type { CheckContext, ValueScope } from './context.js';
import { ValueChecker } from './values.js';
import { checkRewardTerm } from './expressions.js';

export interface MemberSchema {
  /** The parameters, or 'any' for user-code envs whose parameters we cannot know. */
  params: ParamSpec[] | 'any';
  blocks: BlockSpec[];
  named?: 'term' | 'stage';
  /** For messages: "PPO", "experiment". */
  label: string;
}

/** The members allowed in a declaration, from its root built-in or its kind; undefined when unknowable. */
export function memberSchema(ctx: CheckContext, symbol: DeclSymbol): MemberSchema | undefined {
  const kind = symbol.decl.declKind;
  if (kind === 'experiment' || kind === 'reward' || kind === 'sweep') {
    const schema = DECLARATION_SCHEMAS[kind];
    return { params: schema.params, blocks: schema.blocks, named: schema.named, label: kind };
  }
  const root = ctx.model.effective(symbol).root;
  if (root.kind === 'builtin') return { params: root.spec.params, blocks: root.spec.blocks ?? [], label: root.spec.name };
  if (root.kind === 'module' && kind === 'algorithm') {
    const learner = ctx.model.learnerModule(symbol)?.spec;
    return learner ? { params: learner.params, blocks: [], label: learner.name } : { params: 'any', blocks: [], label: 'user learner' };
  }
  const text = pythonTextRoot(root);
  if (text) return { params: PYTHON_TEXT_ENV_PARAMS, blocks: PYTHON_TEXT_ENV_BLOCKS, label: `python_text("${text.pythonText.written}")` };
  const python = pythonEnvRoot(root);
  if (python) return { params: GYMNASIUM_ENV_PARAMS, blocks: GYMNASIUM_ENV_BLOCKS, label: pythonEnvLabel(python) };
  if (root.kind === 'module') return { params: 'any', blocks: [], label: 'user environment' };
  return undefined;
}

/** Deletes a member with the whitespace before it, so the line disappears. */
export function removeMemberFix(unit: { text: string }, member: { range: A.Range }, title: string): Fix {
  let start = member.range.start;
  while (start > 0 && /[ \t]/.test(unit.text[start - 1])) start--;
  if (start > 0 && unit.text[start - 1] === '\n') start--;
  if (start > 0 && unit.text[start - 1] === '\r') start--;
  let end = member.range.end;
  if (unit.text[end] === ',') end++;
  return { title, edits: [{ range: { start, end }, newText: '' }] };
}

export function checkMembers(ctx: CheckContext, symbol: DeclSymbol, scope: ValueScope): void {
  const schema = memberSchema(ctx, symbol);
  const body = symbol.decl.body;
  if (!schema || !body) return;
  if (symbol.decl.declKind === 'sweep') return; // sweeps check their paths against the experiment (sweeps.ts)
  checkProperties(ctx, body, schema.params, schema.label, scope, schema.blocks);
  const named = new Map<string, A.NamedMember>();
  for (const member of body.members) {
    if (member.kind === 'Block') checkBlock(ctx, member, schema, scope, symbol);
    else if (member.kind === 'Named') {
      // Two terms (or stages) of one name in one body: the second would silently replace the first.
      const first = member.name && named.get(`${member.memberKind} ${member.name.text}`);
      if (member.name && first) {
        ctx.accept('error', 'duplicate-name', `${member.memberKind} '${member.name.text}' is already declared in this body`, member.name.range, {
          related: [{ file: ctx.unit.path, range: first.name!.range, message: 'first declared here' }],
        });
      } else if (member.name) {
        named.set(`${member.memberKind} ${member.name.text}`, member);
      }
      checkNamed(ctx, member, schema, scope);
    }
  }
}

/** Properties of one body against a parameter list: unknown, duplicated, values. */
/** `blocks`: the body's blocks, so that a block written as a property (`kwargs: { ... }`) is told how to write it. */
export function checkProperties(ctx: CheckContext, body: A.Body, params: ParamSpec[] | 'any', label: string, scope: ValueScope, blocks: readonly BlockSpec[] = []): void {
  const seen = new Map<string, A.Property>();
  const values = new ValueChecker(ctx);
  for (const member of body.members) {
    if (member.kind !== 'Property') continue;
    const key = propertyKey(member);
    const first = seen.get(key);
    if (first) {
      ctx.accept('error', 'duplicate-property', `'${key}' is already set in this body`, member.path[0].range, {
        related: [{ file: ctx.unit.path, range: first.range, message: 'first set here' }],
        fixes: [removeMemberFix(ctx.unit, member, `Remove this '${key}'`)],
      });
      continue;
    }
    seen.set(key, member);
    if (params === 'any') continue;
    if (member.path.length > 1) {
      ctx.accept('error', 'unknown-property', `dotted property paths are only for sweeps; write '${member.path[0].text}: ...' or use a block`, member.path[1].range);
      continue;
    }
    const param = params.find((p) => p.name === key);
    if (!param && blocks.some((b) => b.name === key)) {
      ctx.accept('error', 'unknown-property', `'${key}' is a block of ${label}: write it without the colon, \`${key} { ... }\``, member.path[0].range);
      continue;
    }
    if (!param) {
      reportUnknownProperty(ctx, member, params.map((p) => p.name), label);
      continue;
    }
    values.check(member.value, param.type, key, scope);
  }
}

function reportUnknownProperty(ctx: CheckContext, member: A.Property, valid: string[], label: string): void {
  const key = propertyKey(member);
  const { close, hint } = suggestProperty(key, valid);
  const fixes: Fix[] = close.map((c) => ({ title: `Change to '${c}'`, edits: [{ range: member.path[0].range, newText: c }] }));
  fixes.push(removeMemberFix(ctx.unit, member, `Remove '${key}'`));
  ctx.accept('error', 'unknown-property', `${label} has no property '${key}'${validList(hint, 'properties', valid)}`, member.path[0].range, { fixes });
}

/** The names an unknown property may mean, and the "; did you mean ...?" that says so. */
export function suggestProperty(key: string, valid: string[]): { close: string[]; hint: string } {
  // A name from SB3/CleanRL/TRL first: edit distance does not find ent_coef -> entropy_coef.
  const known = knownName(key, valid);
  if (!known) {
    const close = closestNames(key, valid);
    return { close, hint: didYouMean(key, close) };
  }
  return { close: [known.rlx], hint: `; did you mean '${known.rlx}'? (${known.from} ${key} is rlx's ${known.rlx}${known.note ? `: ${known.note}` : ''})` };
}

function checkBlock(ctx: CheckContext, block: A.Block, schema: MemberSchema, scope: ValueScope, symbol: DeclSymbol): void {
  const spec = schema.blocks.find((b) => b.name === block.name.text);
  if (!spec) {
    const valid = schema.blocks.map((b) => b.name);
    ctx.accept('error', 'unknown-property',
      `${schema.label} has no block '${block.name.text}'${validList(didYouMean(block.name.text, valid), 'blocks', valid)}`,
      block.name.range, { fixes: [removeMemberFix(ctx.unit, block, `Remove block '${block.name.text}'`)] });
    return;
  }
  checkProperties(ctx, block.body, [...spec.params, ...otherKeys(spec, block.body)], `${block.name.text} { }`, scope);
  for (const inner of block.body.members) {
    if (inner.kind !== 'Property') {
      ctx.accept('error', 'unknown-property', `${block.name.text} { } holds properties only`, inner.kind === 'Block' ? inner.name.range : inner.keywordRange);
    }
  }
  // Required members of the block, counting those inherited from bases.
  const merged = ctx.model.effective(symbol).blocks.get(spec.name);
  const missing = spec.params.filter((p) => p.required && !merged?.has(p.name));
  if (missing.length > 0) {
    ctx.accept('error', 'missing-property', `${block.name.text} { } needs ${missing.map((m) => `'${m.name}'`).join(' and ')}`, block.name.range,
      block.body.closed ? { fixes: [insertPropertiesFix(ctx.unit.text, block.body, missing.map((m) => `${m.name}: ${placeholder(m)}`))] } : undefined);
  }
}

/** The keys of a block that takes any (`chat { enable_thinking: false }`), as parameters of its `otherKeys` type. */
function otherKeys(spec: BlockSpec, body: A.Body): ParamSpec[] {
  const other = spec.otherKeys;
  if (!other) return [];
  return body.members.flatMap((m) => (m.kind === 'Property' && m.path.length === 1 && !spec.params.some((p) => p.name === m.path[0].text)
    ? [{ name: m.path[0].text, type: other.type, doc: other.doc }] : []));
}

function checkNamed(ctx: CheckContext, member: A.NamedMember, schema: MemberSchema, scope: ValueScope): void {
  if (schema.named !== member.memberKind) {
    const where = member.memberKind === 'term' ? 'reward declarations' : 'experiments';
    const label = schema.label === 'experiment' ? 'an experiment' : schema.label === 'reward' || schema.label === 'sweep' ? `a ${schema.label}` : schema.label;
    ctx.accept('error', 'unknown-property', `'${member.memberKind}' members belong in ${where}, not in ${label}`, member.keywordRange);
    return;
  }
  if (member.memberKind === 'term') {
    if (member.base) {
      ctx.accept('error', 'type-mismatch', 'a term is an expression, such as `term alive = 1.0`', member.base.range);
    } else if (member.value) {
      checkRewardTerm(ctx, member.value, undefined, ctx.accept);
    }
    return;
  }
  // stage NAME = Algorithm { budget: ..., algorithm parameters }
  if (!member.base) {
    ctx.accept('error', 'type-mismatch', 'a stage names an algorithm with a body, such as `stage main = PPO { budget: 100k }`', member.value?.range ?? member.keywordRange);
    return;
  }
  const baseName = member.base.name.parts[0];
  const target = ctx.model.resolve(ctx.unit, baseName);
  if (!target) {
    const close = ctx.model.nameIndex(ctx.unit, 'algorithm', builtinsOfKind('algorithm').map((b) => b.name)).closest(baseName.text);
    ctx.accept('error', 'unknown-name', `unknown algorithm '${baseName.text}'${didYouMean(baseName.text, close)}`, baseName.range,
      { fixes: close.map((c) => ({ title: `Change to '${c}'`, edits: [{ range: baseName.range, newText: c }] })) });
    return;
  }
  const kind = target.kind === 'decl' ? target.symbol.decl.declKind : target.spec.declKind;
  if (kind !== 'algorithm') {
    ctx.accept('error', 'wrong-kind', `'${baseName.text}' is ${kind === 'env' || kind === 'experiment' ? 'an' : 'a'} ${kind}, but a stage needs an algorithm`, baseName.range);
    return;
  }
  const spec = target.kind === 'builtin' ? algorithmSpec(target.spec.name) : ctx.model.rootBuiltin(target.symbol);
  if (spec?.declKind !== 'algorithm') return;
  // The trainer needs a length for every stage: its budget, or the algorithm's own (SFT's `updates`).
  const hasBudget = member.body?.members.some((m) => m.kind === 'Property' && propertyKey(m) === 'budget');
  if (!hasBudget && spec.lengthParam === undefined && member.name) {
    const stageName = member.name.text;
    ctx.accept('error', 'missing-property', `stage ${stageName} needs a 'budget': ${spec.name} has no length of its own (the budget counts environment steps, or on a text task the completions sampled), e.g. \`stage ${stageName} = ${baseName.text} { budget: 50k }\``,
      member.name.range, member.body?.closed ? { fixes: [insertPropertiesFix(ctx.unit.text, member.body, ['budget: 50k'])] } : undefined);
  }
  if (!member.body) return;
  checkProperties(ctx, member.body, [...DECLARATION_SCHEMAS.stage.params, ...spec.params], `stage ${member.name?.text ?? ''} (${spec.name})`, scope);
}

/** A value to insert for a required property in a quick fix: its default, or a typed placeholder. */
export function placeholder(param: ParamSpec): string {
  if (param.default !== undefined && typeof param.default !== 'object') return String(param.default);
  switch (param.type.kind) {
    case 'number': return param.type.integer ? '1' : '0';
    case 'bool': return 'false';
    case 'string': return '""';
    case 'list': return '[]';
    case 'condition': return 'eval.mean_return >= 0';
    case 'path': return 'env.max_steps';
    default: return param.name.toUpperCase();
  }
}

/** Inserts lines before a body's closing brace, indented like the body's members. */
export function insertPropertiesFix(text: string, body: A.Body, lines: string[]): Fix {
  const closeAt = body.closed ? body.range.end - 1 : body.range.end;
  const lineStart = text.lastIndexOf('\n', body.range.start) + 1;
  const outer = /^[ \t]*/.exec(text.slice(lineStart))![0];
  const inner = outer + '  ';
  const before = text.slice(body.range.start + 1, closeAt);
  const singleLine = !before.includes('\n');
  if (singleLine) {
    const trimmedBefore = before.trim().replace(/,$/, '');
    const joined = [trimmedBefore, ...lines].filter((l) => l.length > 0).join(', ');
    return { title: `Add ${lines.map((l) => l.split(':')[0]).join(', ')}`, edits: [{ range: { start: body.range.start, end: body.closed ? body.range.end : closeAt }, newText: `{ ${joined} }` }] };
  }
  // Insert after the last non-blank character before the brace, each line indented.
  let at = closeAt;
  while (at > body.range.start + 1 && /\s/.test(text[at - 1])) at--;
  return { title: `Add ${lines.map((l) => l.split(':')[0]).join(', ')}`, edits: [{ range: { start: at, end: at }, newText: lines.map((l) => `\n${inner}${l}`).join('') }] };
}
