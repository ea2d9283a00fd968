// What `rlx sweep` says and does for `backend: slurm`: submit, --status, --cancel. The command
// (cli/commands/sweep.ts) parses its arguments and hands a sweep with this backend to here.
import * as path from 'node:path';
import { displayPath } from '../../command.js';
import type { SweepMembers } from '../members.js';
import { readSweepState, sweepDir, writeSweepState } from '../state.js';
import { cancelSlurmSweep, runSlurmSweep, slurmDir, slurmSweepStatus } from './index.js';
import { shellQuote } from './script.js';

export interface SlurmSweepRequest {
  /** The .rlx file, and the sweep in it (chosen already: cli/sweep/members.ts chooseSweep). */
  file: string;
  sweep: string;
  /** The runs folder (`--out`), absolute. */
  runsDir: string;
}

/** What a submit passes on to every task's `rlx train`. */
export interface SlurmTaskFlags {
  device?: string;
  tensorboard?: boolean;
}

/** The command line that addresses this sweep again, for the hints printed: quoted, so that it can be pasted as it is. */
export function followCommand(request: SlurmSweepRequest, flag: string): string {
  const parts = [displayPath(request.file), '--sweep', request.sweep];
  if (path.resolve(request.runsDir) !== path.resolve('runs')) parts.push('--out', displayPath(request.runsDir));
  return ['rlx sweep', ...[...parts, flag].map(shellQuote)].join(' ');
}

/**
 * Submits the sweep as one job array, `parallel` tasks at a time (undefined: as many as Slurm
 * gives), records it in sweep.json, and prints the job id and how to follow it. Returns the exit code.
 */
export function submitSlurmSweep(request: SlurmSweepRequest & SlurmTaskFlags & { members: SweepMembers; parallel: number | undefined }, out: NodeJS.WritableStream): number {
  const first = request.members.at(0).plan;
  const record = runSlurmSweep({
    file: request.file,
    sweep: request.sweep,
    members: request.members.count,
    parallel: request.parallel,
    slurm: first.sweep!.slurm,
    runsDir: request.runsDir,
    device: request.device,
    tensorboard: request.tensorboard,
  });
  writeSweepState(sweepDir(request.runsDir, request.sweep), {
    rlx_sweep: 1, file: record.file, sweep: request.sweep, experiment: first.experiment, count: record.members, numbering: request.members.numbering(),
    backend: 'slurm', slurm_job: record.job_id, started: record.submitted, members: {},
  });
  const throttle = request.parallel !== undefined ? `, at most ${Math.min(request.parallel, record.members)} at a time` : '';
  out.write([
    `sweep ${request.sweep}: ${record.members} member${record.members === 1 ? '' : 's'} submitted as Slurm job ${record.job_id}${throttle}`,
    `  script:  ${displayPath(record.script)}`,
    `  follow:  ${followCommand(request, '--status')}`,
    `  cancel:  ${followCommand(request, '--cancel')}`,
    '',
  ].join('\n'));
  return 0;
}

/** --status or --cancel of the sweep's Slurm job. */
export function followSlurmSweep(request: SlurmSweepRequest, action: 'status' | 'cancel', out: NodeJS.WritableStream): number {
  return action === 'cancel' ? cancelSlurmSweepCommand(request, out) : printSlurmSweepStatus(request, out);
}

/** One line per member (index, state, run directory, why), then the counts. */
function printSlurmSweepStatus(request: SlurmSweepRequest, out: NodeJS.WritableStream): number {
  const { record, members, summary } = slurmSweepStatus(slurmDir(request.runsDir, request.sweep));
  const width = String(record.members - 1).length;
  const lines = [`sweep ${request.sweep}: Slurm job ${record.job_id}, submitted ${record.submitted}${record.cancelled ? `, cancelled ${record.cancelled}` : ''}`];
  for (const m of members) {
    const where = m.runDir !== undefined ? `  ${displayPath(m.runDir)}` : '';
    lines.push(`${String(m.member).padStart(width)}  ${m.state.padEnd(9)}${where}${m.detail ? `  (${m.detail})` : ''}`.trimEnd());
  }
  lines.push(summary);
  out.write(lines.join('\n') + '\n');
  recordRunDirs(request, members.flatMap((m) => (m.runDir !== undefined ? [[m.member, m.runDir] as const] : [])));
  return 0;
}

/** scancel of the sweep's job, when Slurm still holds some of its tasks. */
function cancelSlurmSweepCommand(request: SlurmSweepRequest, out: NodeJS.WritableStream): number {
  const { record, queued } = cancelSlurmSweep(slurmDir(request.runsDir, request.sweep));
  out.write(queued === 0
    ? `sweep ${request.sweep}: Slurm job ${record.job_id} has no task left in the queue; nothing to cancel (see ${followCommand(request, '--status')})\n`
    : `sweep ${request.sweep}: cancelled Slurm job ${record.job_id} (${queued} task${queued === 1 ? '' : 's'}); running members stop after their current update (stopped, resumable with rlx train --resume RUN_DIR); see ${followCommand(request, '--status')}\n`);
  return 0;
}

/**
 * The members' run directories into sweep.json, where the editor and `rlx sweep` look for them:
 * the tasks themselves do not write it (many nodes writing one file would race).
 */
function recordRunDirs(request: SlurmSweepRequest, runDirs: ReadonlyArray<readonly [number, string]>): void {
  const dir = sweepDir(request.runsDir, request.sweep);
  const state = readSweepState(dir);
  if (!state || state.backend !== 'slurm') return;
  const members = { ...state.members };
  for (const [k, runDir] of runDirs) members[String(k)] = path.relative(path.dirname(dir), runDir);
  if (JSON.stringify(members) !== JSON.stringify(state.members)) writeSweepState(dir, { ...state, members });
}
