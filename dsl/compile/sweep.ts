// A sweep compiles to one plan per combination of its listed values: the experiment's plan with
// each swept path replaced. Random strategies draw combinations with a fixed-seed generator, so
// the same sweep always yields the same plans.
import { GYMNASIUM_ENV_KIND, GYMNASIUM_ENV_PARAMS } from '../schema/python-env.js';
import { builtin, DECLARATION_SCHEMAS, type ParamSpec, type PlanValue } from '../schema/index.js';
import type * as A from '../syntax/ast.js';
import { NUMERIC_LEARNER_PARAMS, TEXT_LEARNER_PARAMS } from '../schema/learner-module.js';
import { propertyKey, type DeclSymbol } from '../semantics/model.js';
import type { Plan } from './plan.js';
import { Plans } from './plans.js';
import type { PlanCompiler } from './compiler.js';
import { paramValue, toPlanExpr, untypedValue } from './values.js';
import { sweepMemberCount } from '../../shared/sweep-limits.js';

const SWEEP = DECLARATION_SCHEMAS.sweep;
const EXPERIMENT = DECLARATION_SCHEMAS.experiment;

interface Axis {
  path: string;
  values: A.Expression[];
}

export function expandSweep(compiler: PlanCompiler, sweep: DeclSymbol): Plans {
  const { model } = compiler;
  const experiment = model.lookup(sweep.unit, sweep.decl.over!.parts[0].text);
  if (experiment?.kind !== 'decl') return Plans.of([]);
  const base = compiler.experiment(experiment.symbol);
  const own = new Map<string, A.Expression | undefined>();
  const axes: Axis[] = [];
  const slurm = new Map<string, A.Expression | undefined>();
  for (const member of sweep.decl.body?.members ?? []) {
    if (member.kind === 'Block' && member.name.text === 'slurm') {
      for (const m of member.body.members) if (m.kind === 'Property') slurm.set(propertyKey(m), m.value);
    }
    if (member.kind !== 'Property') continue;
    const key = propertyKey(member);
    if (SWEEP.params.some((p) => p.name === key)) own.set(key, member.value);
    else if (member.value?.kind === 'List') axes.push({ path: key, values: member.value.items });
  }
  const setting = (name: string) => paramValue(SWEEP.params.find((p) => p.name === name)!, own.get(name));
  const strategy = setting('strategy');
  const combination = typeof strategy === 'object' && strategy !== null && !Array.isArray(strategy) && strategy.kind === 'random'
    ? randomCombinations(axes, strategy.samples as number, sweep.name)
    : gridCombinations(axes);
  const seeds = setting('seeds');
  const slurmBlock = SWEEP.blocks.find((b) => b.name === 'slurm')!;
  const slurmSettings = setting('backend') === 'slurm'
    ? Object.fromEntries(slurmBlock.params.map((p) => [p.name, paramValue(p, slurm.get(p.name))]))
    : null;

  const build = (index: number, valueIndexes: readonly number[]): Plan => {
    const plan: Plan = structuredClone(base);
    const values: Record<string, PlanValue> = {};
    valueIndexes.forEach((valueIndex, axisIndex) => {
      const axis = axes[axisIndex];
      const value = axis.values[valueIndex];
      values[axis.path] = applyReference(compiler, sweep, plan, axis.path, value) ?? applyPath(plan, axis.path, value);
    });
    if (Array.isArray(seeds)) plan.seeds = seeds as number[];
    plan.sweep = {
      name: sweep.name,
      index,
      count: combination.count,
      values,
      parallel: setting('parallel') as number,
      backend: setting('backend') as string,
      slurm: slurmSettings,
    };
    return plan;
  };
  // Each value of each axis once, the other axes at their first value (index: the member that has it in a grid).
  const variants = (): Plan[] =>
    axes.flatMap((axis, a) => axis.values.map((_, v) => build(0, axes.map((_, b) => (b === a ? v : 0)))));
  return new Plans(combination.count, (index) => build(index, combination.at(index)), variants);
}

/** The members' value indexes (one per axis), by member index, without listing them all. */
interface Combinations {
  count: number;
  at(index: number): number[];
}

/** The experiment's references a sweep may vary by naming other declarations. */
const REFERENCES = ['env', 'policy', 'algorithm', 'reward'] as const;

/**
 * Sets a swept reference (`env: [Pole, Mine]`): the plan gets the named declaration compiled as
 * the experiment's own would be. Returns the name, as the member's value; undefined for a path
 * that is not a reference (applyPath sets those).
 */
function applyReference(compiler: PlanCompiler, sweep: DeclSymbol, plan: Plan, key: string, expr: A.Expression): PlanValue | undefined {
  const property = REFERENCES.find((r) => r === key);
  if (!property || expr.kind !== 'Name' || expr.parts.length !== 1) return undefined;
  const target = compiler.model.lookup(sweep.unit, expr.parts[0].text);
  if (!target) return undefined;
  const compiled = compiler.referenced(property, target);
  if (property === 'algorithm') plan.stages[0].algorithm = compiled as Plan['stages'][number]['algorithm'];
  else (plan as unknown as Record<string, unknown>)[property] = compiled;
  return expr.parts[0].text;
}

