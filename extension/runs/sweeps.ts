// Which runs of an experiment belong to a sweep, and what each member varies: read from the
// run's plan.json (its `sweep` field), which never changes once written, so it is read once per
// run directory. Pure apart from that read; the Runs view groups with it.
import type { Plan } from '../../dsl/compile/plan.js';
import { readPlan, type RunInfo } from '../../runtime/run/reader.js';
import { sweepValuesLabel } from '../../webview/compare/hparams.js';

export interface SweepMembership {
  /** The sweep's name in the .rlx file. */
  sweep: string;
  /** The member's combination index (members of one combination differ in their seed). */
  index: number;
  /** The values it varies, as people write them (`lr=3e-4`); empty when only seeds vary. */
  label: string;
}

const memberships = new Map<string, SweepMembership | null>();

/** A run's sweep and varied values; undefined for a run of a plain experiment (or without a readable plan yet). */
export function membershipOf(run: RunInfo, read: (dir: string) => Pick<Plan, 'sweep'> | undefined = readPlan): SweepMembership | undefined {
  const known = memberships.get(run.dir);
  if (known !== undefined) return known ?? undefined;
  const plan = read(run.dir);
  if (plan === undefined) return undefined; // plan.json not there yet: ask again on the next refresh
  const membership = plan.sweep ? { sweep: plan.sweep.name, index: plan.sweep.index, label: sweepValuesLabel(plan.sweep.values) } : null;
  memberships.set(run.dir, membership);
  return membership ?? undefined;
}

export interface ExperimentRuns {
  /** Each sweep's runs, by sweep name, members in their order (combination, then seed). */
  sweeps: { name: string; runs: RunInfo[] }[];
  /** The runs that belong to no sweep, in the order given. */
  single: RunInfo[];
}

export function groupBySweep(runs: readonly RunInfo[], membership: (run: RunInfo) => SweepMembership | undefined = (run) => membershipOf(run)): ExperimentRuns {
  const sweeps = new Map<string, { run: RunInfo; index: number }[]>();
  const single: RunInfo[] = [];
  for (const run of runs) {
    const member = membership(run);
    if (!member) {
      single.push(run);
      continue;
    }
    const list = sweeps.get(member.sweep) ?? [];
    list.push({ run, index: member.index });
    sweeps.set(member.sweep, list);
  }
  return {
    sweeps: [...sweeps.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, members]) => ({ name, runs: members.sort((a, b) => a.index - b.index || (a.run.status?.seed ?? 0) - (b.run.status?.seed ?? 0)).map((m) => m.run) })),
    single,
  };
}
