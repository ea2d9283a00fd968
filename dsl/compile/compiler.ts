// Compiles an experiment (or a sweep: each of its members) into plans. Refuses while the files
// have errors: a plan is only ever made from a spec that checks.
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { DECLARATION_SCHEMAS, fileTypeOf, LANGUAGE_VERSION, type ParamSpec, type PlanValue } from '../schema/index.js';
import type * as A from '../syntax/ast.js';
import type { Diagnostic } from '../diagnostics.js';
import { pythonEnvRoot, pythonTextRoot, writtenPath, type DeclSymbol, type Model, type Target } from '../semantics/model.js';
import type { SourceUnit } from '../semantics/workspace.js';
import { PLAN_FORMAT, type Plan, type PlanComponent, type PlanEnv, type PlanPolicy, type PlanReward, type PlanStage } from './plan.js';
import { pretrainedPolicy } from './pretrained.js';
import { GYMNASIUM_ENV_KIND, GYMNASIUM_ENV_PARAMS } from '../schema/python-env.js';
import { PYTHON_TEXT_ENV_KIND, PYTHON_TEXT_ENV_PARAMS } from '../schema/python-text-env.js';
import { paramValue, toPlanExpr, untypedValue } from './values.js';
import { expandSweep } from './sweep.js';
import { Plans } from './plans.js';

/**
 * What the compiler reads of checked sources; the checker's Analysis (check/checker.ts) is one.
 * Named here rather than imported so that compile/ loads nothing of check/: the checks use the
 * compiler's value readers (a pretrained policy's memory estimate reads its settings as the plan
 * will), and the two folders would otherwise import each other (test/architecture.test.ts).
 */
export interface CheckedSources {
  readonly model: Model;
  readonly units: readonly SourceUnit[];
  /** Diagnostics by file: the compiler refuses while any is an error. */
  readonly diagnostics: ReadonlyMap<string, readonly Diagnostic[]>;
}

/** The plans are made on demand (a sweep may have a million members): iterate, or take `first(n)`. */
export type CompileResult = { ok: true; plans: Plans } | { ok: false; error: string };

/** The experiments and sweeps declared in a file, in order: what `--experiment` may name. */
export function runnableNames(analysis: CheckedSources, entry: string): string[] {
  const unit = analysis.model.unitByPath(path.resolve(entry));
  return (unit?.parse.file.declarations ?? [])
    .filter((d) => (d.declKind === 'experiment' || d.declKind === 'sweep') && d.name)
    .map((d) => d.name!.text);
}

/**
 * A path as one shell word: as it is when it has no character the shell reads specially,
 * quoted otherwise. The hint repeats the path as it was given (a base name would name
 * another file, or none, from wherever the user is).
 */
