// A sweep's body: its own settings, and lists of values for paths into the experiment it varies
// (`algorithm.learning_rate: [1e-4, 3e-4]`), each value checked as if written in that place.
import { closestNames, didYouMean, validList } from '../diagnostics.js';
import { DECLARATION_SCHEMAS, type BlockSpec, type ParamSpec, type ValueType } from '../schema/index.js';
import type * as A from '../syntax/ast.js';
import type { DeclSymbol } from '../semantics/model.js';
import { propertyKey, pythonEnvLabel, pythonEnvRoot } from '../semantics/model.js';
import { GYMNASIUM_ENV_PARAMS } from '../schema/python-env.js';
import { literal } from '../schema/build.js';
import type { CheckContext } from './context.js';
import { checkProperties, removeMemberFix, suggestProperty } from './members.js';
import { ValueChecker } from './values.js';
import { SWEEP_MEMBERS_MAX, SWEEP_MEMBERS_WARN, sweepMemberCount } from '../../shared/sweep-limits.js';

const SWEEP = DECLARATION_SCHEMAS.sweep;
const EXPERIMENT = DECLARATION_SCHEMAS.experiment;
const PARTS = ['env', 'policy', 'algorithm'] as const;

export function checkSweep(ctx: CheckContext, symbol: DeclSymbol): void {
  const body = symbol.decl.body;
  if (!body) return;
  const own = new Set(SWEEP.params.map((p) => p.name));
  // The sweep's own settings, through the ordinary property check.
  const ownMembers: A.Member[] = body.members.filter((m) => m.kind === 'Property' && own.has(propertyKey(m)));
  checkProperties(ctx, { ...body, members: ownMembers }, SWEEP.params, 'sweep', { owner: symbol });
  const overName = symbol.decl.over?.parts[0];
  const target = overName ? ctx.model.lookup(ctx.unit, overName.text) : undefined;
  const experiment = target?.kind === 'decl' && target.symbol.decl.declKind === 'experiment' ? target.symbol : undefined;
  const values = new ValueChecker(ctx);
  const swept = new Map<string, A.Property>();
  for (const member of body.members) {
    if (member.kind === 'Block') {
      const spec = SWEEP.blocks.find((b) => b.name === member.name.text);
      if (spec) {
        checkProperties(ctx, member.body, spec.params, `${spec.name} { }`, { owner: symbol });
        if (spec.name === 'slurm') checkSlurmLines(ctx, member.body);
      } else ctx.accept('error', 'unknown-property', `a sweep has no block '${member.name.text}'; valid blocks: ${SWEEP.blocks.map((b) => b.name).join(', ')}`, member.name.range);
      continue;
    }
    if (member.kind === 'Named') {
      ctx.accept('error', 'unknown-property', `'${member.memberKind}' members do not belong in a sweep`, member.keywordRange);
      continue;
    }
    if (own.has(propertyKey(member))) continue;
    const first = swept.get(propertyKey(member));
    if (first) {
      ctx.accept('error', 'duplicate-property', `'${propertyKey(member)}' is already swept in this sweep`, member.path[0].range, {
        related: [{ file: ctx.unit.path, range: first.range, message: 'first set here' }],
        fixes: [removeMemberFix(ctx.unit, member, `Remove this '${propertyKey(member)}'`)],
      });
      continue;
    }
    swept.set(propertyKey(member), member);
    const param = experiment ? sweptParam(ctx, experiment, member) : undefined;
    if (!param) continue;
    if (member.value?.kind !== 'List') {
      ctx.accept('error', 'type-mismatch', `a swept property takes a list of values, like ${propertyKey(member)}: [a, b, c]`, member.value?.range ?? member.range);
      continue;
    }
    if (member.value.items.length === 0) ctx.accept('error', 'type-mismatch', 'a swept property needs at least one value', member.value.range);
    for (const item of member.value.items) values.check(item, param.type, propertyKey(member), { owner: symbol, experiment });
  }
  checkMemberCount(ctx, symbol);
}

/** What ends a line of a script, or its text (NUL). */
const LINE_BREAK = /[\r\n\0]/;

/**
 * Every string of `slurm { }` becomes part of one line of the job script (`#SBATCH
 * --partition=gpu`), which bash also reads: a line break would end the #SBATCH line and run the
 * rest as a command in every array task, so one is refused where it is written (`\n` is the
 * escape that makes one; NUL and CR are refused with it, as `rlx sweep` refuses them again).
 */
function checkSlurmLines(ctx: CheckContext, body: A.Body): void {
  for (const member of body.members) {
    if (member.kind !== 'Property' || !member.value) continue;
    const strings = member.value.kind === 'List' ? member.value.items : [member.value];
    for (const item of strings) {
      if (item.kind !== 'String' || !LINE_BREAK.test(item.value)) continue;
      ctx.accept('error', 'type-mismatch',
        `slurm.${propertyKey(member)} is written into one line of the Slurm job script: it cannot hold a line break or a NUL character${member.value.kind === 'List' ? '; write one sbatch option per string' : ''}`,
        item.range);
    }
  }
}

/**
 * Members are counted, never listed: the product of the list lengths (or the random samples).
 * A sweep with more than a trainer could ever run is an error at its name, before `rlx plan`,
 * `rlx train` or the editor try to make its plans.
 */
