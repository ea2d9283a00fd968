// Slurm's own commands, run as child processes: sbatch to submit, squeue to see the array's
// tasks, scancel to end them. Their refusals become messages with Slurm's words verbatim.
import { spawnSync } from 'node:child_process';
import { UserError } from '../../files.js';

/** What squeue says of one array task (states as squeue prints them: PENDING, RUNNING, ...). */
export type QueuedTasks = Map<number, string>;

function slurm(command: string, args: readonly string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 60_000 });
  if (r.error) {
    if ((r.error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new UserError(`backend: slurm needs Slurm's ${command} on PATH; run rlx on a machine of the cluster (a login node), or load Slurm there first (e.g. \`module load slurm\`); to try it on this machine: bash tools/slurm-local.sh start (as root)`);
    }
    throw new UserError(`${command} could not run: ${r.error.message}`);
  }
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Submits `script`; returns the job id (sbatch --parsable prints `id` or `id;cluster`). */
export function sbatch(script: string): string {
  const r = slurm('sbatch', ['--parsable', script]);
  const id = r.stdout.trim().split(';')[0];
  if (r.code !== 0 || !/^\d+$/.test(id)) {
    throw new UserError(`sbatch refused the job (exit ${r.code}):\n${(r.stderr || r.stdout).trimEnd()}\nthe script is ${script}; fix the sweep's slurm { } settings and run rlx sweep again`);
  }
  return id;
}

/**
 * The job's array tasks that Slurm still holds (pending, running, completing), by task index.
 * Empty once the job has left the queue: squeue forgets a job a while after it ends
 * (MinJobAge, 5 minutes by default) and then says its id is invalid.
 */
export function squeueTasks(jobId: string): QueuedTasks {
  const r = slurm('squeue', ['--jobs', jobId, '--array', '--noheader', '--format=%K %T']);
  if (r.code !== 0) {
    if (/invalid job id/i.test(r.stderr)) return new Map();
    throw new UserError(`squeue failed (exit ${r.code}):\n${r.stderr.trimEnd()}`);
  }
  return parseSqueue(r.stdout);
}

/** `%K %T` lines: task index (or a range such as `4-9%2` for tasks not yet split off) and state. */
export function parseSqueue(text: string): QueuedTasks {
  const tasks: QueuedTasks = new Map();
  for (const line of text.split('\n')) {
    const [index, state] = line.trim().split(/\s+/);
    if (!state) continue;
    // Pending tasks may still be listed as one record (`[4-9%2]`, or `4,6-9`) even with --array.
    for (const part of index.replace(/^\[|%\d+\]?$|\]$/g, '').split(',')) {
      const [from, to = from] = part.split('-').map(Number);
      if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) continue;
      for (let k = from; k <= to; k++) tasks.set(k, state);
    }
  }
  return tasks;
}

/** Cancels every task of the job (running ones get SIGTERM: they stop cleanly, resumable). */
export function scancel(jobId: string): void {
  const r = slurm('scancel', [jobId]);
  if (r.code !== 0) throw new UserError(`scancel refused (exit ${r.code}):\n${r.stderr.trimEnd()}`);
}