function shellWord(p: string): string {
  return /^[\w./@%+=:,-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

export function compile(analysis: CheckedSources, entry: string, name?: string): CompileResult {
  const entryPath = path.resolve(entry);
  const errors = [...analysis.diagnostics.values()].flat().filter((d) => d.severity === 'error');
  if (errors.length > 0) {
    return { ok: false, error: `${path.basename(entryPath)} has ${errors.length} error${errors.length === 1 ? '' : 's'}; fix ${errors.length === 1 ? 'it' : 'them'} first (rlx check ${shellWord(entry)})` };
  }
  const names = runnableNames(analysis, entryPath);
  if (names.length === 0) return { ok: false, error: `${path.basename(entryPath)} declares no experiment or sweep` };
  const chosen = name ?? (names.length === 1 ? names[0] : undefined);
  if (!chosen) {
    return { ok: false, error: `${path.basename(entryPath)} has ${names.length} experiments and sweeps (${names.join(', ')}); choose one with --experiment NAME` };
  }
  if (!names.includes(chosen)) {
    return { ok: false, error: `${path.basename(entryPath)} has no experiment or sweep '${chosen}'; it has: ${names.join(', ')}` };
  }
  const unit = analysis.model.unitByPath(entryPath)!;
  const symbol = analysis.model.declaredIn(unit).get(chosen)![0];
  const compiler = new PlanCompiler(analysis, entryPath);
  if (symbol.decl.declKind === 'sweep') return { ok: true, plans: expandSweep(compiler, symbol) };
  return { ok: true, plans: Plans.of([compiler.experiment(symbol)]) };
}

export class PlanCompiler {
  readonly model: Model;
  private readonly source: Plan['source'];
  private readonly entryDir: string;

  constructor(analysis: CheckedSources, entryPath: string) {
    this.model = analysis.model;
    this.entryDir = path.dirname(entryPath);
    this.source = sourceInfo(analysis, entryPath);
  }

  experiment(symbol: DeclSymbol): Plan {
    const { model } = this;
    const effective = model.effective(symbol);
    const props = effective.properties;
    const stated = (name: string) => props.get(name)?.node.value;
    const schema = DECLARATION_SCHEMAS.experiment;
    const value = (name: string) => paramValue(schema.params.find((p) => p.name === name)!, stated(name));

    const stages: PlanStage[] = [];
    const staged = [...effective.named.values()].filter((n) => n.node.memberKind === 'stage');
    if (staged.length === 0) {
      stages.push({ name: 'main', algorithm: this.component(model.referencedTarget(symbol, 'algorithm')!), budget: value('budget') as number });
    }
    for (const { node, owner } of staged) stages.push(this.stage(node, owner));

    const seed = value('seed');
    const evalBlock = effective.blocks.get('eval');
    const curriculum = effective.blocks.get('curriculum');
    const blockValue = (block: typeof evalBlock, blockName: string, param: string) =>
      paramValue(schema.blocks.find((b) => b.name === blockName)!.params.find((p) => p.name === param)!, block?.get(param)?.node.value);

    return {
      rlx_plan: PLAN_FORMAT,
      language_version: LANGUAGE_VERSION,
      experiment: symbol.name,
      source: this.source,
      env: this.env(model.referencedTarget(symbol, 'env')!),
      policy: this.policy(model.referencedTarget(symbol, 'policy')!),
      stages,
      reward: this.reward(model.referencedTarget(symbol, 'reward')),
      envs: value('envs') as number,
      seeds: typeof seed === 'number' ? [seed] : (value('seeds') as number[]),
      device: value('device') as string,
      ...(value('precision') !== 'fp32' ? { precision: value('precision') as string } : {}),
      eval: evalBlock ? {
        every: blockValue(evalBlock, 'eval', 'every') as number,
        episodes: blockValue(evalBlock, 'eval', 'episodes') as number,
        deterministic: blockValue(evalBlock, 'eval', 'deterministic') as boolean,
      } : null,
      stop: props.has('stop') ? toPlanExpr(stated('stop')) : null,
      curriculum: curriculum ? {
        param: blockValue(curriculum, 'curriculum', 'param') as string,
        from: blockValue(curriculum, 'curriculum', 'from') as number,
        to: blockValue(curriculum, 'curriculum', 'to') as number,
        step: blockValue(curriculum, 'curriculum', 'step') as number,
        advance: toPlanExpr(curriculum.get('advance')?.node.value),
      } : null,
      sweep: null,
    };
  }

  /** A policy or algorithm: its root built-in's parameters, with the chain's statements applied. */
  component(target: Target, overrides?: { body: A.Body | undefined; unit: SourceUnit }): PlanComponent {
    const spec = target.kind === 'builtin' ? target.spec : this.model.rootBuiltin(target.symbol)!;
    const stated = target.kind === 'decl' ? this.model.effective(target.symbol).properties : undefined;
    const local = new Map<string, A.Expression | undefined>();
    for (const m of overrides?.body?.members ?? []) if (m.kind === 'Property') local.set(m.path[0].text, m.value);
    const params = fillParams(spec, (name) => local.get(name) ?? stated?.get(name)?.node.value);
    // A data file's path is relative to the file that states it (where the checker read it); the plan's to the entry's folder.
    for (const param of spec.params) {
      const unit = local.has(param.name) ? overrides?.unit : stated?.get(param.name)?.owner.unit;
      if (unit && fileTypeOf(param.type, params[param.name])) params[param.name] = this.fromEntry(unit, params[param.name] as string);
    }
    // A learner module (`algorithm X = module("./x.ts")`): its file, as an env module's.
    const effective = target.kind === 'decl' ? this.model.effective(target.symbol) : undefined;
    if (effective?.root.kind === 'module' && target.kind === 'decl') {
      const modulePath = writtenPath(effective, effective.root.path ?? '');
      return { name: target.symbol.name, kind: 'module', module: toPosix(path.relative(this.entryDir, modulePath)), params };
    }
    return { name: target.kind === 'builtin' ? spec.name : target.symbol.name, kind: spec.name, params };
  }

  /**
   * What a swept reference (`env: [Pole, Mine]` in a sweep) puts into a plan, as the
   * experiment's own reference would: the env, policy, algorithm or reward it names.
   */
  referenced(property: 'env' | 'policy' | 'algorithm' | 'reward', target: Target): PlanEnv | PlanComponent | PlanReward | null {
    if (property === 'env') return this.env(target);
    if (property === 'reward') return this.reward(target);
    if (property === 'policy') return this.policy(target);
    return this.component(target);
  }

  /** A policy; a pretrained one carries its model folder and its LoRA and chat settings. */
  private policy(target: Target): PlanPolicy {
    return (target.kind === 'decl' && pretrainedPolicy(this.model, target.symbol)) || this.component(target);
  }

  private env(target: Target): PlanEnv {
    const rootOf = target.kind === 'decl' ? this.model.effective(target.symbol).root : undefined;
    const python = rootOf ? pythonEnvRoot(rootOf) : undefined;
    if (target.kind === 'decl' && python) {
      // gymnasium("Id") or python("./file.py:Class"): the id, or the file (relative to the entry
      // file, as module paths are) and class; the settings of schema/python-env.ts, left-out ones
      // at their defaults; kwargs as written (absent when none).
      const effective = this.model.effective(target.symbol);
      const params: Record<string, PlanValue> = 'gymnasium' in python
        ? { id: String(python.gymnasium) }
        : { file: toPosix(path.relative(this.entryDir, writtenPath(effective, python.path ?? ''))), class: python.python.className };
      for (const spec of GYMNASIUM_ENV_PARAMS) {
        const value = paramValue(spec, effective.properties.get(spec.name)?.node.value);
        if (value !== null) params[spec.name] = value;
      }
      // Object.fromEntries defines each key as the object's own, `__proto__` too (an assignment would set the prototype and drop it).
      const kwargs: Record<string, PlanValue> = Object.fromEntries(
        [...(effective.blocks.get('kwargs') ?? [])].sort(([a], [b]) => a.localeCompare(b)).map(([key, { node }]) => [key, untypedValue(node.value)]),
      );
      if (Object.keys(kwargs).length > 0) params.kwargs = kwargs;
      return { name: target.symbol.name, kind: GYMNASIUM_ENV_KIND, params };
    }
    const text = rootOf ? pythonTextRoot(rootOf) : undefined;
    if (target.kind === 'decl' && text) {
      // python_text("./file.py:Class"): as a python(...) env, with the settings of schema/python-text-env.ts.
      const effective = this.model.effective(target.symbol);
      const params: Record<string, PlanValue> = { file: toPosix(path.relative(this.entryDir, writtenPath(effective, text.path ?? ''))), class: text.pythonText.className };
      for (const spec of PYTHON_TEXT_ENV_PARAMS) {
        const value = paramValue(spec, effective.properties.get(spec.name)?.node.value);
        if (value !== null) params[spec.name] = value;
      }
      const kwargs: Record<string, PlanValue> = Object.fromEntries(
        [...(effective.blocks.get('kwargs') ?? [])].sort(([a], [b]) => a.localeCompare(b)).map(([key, { node }]) => [key, untypedValue(node.value)]),
      );
      if (Object.keys(kwargs).length > 0) params.kwargs = kwargs;
      return { name: target.symbol.name, kind: PYTHON_TEXT_ENV_KIND, params };
    }
    if (target.kind === 'decl' && rootOf?.kind === 'module') {
      const effective = this.model.effective(target.symbol);
      const root = effective.root as { kind: 'module'; path: string | undefined };
      const modulePath = writtenPath(effective, root.path ?? '');
      const params: Record<string, PlanValue> = {};
      for (const [key, { node }] of [...effective.properties].sort(([a], [b]) => a.localeCompare(b))) params[key] = untypedValue(node.value);
      return { name: target.symbol.name, kind: 'module', module: toPosix(path.relative(this.entryDir, modulePath)), params };
    }
    return this.component(target);
  }

  private stage(node: A.NamedMember, owner: DeclSymbol): PlanStage {
    const baseName = node.base!.name.parts[0].text;
    const target = this.model.lookup(owner.unit, baseName)!;
    const algorithm = this.component(target, { body: node.body, unit: owner.unit });
    const budgetStated = node.body?.members.find((m): m is A.Property => m.kind === 'Property' && m.path[0].text === 'budget');
    const budgetParam = DECLARATION_SCHEMAS.stage.params.find((p) => p.name === 'budget')!;
    return { name: node.name!.text, algorithm, budget: paramValue(budgetParam, budgetStated?.value) as number | null };
  }

  /** `written`, a path relative to `unit`'s folder, relative to the entry's instead (as written when the two are one folder). */
  private fromEntry(unit: SourceUnit, written: string): string {
    const dir = path.dirname(unit.path);
    return dir === this.entryDir ? written : toPosix(path.relative(this.entryDir, path.resolve(dir, written)));
  }

    private reward(target: Target | undefined): PlanReward | null {
    if (!target || target.kind !== 'decl') return null;
    const effective = this.model.effective(target.symbol);
    const replace = DECLARATION_SCHEMAS.reward.params.find((p) => p.name === 'replace_env_reward')!;
    return {
      name: target.symbol.name,
      replace_env_reward: paramValue(replace, effective.properties.get('replace_env_reward')?.node.value) as boolean,
      terms: [...effective.named.values()]
        .filter((n) => n.node.memberKind === 'term' && n.node.name)
        .map((n) => ({ name: n.node.name!.text, expr: toPlanExpr(n.node.value) })),
    };
  }
}

export function fillParams(spec: { params: ParamSpec[] }, stated: (name: string) => A.Expression | undefined): Record<string, PlanValue> {
  const out: Record<string, PlanValue> = {};
  for (const param of spec.params) out[param.name] = paramValue(param, stated(param.name));
  return out;
}

function sourceInfo(analysis: CheckedSources, entryPath: string): Plan['source'] {
  const dir = path.dirname(entryPath);
  const files = analysis.units
    .map((u) => ({ rel: toPosix(path.relative(dir, u.path)), text: u.text }))
    .sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  const hash = createHash('sha256');
  for (const f of files) hash.update(f.rel).update('\0').update(f.text).update('\0');
  return { entry: path.basename(entryPath), files: files.map((f) => f.rel), hash: `sha256:${hash.digest('hex')}` };
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

