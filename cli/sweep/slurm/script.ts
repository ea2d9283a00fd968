// The sbatch script of a sweep: one job array, one task per member, each task running
// `rlx train FILE --sweep NAME --member $SLURM_ARRAY_TASK_ID` into the shared runs folder.
// Written for people to read (and adapt): every line says why it is there. Pure: the paths
// come in resolved, so the same job gives the same text. Every value written into it is one line
// of text (oneLine) and quoted where it lands, so no value can start a line of its own that bash
// would run in every task: the checker refuses a line break in `slurm { }` already, and here it is
// refused again for whatever reaches the script (a plan written by hand, a path, a flag).
import { UserError } from '../../files.js';
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

/** Characters that end a line of the script (bash reads CR as text, but editors and sbatch may not) or its text (NUL). */
export const LINE_BREAK = /[\r\n\0]/;

/** Refuses `value`, saying what it is, when it holds a line break or NUL: it must stay on its line of the script. */
export function oneLine(what: string, value: string): void {
  if (LINE_BREAK.test(value)) {
    throw new UserError(`${what} ${JSON.stringify(value)} holds a line break or a NUL character, which cannot be written into one line of the Slurm job script; remove it (or rename the file or folder)`);
  }
}

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
  if (/["\r\n\0]/.test(file)) throw new UserError(`a path with a double quote or a line break cannot be written in an #SBATCH line: ${JSON.stringify(file)}; rename the folder, or run rlx sweep from another one`);
  const text = pattern === undefined ? file : file.replaceAll('%', '%%') + pattern;
  return /[\s#]/.test(text) ? `"${text}"` : text;
}

export function arraySbatch(job: SlurmArrayJob): string {
  checkOneLine(job);
  const { settings: s } = job;
  const log = (stream: 'out' | 'err') => sbatchPath(job.logDir, `/${memberLog('%a', stream)}`);
  const rlx = [job.node, job.rlxBin].map(shellQuote).join(' ');
  // One CPU per task: the trainer's own thread pool would only contend with itself.
  const threads = s.cpus === 1 ? ' --threads 1' : '';
  const device = job.device !== undefined ? ` --device ${shellQuote(job.device)}` : '';
  const tensorboard = job.tensorboard ? ' --tensorboard' : '';
  const lines = [
    '#!/bin/bash',
    `# rlx sweep ${job.sweep} (${shellQuote(job.file)}) as one Slurm job array: one task per member, ${job.members} in all.`,
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
    `#SBATCH --time=${shellQuote(s.time)}`,
    `#SBATCH --cpus-per-task=${s.cpus}`,
  ];
  if (s.mem !== undefined) lines.push(`#SBATCH --mem=${shellQuote(s.mem)}`);
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

/** Every text of the job that reaches the script, each on one line (see oneLine). */
function checkOneLine(job: SlurmArrayJob): void {
  const { settings: s } = job;
  const texts: Array<[string, string | undefined]> = [
    ['the sweep name', job.sweep], ["the sweep's file", job.file], ['the working folder', job.workDir],
    ['the runs folder', job.runsDir], ['the log folder', job.logDir], ['Node.js', job.node], ['rlx', job.rlxBin],
    ['--device', job.device], ['slurm.partition', s.partition], ['slurm.account', s.account],
    ['slurm.time', s.time], ['slurm.mem', s.mem], ...s.extra.map((e): [string, string] => ['slurm.extra', e]),
  ];
  for (const [what, value] of texts) if (value !== undefined) oneLine(what, value);
}