/** Sets one swept value in a plan; returns the value as written into it. */
function applyPath(plan: Plan, key: string, expr: A.Expression): PlanValue {
  const [head, name] = key.split('.');
  if (name === undefined) {
    const param = EXPERIMENT.params.find((p) => p.name === head)!;
    const value = param.type.kind === 'condition' ? (toPlanExpr(expr) as unknown as PlanValue) : paramValue(param, expr);
    if (head === 'budget') plan.stages[0].budget = value as number;
    else if (head === 'seed') plan.seeds = [value as number];
    else (plan as unknown as Record<string, PlanValue>)[head] = value;
    return value;
  }
  // A user module's params have no schema here: its values go in as written, as the env's own do (compiler.ts).
  if (head === 'env' && plan.env.kind === 'module') return (plan.env.params[name] = untypedValue(expr));
  // A learner module's own settings were checked against its spec (their values are plain); rlx's take their types.
  const learner = plan.stages[0].algorithm;
  if (head === 'algorithm' && learner.kind === 'module') {
    // The module's kind is not known here; rlx's names of the two kinds do not clash in type.
    const own = [...TEXT_LEARNER_PARAMS, ...NUMERIC_LEARNER_PARAMS].find((p) => p.name === name);
    return (learner.params[name] = own ? paramValue(own, expr) : untypedValue(expr));
  }
  // A Python env's keyword argument (env.kwargs.NAME): a new kwargs object, so that members never share one.
  if (head === 'env' && plan.env.kind === GYMNASIUM_ENV_KIND && name === 'kwargs') {
    const value = untypedValue(expr);
    const kwargs = plan.env.params.kwargs;
    plan.env.params.kwargs = { ...(kwargs && typeof kwargs === 'object' && !Array.isArray(kwargs) ? kwargs : {}), [key.split('.')[2]!]: value };
    return value;
  }
  const fromSpec = (kind: string) => builtin(kind)?.params.find((p) => p.name === name);
  let param: ParamSpec | undefined;
  let target: Record<string, PlanValue> | undefined;
  if (head === 'env') [param, target] = [plan.env.kind === GYMNASIUM_ENV_KIND ? GYMNASIUM_ENV_PARAMS.find((p) => p.name === name) : fromSpec(plan.env.kind), plan.env.params];
  else if (head === 'policy') [param, target] = [fromSpec(plan.policy.kind), plan.policy.params];
  else if (head === 'algorithm') [param, target] = [fromSpec(plan.stages[0].algorithm.kind), plan.stages[0].algorithm.params];
  else {
    const block = EXPERIMENT.blocks.find((b) => b.name === head);
    param = block?.params.find((p) => p.name === name);
    target = (plan as unknown as Record<string, Record<string, PlanValue> | null>)[head] ?? undefined;
    if (!target && block) {
      target = Object.fromEntries(block.params.map((p) => [p.name, paramValue(p, undefined)]));
      (plan as unknown as Record<string, PlanValue>)[head] = target;
    }
  }
  if (!param || !target) return null;
  const value = param.type.kind === 'condition' ? (toPlanExpr(expr) as unknown as PlanValue) : paramValue(param, expr);
  target[name] = value;
  return value;
}

/** Every combination, the last axis varying fastest: member i is i written in the axes' mixed radix. */
function gridCombinations(axes: Axis[]): Combinations {
  return {
    count: sweepMemberCount(axes.map((a) => a.values.length), undefined),
    at(index) {
      const combo = new Array<number>(axes.length);
      let rest = index;
      for (let a = axes.length - 1; a >= 0; a--) {
        const k = axes[a].values.length;
        combo[a] = rest % k;
        rest = Math.floor(rest / k);
      }
      return combo;
    },
  };
}

/**
 * `samples` distinct combinations drawn with a generator seeded by the sweep's name, so the same
 * sweep always yields the same members. Drawn in order up to the highest member asked for, and
 * kept as one row of axis indexes each (samples are at most 1e6 by the registry).
 */
function randomCombinations(axes: Axis[], samples: number, seedText: string): Combinations {
  const lengths = axes.map((a) => a.values.length);
  const count = sweepMemberCount(lengths, samples);
  const random = mulberry32(hashString(seedText));
  const seen = new Set<string>();
  const drawn: number[][] = [];
  return {
    count,
    at(index) {
      while (drawn.length <= index) {
        const combo = lengths.map((k) => Math.floor(random() * k));
        const key = combo.join(',');
        if (seen.has(key)) continue;
        seen.add(key);
        drawn.push(combo);
      }
      return drawn[index];
    },
  };
}

function hashString(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
