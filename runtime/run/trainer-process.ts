// Which process trains a run folder now, judged well enough to send it a signal (the editor's
// Stop). status.json and run.lock only say which pid wrote them, and a run folder may come from
// a stranger: a cloned status.json saying `running`, pid 1 (or any live process of the user)
// would have Stop signal that process. So a pid is believed only when run.lock names it on this
// host and, where the system shows a process's open files (Linux: /proc/PID/fd), that process
// holds this run's events.jsonl open, as a trainer does from the moment the run folder exists
// until it ends (events.ts). A folder's files cannot fake what another process has open.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { processAlive } from './lock.js';
import { readRunJson, RUN_FILE_LIMITS, runFileExists } from './run-files.js';

/**
 * The pid of the trainer writing `runDir` on this machine, or undefined when none is, or when
 * the pid the folder names cannot be shown to be its trainer (then nothing may signal it).
 * `statusPid`: the pid status.json names, which must agree with the lock's.
 */
export function runTrainerPid(runDir: string, statusPid?: number): number | undefined {
  const lock = readLock(runDir);
  const pid = lock?.pid ?? (PROC_FDS ? statusPid : undefined);
  if (pid === undefined || !Number.isSafeInteger(pid) || pid <= 1 || pid === process.pid) return undefined;
  if (lock && lock.host !== os.hostname()) return undefined; // a shared folder: that pid is another machine's
  if (statusPid !== undefined && statusPid !== pid) return undefined;
  if (!processAlive(pid)) return undefined;
  // Without /proc (macOS), the lock on this host and a live pid are all there is to go on.
  if (PROC_FDS && !holdsOpen(pid, path.join(runDir, 'events.jsonl'))) return undefined;
  return pid;
}

/**
 * Whether process `pid` is writing the run `runDir`: it holds the run's events.jsonl open. Where
 * the system does not show a process's open files, true (the pid alone is all there is to judge).
 */
export function writesRun(pid: number, runDir: string): boolean {
  return !PROC_FDS || holdsOpen(pid, path.join(runDir, 'events.jsonl'));
}

/** Whether the system shows each process's open files as /proc/PID/fd. */
const PROC_FDS = process.platform === 'linux' && fs.existsSync(`/proc/${process.pid}/fd`);

/** run.lock's pid and host; undefined when there is none or it is not one rlx wrote (refused unread when hostile: run-files.ts). */
function readLock(runDir: string): { pid: number; host: string } | undefined {
  const file = path.join(runDir, 'run.lock');
  if (!runFileExists(file)) return undefined;
  try {
    const lock = readRunJson(runDir, file, RUN_FILE_LIMITS.lock) as { pid?: unknown; host?: unknown } | null;
    return typeof lock?.pid === 'number' && typeof lock.host === 'string' ? { pid: lock.pid, host: lock.host } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether process `pid` has `file` (a regular file, not a link) open: the same inode behind one of its descriptors. */
function holdsOpen(pid: number, file: string): boolean {
  let target: fs.Stats;
  try {
    target = fs.lstatSync(file);
  } catch {
    return false;
  }
  if (!target.isFile()) return false;
  let fds: string[];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`); // EACCES for another user's process: not provably ours
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      // stat, not open: a descriptor on a FIFO or a device is looked at, never read.
      const open = fs.statSync(`/proc/${pid}/fd/${fd}`);
      if (open.dev === target.dev && open.ino === target.ino) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}