function checkMemberCount(ctx: CheckContext, symbol: DeclSymbol): void {
  const members = symbol.decl.body?.members ?? [];
  const own = new Set(SWEEP.params.map((p) => p.name));
  const lengths = members.flatMap((m) => (m.kind === 'Property' && !own.has(propertyKey(m)) && m.value?.kind === 'List' ? [m.value.items.length] : []));
  const count = sweepMemberCount(lengths, randomSamples(members));
  const at = symbol.decl.name?.range ?? symbol.decl.keywordRange;
  const what = `sweep ${symbol.name} has ${count.toLocaleString('en-US')} members (${lengths.join(' x ')}${lengths.length === 1 ? ' values' : ' combinations'})`;
  if (count > SWEEP_MEMBERS_MAX) {
    ctx.accept('error', 'out-of-range', `${what}; at most ${SWEEP_MEMBERS_MAX.toLocaleString('en-US')} are allowed: sweep fewer values, or draw some with strategy: random(samples: N)`, at);
  } else if (count > SWEEP_MEMBERS_WARN) {
    ctx.accept('warning', 'suspicious-value', `${what}: each is a training run; is that meant? strategy: random(samples: N) draws fewer`, at);
  }
}

/** `strategy: random(samples: N)` (or bare `random`, with its default): N; undefined for a grid. */
function randomSamples(members: A.Member[]): number | undefined {
  const strategy = members.find((m): m is A.Property => m.kind === 'Property' && propertyKey(m) === 'strategy')?.value;
  const name = strategy?.kind === 'Name' ? strategy.parts[0]?.text : strategy?.kind === 'Call' ? strategy.callee.parts[0]?.text : undefined;
  if (name !== 'random') return undefined;
  const strategyType = SWEEP.params.find((p) => p.name === 'strategy')!.type;
  const samplesParam = strategyType.kind === 'choice' ? strategyType.options.find((o) => o.name === 'random')?.params?.[0] : undefined;
  const given = strategy?.kind === 'Call' ? strategy.args.find((a) => !a.name || a.name.text === 'samples')?.value : undefined;
  if (given?.kind === 'Number') return given.value;
  return typeof samplesParam?.default === 'number' ? samplesParam.default : undefined;
}

/** The parameter a sweep path points to, reporting an unknown path; undefined when unknown. */
function sweptParam(ctx: CheckContext, experiment: DeclSymbol, member: A.Property): { type: ValueType } | undefined {
  const [head, ...rest] = member.path;
  const unknown = (at: A.Identifier, valid: string[], what: string) => {
    const { close, hint } = suggestProperty(at.text, valid);
    ctx.accept('error', 'unknown-property', `${what} has no '${at.text}'${validList(hint, 'paths', valid)}`, at.range,
      { fixes: close.map((c) => ({ title: `Change to '${c}'`, edits: [{ range: at.range, newText: c }] })) });
    return undefined;
  };
  if (rest.length === 0) {
    const param = EXPERIMENT.params.find((p) => p.name === head.text);
    if (param) return param;
    // `seeds` is both a sweep setting and an experiment property: list it once.
    const valid = [...new Set([...SWEEP.params.map((p) => p.name), ...EXPERIMENT.params.map((p) => p.name), ...PARTS.map((p) => `${p}.NAME`)])];
    return unknown(head, valid, `sweep over ${experiment.name}`);
  }
  const block: BlockSpec | undefined = EXPERIMENT.blocks.find((b) => b.name === head.text);
  let params: ParamSpec[] | undefined;
  let what: string;
  if (block) {
    params = block.params;
    what = `${head.text} { }`;
  } else if ((PARTS as readonly string[]).includes(head.text)) {
    const target = ctx.model.referencedTarget(experiment, head.text);
    const python = head.text === 'env' && target?.kind === 'decl' ? pythonEnvRoot(ctx.model.effective(target.symbol).root) : undefined;
    if (python) {
      // A Python env's settings, and its keyword arguments as env.kwargs.NAME (any name: the env decides).
      if (rest[0]!.text === 'kwargs' && rest.length === 2) return { type: literal };
      if (rest[0]!.text !== 'kwargs' && rest.length === 1 && !GYMNASIUM_ENV_PARAMS.some((p) => p.name === rest[0]!.text)) {
        return unknown(rest[0]!, [...GYMNASIUM_ENV_PARAMS.map((p) => p.name), 'kwargs.NAME'], `env (${pythonEnvLabel(python)})`);
      }
    }
    const spec = target && (target.kind === 'builtin' ? target.spec : ctx.model.rootBuiltin(target.symbol));
    if (!spec && !python) return undefined; // user code or an unresolved name: nothing to check against
    params = spec ? spec.params : GYMNASIUM_ENV_PARAMS;
    what = spec ? `${head.text} (${spec.name})` : `env (${pythonEnvLabel(python!)})`;
  } else {
    return unknown(head, [...PARTS, ...EXPERIMENT.blocks.map((b) => b.name)], `sweep path of ${experiment.name}`);
  }
  if (rest.length > 1) {
    ctx.accept('error', 'unknown-property', `'${propertyKey(member)}' is too deep: a sweep path has two parts, like algorithm.learning_rate${what.startsWith('env (') ? ', or env.kwargs.NAME for a Python env\'s keyword argument' : ''}`, rest[1].range);
    return undefined;
  }
  const param = params.find((p) => p.name === rest[0].text);
  return param ?? unknown(rest[0], params.map((p) => p.name), what);
}
