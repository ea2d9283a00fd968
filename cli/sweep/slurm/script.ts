// The sbatch script of a sweep: one job array, one task per member, each task running
// `rlx train FILE --sweep NAME --member $SLURM_ARRAY_TASK_ID` into the shared runs folder.
// Written for people to read (and adapt): every line says why it is there. Pure: the paths
// come in resolved, so the same job gives the same text.
import type { SlurmSettings } from './settings.js';

export interface SlurmArrayJob {
  /** The sweep's name. */
  sweep: string;
  /** The .rlx file, absolute (the cluster's nodes share the file system). */
  file: string;
  members: number;
  /** Tasks at the same time: the sweep's `parallel` when it states one; undefined: as many as Slurm gives. */
  parallel?: number;
  settings: SlurmSettings;
  /** Where the tasks start (the folder `rlx sweep` ran in), absolute. */
  workDir: string;
  /** The runs folder (`--out`), absolute. */
  runsDir: string;
  /** Where the tasks' stdout and stderr go (`<runs>/<sweep>/slurm`), absolute. */
  logDir: string;
  /** The Node.js and the rlx command line that submitted it, absolute. */
  node: string;
  rlxBin: string;
  /** `rlx sweep --device D`, given to every task (the plan's own device otherwise). */
  device?: string;
  /** `rlx sweep --tensorboard`: every task writes TensorBoard files (a resumed run keeps them by itself). */
  tensorboard?: boolean;
}

/** The name of member K's stdout (its run directories, one line per start) and stderr (its log) in the log folder; `%a` for sbatch. */
export const memberLog = (member: number | string, stream: 'out' | 'err'): string => `member-${member}.${stream}`;

/** A word for bash: single-quoted unless it is plainly safe. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * A path as an #SBATCH option value, `pattern` (e.g. `/member-%a.out`) appended as it is: sbatch
 * reads `%` in --output and --error as the start of a file-name pattern (`%a` is the task), so
 * the path's own `%` is doubled there; and it splits the line at blanks outside double quotes,
 * which it cannot escape.
 */
export function sbatchPath(file: string, pattern?: string): string {
  if (/["\r\n]/.test(file)) throw new Error(`a path with a double quote or a line break cannot be written in an #SBATCH line: ${JSON.stringify(file)}`);
  const text = pattern === undefined ? file : file.replaceAll('%', '%%') + pattern;
  return /[\s#]/.test(text) ? `"${text}"` : text;
}

export function arraySbatch(job: SlurmArrayJob): string {
  const { settings: s } = job;
  const log = (stream: 'out' | 'err') => sbatchPath(job.logDir, `/${memberLog('%a', stream)}`);
  const rlx = [job.node, job.rlxBin].map(shellQuote).join(' ');
  // One CPU per task: the trainer's own thread pool would only contend with itself.
  const threads = s.cpus === 1 ? ' --threads 1' : '';
  const device = job.device !== undefined ? ` --device ${shellQuote(job.device)}` : '';
  const tensorboard = job.tensorboard ? ' --tensorboard' : '';
  const lines = [
    '#!/bin/bash',
    `# rlx sweep ${job.sweep} (${job.file}) as one Slurm job array: one task per member, ${job.members} in all.`,
    '# Written by `rlx sweep` from the sweep\'s `slurm { }` settings; `rlx sweep FILE --status` and',
    '# `--cancel` follow the job it submitted. Task K trains member K (`rlx train --list-members` lists',
    '# them) into the runs folder, which every node must see at the same path.',
    `#SBATCH --job-name=${shellQuote(`rlx-${job.sweep}`)}`,
    job.parallel !== undefined
      ? `# Members 0 to ${job.members - 1}, at most ${job.parallel} at a time (the sweep's parallel).`
      : `# Members 0 to ${job.members - 1}, as many at a time as Slurm gives (the sweep states no parallel).`,
    `#SBATCH --array=0-${job.members - 1}${job.parallel !== undefined ? `%${job.parallel}` : ''}`,
    `#SBATCH --chdir=${sbatchPath(job.workDir)}`,
    '# Per task: its run directories on stdout (one line per start, so the last is the current one)',
    '# and its log on stderr, appended to when a task runs again.',
    `#SBATCH --output=${log('out')}`,
    `#SBATCH --error=${log('err')}`,
    '#SBATCH --open-mode=append',
    '# A task whose node fails (or that an admin requeues) runs again, resuming its run.',
    '#SBATCH --requeue',
    `#SBATCH --time=${s.time}`,
    `#SBATCH --cpus-per-task=${s.cpus}`,
  ];
  if (s.mem !== undefined) lines.push(`#SBATCH --mem=${s.mem}`);
  if (s.gpus > 0) lines.push(`#SBATCH --gpus=${s.gpus}`);
  if (s.partition !== undefined) lines.push(`#SBATCH --partition=${shellQuote(s.partition)}`);
  if (s.account !== undefined) lines.push(`#SBATCH --account=${shellQuote(s.account)}`);
  if (s.extra.length > 0) {
    lines.push('# The sweep\'s slurm.extra, as written:');
    for (const option of s.extra) lines.push(/^#SBATCH\b/.test(option) ? option : `#SBATCH ${option}`);
  }
  lines.push(
    '',
    'set -u',
    '# A task run again after a requeue resumes the run it started, when that run has a checkpoint.',
    `log_dir=${shellQuote(job.logDir)}`,
    `run_dir=$(tail -n 1 "$log_dir/${memberLog('$SLURM_ARRAY_TASK_ID', 'out')}" 2>/dev/null || true)`,
    'if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ] && [ -n "$run_dir" ] && compgen -G "$run_dir/checkpoints/state-*.json" >/dev/null; then',
    `  exec ${rlx} train --resume "$run_dir"${threads}${device}`,
    'fi',
    `exec ${rlx} train ${shellQuote(job.file)} --sweep ${shellQuote(job.sweep)} --member "$SLURM_ARRAY_TASK_ID" --out ${shellQuote(job.runsDir)}${threads}${device}${tensorboard}`,
    '',
  );
  return lines.join('\n');
}
