// The Slurm backend of `rlx sweep`: submit a sweep as one job array, report where its members
// stand, cancel it. Slurm does the queueing, the limits and the retries (--requeue); rlx writes
// the script, remembers the job (`<runs>/<sweep>/slurm/job.json`) and reads the run directories.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PlanValue } from '../../../dsl/schema/index.js';
import { makeDirs, readJson, writeFileAtomic, writeJsonAtomic } from '../../../runtime/atomic-files.js';
import { readRunJson, RUN_FILE_LIMITS } from '../../../runtime/run/run-files.js';
import { displayPath } from '../../command.js';
import { UserError } from '../../files.js';
import { sweepDir } from '../state.js';
import { sbatch, scancel, squeueTasks } from './client.js';
import { arraySbatch, memberLog } from './script.js';
import { slurmSettings } from './settings.js';
import { memberStatuses, summarize, type MemberStatus, type MemberTrace } from './status.js';

export { memberStatuses, summarize, type MemberStatus } from './status.js';

/** `<runs>/<sweep>/slurm/job.json`: the submitted job, for --status and --cancel. */
export interface SlurmJobRecord {
  job_id: string;
  sweep: string;
  file: string;
  members: number;
  runs_dir: string;
  work_dir: string;
  log_dir: string;
  script: string;
  submitted: string;
  /** Set by --cancel: members Slurm never started are then `cancelled`, not `unknown`. */
  cancelled?: string;
}

export interface SlurmSweepOptions {
  /** The .rlx file and the sweep in it. */
  file: string;
  sweep: string;
  members: number;
  /** Tasks at the same time; undefined: as many as Slurm gives. */
  parallel: number | undefined;
  /** The plan's `sweep.slurm` (null: no `slurm { }` block, every setting at its default). */
  slurm: Record<string, PlanValue> | null;
  /** The runs folder (`--out`). */
  runsDir: string;
  /** The Node.js and rlx command line the tasks run; the ones running now by default. */
  node?: string;
  rlxBin?: string;
  /** `--device` and `--tensorboard` of `rlx sweep`, passed on to every task. */
  device?: string;
  tensorboard?: boolean;
}

/** The folder of a sweep's Slurm files. */
export const slurmDir = (runsDir: string, sweep: string): string => path.join(sweepDir(path.resolve(runsDir), sweep), 'slurm');

const recordFile = (dir: string) => path.join(dir, 'job.json');

/** Writes the array script and submits it; refuses while an earlier job of the same sweep is still queued. */
export function runSlurmSweep(options: SlurmSweepOptions): SlurmJobRecord {
  const settings = slurmSettings(options.sweep, options.slurm);
  if (options.members < 1) throw new UserError(`sweep ${options.sweep} has no members to submit`);
  const logDir = slurmDir(options.runsDir, options.sweep);
  const earlier = readRecord(logDir);
  if (earlier && !earlier.cancelled) {
    const queued = squeueTasks(earlier.job_id);
    if (queued.size > 0) {
      throw new UserError(`sweep ${options.sweep} already has Slurm job ${earlier.job_id} with ${queued.size} task${queued.size === 1 ? '' : 's'} in the queue; follow it with --status, or end it with --cancel before submitting again`);
    }
  }
  makeDirs(logDir);
  // The tasks append to their logs (a requeued task keeps its history): a new job starts them afresh.
  for (const name of fs.readdirSync(logDir)) if (/^member-\d+\.(out|err)$/.test(name)) fs.rmSync(path.join(logDir, name));
  const script = path.join(logDir, 'array.sbatch');
  const job = {
    sweep: options.sweep,
    file: path.resolve(options.file),
    members: options.members,
    parallel: options.parallel === undefined ? undefined : Math.min(options.parallel, options.members),
    settings,
    workDir: process.cwd(),
    runsDir: path.resolve(options.runsDir),
    logDir,
    node: options.node ?? process.execPath,
    rlxBin: path.resolve(options.rlxBin ?? process.argv[1]),
    device: options.device,
    tensorboard: options.tensorboard,
  };
  writeFileAtomic(script, arraySbatch(job));
  const record: SlurmJobRecord = {
    job_id: sbatch(script),
    sweep: job.sweep,
    file: job.file,
    members: job.members,
    runs_dir: job.runsDir,
    work_dir: job.workDir,
    log_dir: logDir,
    script,
    submitted: new Date().toISOString(),
  };
  writeJsonAtomic(recordFile(logDir), record);
  return record;
}

/** The job of the sweep whose Slurm files are in `dir`; a UserError when it was never submitted. */
export function slurmJob(dir: string): SlurmJobRecord {
  const record = readRecord(dir);
  if (!record) {
    throw new UserError(`no Slurm job recorded in ${displayPath(dir)}: --status and --cancel follow a sweep submitted with backend: slurm (submit it with rlx sweep FILE; a local sweep shows its progress while it runs, and Ctrl-C stops it)`);
  }
  return record;
}

/** Each member's state (squeue for the tasks Slurm holds, run directories for the rest). */
export function slurmSweepStatus(dir: string): { record: SlurmJobRecord; members: MemberStatus[]; summary: string } {
  const record = slurmJob(dir);
  const members = memberStatuses(record.members, squeueTasks(record.job_id), (k) => memberTrace(record, k), record.cancelled !== undefined);
  return { record, members, summary: summarize(members) };
}

/**
 * scancel of the whole array: running members stop cleanly (SIGTERM, final checkpoint), pending
 * ones never start. A job with no task left in the queue is left alone (`queued` 0).
 */
export function cancelSlurmSweep(dir: string): { record: SlurmJobRecord; queued: number } {
  const record = slurmJob(dir);
  const queued = squeueTasks(record.job_id).size;
  if (queued === 0) return { record, queued };
  scancel(record.job_id);
  const cancelled = { ...record, cancelled: new Date().toISOString() };
  writeJsonAtomic(recordFile(dir), cancelled);
  return { record: cancelled, queued };
}

function readRecord(dir: string): SlurmJobRecord | undefined {
  const file = recordFile(dir);
  return fs.existsSync(file) ? readJson<SlurmJobRecord>(file, "the sweep's Slurm job") : undefined;
}

/** What member K's task left: the run directory it printed last, that run's status, its log's last line. */
function memberTrace(record: SlurmJobRecord, member: number): MemberTrace {
  const lastLine = (file: string) => {
    try {
      return fs.readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean).at(-1);
    } catch {
      return undefined;
    }
  };
  const trace: MemberTrace = {};
  const logLine = lastLine(path.join(record.log_dir, memberLog(member, 'err')));
  if (logLine !== undefined) trace.lastLogLine = logLine;
  const printed = lastLine(path.join(record.log_dir, memberLog(member, 'out')));
  if (printed === undefined) return trace;
  // rlx train prints run directories relative to where it runs when that is shorter: the task's --chdir.
  trace.runDir = path.resolve(record.work_dir, printed);
  try {
    const status = readRunJson(trace.runDir, path.join(trace.runDir, 'status.json'), RUN_FILE_LIMITS.status) as { status?: string; error?: string; reason?: string };
    trace.runStatus = status.status;
    const note = status.status === 'failed' ? status.error : status.reason;
    if (note !== undefined) trace.runNote = note;
  } catch {
    // Not written yet (the run is starting), or unreadable or refused (not a regular file of the run): the log says more.
  }
  return trace;
}
