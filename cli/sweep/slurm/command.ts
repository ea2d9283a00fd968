// What `rlx sweep` says and does for `backend: slurm`: submit, --status, --cancel. The command
// (cli/commands/sweep.ts) parses its arguments and hands a sweep with this backend to here.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { displayPath } from '../../command.js';
import { planFile } from '../../commands/plan.js';
import { SweepMembers } from '../members.js';
import { cancelSlurmSweep, runSlurmSweep, slurmDir, slurmSweepStatus } from './index.js';

export interface SlurmSweepRequest {
  /** The .rlx file, and the sweep in it (chosen already: cli/sweep/members.ts chooseSweep). */
  file: string;
  sweep: string;
  /** The runs folder (`--out`). */
  runsDir: string;
  /** `--parallel N`, over the sweep's own `parallel`. */
  parallel?: number;
}

/** Whether the sweep has a Slurm job on record (then --status and --cancel are Slurm's). */
export function hasSlurmJob(runsDir: string, sweep: string): boolean {
  return fs.existsSync(path.join(slurmDir(runsDir, sweep), 'job.json'));
}

/** The command line that addresses this sweep again, for the hints printed. */
function again(request: SlurmSweepRequest, flag: string): string {
  const parts = ['rlx sweep', displayPath(request.file), '--sweep', request.sweep];
  if (path.resolve(request.runsDir) !== path.resolve('runs')) parts.push('--out', displayPath(request.runsDir));
  return [...parts, flag].join(' ');
}

/** Submits the sweep as one job array; prints the job id and how to follow it. Returns the exit code. */
export function submitSlurmSweep(request: SlurmSweepRequest, out: NodeJS.WritableStream): number {
  const members = new SweepMembers(request.sweep, planFile(request.file, request.sweep));
  const sweep = members.at(0).plan.sweep!;
  const record = runSlurmSweep({
    file: request.file,
    sweep: request.sweep,
    members: members.count,
    parallel: request.parallel ?? sweep.parallel,
    slurm: sweep.slurm,
    runsDir: request.runsDir,
  });
  out.write([
    `sweep ${request.sweep}: ${record.members} member${record.members === 1 ? '' : 's'} submitted as Slurm job ${record.job_id}`,
    `  script:  ${displayPath(record.script)}`,
    `  follow:  ${again(request, '--status')}`,
    `  cancel:  ${again(request, '--cancel')}`,
    '',
  ].join('\n'));
  return 0;
}

/** One line per member (index, state, run directory, why), then the counts. */
export function printSlurmSweepStatus(request: SlurmSweepRequest, out: NodeJS.WritableStream): number {
  const { record, members, summary } = slurmSweepStatus(slurmDir(request.runsDir, request.sweep));
  const width = String(record.members - 1).length;
  const lines = [`sweep ${request.sweep}: Slurm job ${record.job_id}, submitted ${record.submitted}${record.cancelled ? `, cancelled ${record.cancelled}` : ''}`];
  for (const m of members) {
    const where = m.runDir !== undefined ? `  ${displayPath(m.runDir)}` : '';
    lines.push(`${String(m.member).padStart(width)}  ${m.state.padEnd(9)}${where}${m.detail ? `  (${m.detail})` : ''}`.trimEnd());
  }
  lines.push(summary);
  out.write(lines.join('\n') + '\n');
  return 0;
}

/** scancel of the sweep's job, when Slurm still holds some of its tasks. */
export function cancelSlurmSweepCommand(request: SlurmSweepRequest, out: NodeJS.WritableStream): number {
  const { record, queued } = cancelSlurmSweep(slurmDir(request.runsDir, request.sweep));
  out.write(queued === 0
    ? `sweep ${request.sweep}: Slurm job ${record.job_id} has no task left in the queue; nothing to cancel (see ${again(request, '--status')})\n`
    : `sweep ${request.sweep}: cancelled Slurm job ${record.job_id} (${queued} task${queued === 1 ? '' : 's'}); running members stop after their current update (stopped, resumable with rlx train --resume RUN_DIR); see ${again(request, '--status')}\n`);
  return 0;
}
