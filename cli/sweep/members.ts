// The members of a sweep, one training run each: every combination of the swept values times
// every seed, numbered from 0 with the seed varying fastest (member k is combination
// floor(k / seeds) with seed seeds[k % seeds]). A member's index depends only on the sweep's own
// lists (its swept values, its seeds, or the experiment's seeds when the sweep names none), so an
// edit elsewhere in the file keeps every index, and `--member K` on a Slurm array task or after
// `--resume` means the same run. Members are made on demand from the lazy Plans: member 5 of a
// sweep of 10^8 makes one plan.
import * as path from 'node:path';
import { parse, type Plan, type Plans } from '../../dsl/index.js';
import type { PlanValue } from '../../dsl/schema/types.js';
import { readSourceFile, UserError } from '../files.js';

export interface SweepMember {
  /** 0-based, as `--member` takes it. */
  index: number;
  /** The combination's plan (its `sweep.index` is the combination, not the member). */
  plan: Plan;
  seed: number;
  /** The swept paths and this member's value of each. */
  values: Record<string, PlanValue>;
}

export class SweepMembers implements Iterable<SweepMember> {
  readonly count: number;
  private readonly seedsPerPlan: number;

  constructor(readonly name: string, private readonly plans: Plans) {
    // Every plan of a sweep has as many seeds: the sweep's `seeds`, the experiment's, or one swept `seed`.
    this.seedsPerPlan = plans.count === 0 ? 0 : plans.at(0).seeds.length;
    this.count = plans.count * this.seedsPerPlan;
  }

  /** Member `index`; a UserError saying how many there are when it is out of range. */
  at(index: number): SweepMember {
    if (!Number.isSafeInteger(index) || index < 0 || index >= this.count) {
      throw new UserError(`sweep ${this.name} has ${this.count.toLocaleString('en-US')} member${this.count === 1 ? '' : 's'} (0 to ${this.count - 1}); there is no member ${index}`);
    }
    const plan = this.plans.at(Math.floor(index / this.seedsPerPlan));
    if (plan.seeds.length !== this.seedsPerPlan) throw new Error(`sweep ${this.name}: combination ${plan.sweep?.index} has ${plan.seeds.length} seeds, the first has ${this.seedsPerPlan}`);
    return { index, plan, seed: plan.seeds[index % this.seedsPerPlan], values: plan.sweep?.values ?? {} };
  }

  *[Symbol.iterator](): Iterator<SweepMember> {
    for (let i = 0; i < this.count; i++) yield this.at(i);
  }
}

/** `algorithm.learning_rate=0.001 seed=2`: what sets a member apart, as `--list-members` prints it. */
export function describeMember(member: SweepMember): string {
  const values = Object.entries(member.values).map(([key, value]) => `${key}=${formatValue(value)}`);
  // A swept `seed` is already among the values.
  if (!('seed' in member.values)) values.push(`seed=${member.seed}`);
  return values.join(' ');
}

/** As written in a spec where the plan allows: `0.001`, `linear(from: 0.001, to: 0)`, `future(k: 4)`. */
function formatValue(value: PlanValue): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return JSON.stringify(value);
  const { schedule, kind, ...args } = value;
  if (schedule === 'constant' && 'value' in args) return formatValue(args.value);
  const callee = typeof schedule === 'string' ? schedule : typeof kind === 'string' ? kind : undefined;
  if (callee === undefined) return JSON.stringify(value);
  return `${callee}(${Object.entries(args).map(([k, v]) => `${k}: ${formatValue(v)}`).join(', ')})`;
}

/**
 * The sweep a command addresses: `name` when given (it must be a sweep of the file), else the
 * file's only sweep. Read from the syntax alone (parsing never fails); the compiler reports the
 * file's errors afterwards. `purpose` opens the refusal of a file without sweeps ("rlx sweep runs
 * the members of a sweep").
 */
export function chooseSweep(file: string, name: string | undefined, purpose = '--member and --list-members pick a member of a sweep'): string {
  const declarations = parse(readSourceFile(file)).file.declarations;
  const named = (kind: string) => declarations.filter((d) => d.declKind === kind && d.name).map((d) => d.name!.text);
  const sweeps = named('sweep');
  const base = path.basename(file);
  if (name !== undefined) {
    if (sweeps.includes(name)) return name;
    if (named('experiment').includes(name)) throw new UserError(`${name} is an experiment, not a sweep: ${purpose}${sweeps.length > 0 ? ` (${base} has: ${sweeps.join(', ')})` : ''}; train an experiment's seed with rlx train --seed N`);
    throw new UserError(sweeps.length > 0 ? `${base} has no sweep '${name}'; its sweeps: ${sweeps.join(', ')}` : `${base} declares no sweep (looking for '${name}')`);
  }
  if (sweeps.length === 1) return sweeps[0];
  if (sweeps.length === 0) {
    const experiments = named('experiment');
    throw new UserError(`${purpose}, and ${base} declares none${experiments.length > 0 ? ` (its experiments: ${experiments.join(', ')}; train one's seed with --seed N)` : ''}`);
  }
  throw new UserError(`${base} has ${sweeps.length} sweeps (${sweeps.join(', ')}); choose one with --sweep NAME`);
}

/** Whether the sweep states `parallel:` itself (the plan holds the registry's default otherwise). */
export function statesParallel(file: string, sweep: string): boolean {
  const declaration = parse(readSourceFile(file)).file.declarations.find((d) => d.declKind === 'sweep' && d.name?.text === sweep);
  return (declaration?.body?.members ?? []).some((m) => m.kind === 'Property' && m.path.map((p) => p.text).join('.') === 'parallel');
}
