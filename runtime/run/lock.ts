// run.lock: the one trainer that writes a run directory. Taken when a run is created or
// resumed and released when training ends, failed or not; a second trainer (two `rlx train
// --resume` of one run) is refused. A lock whose process is gone (the trainer was killed) is
// stale and taken over, judged as crash detection judges status.json (reader.ts uses the
// processAlive here): the pid on this host is not alive. A lock from another host (a shared
// folder) cannot be judged: the refusal says which host and how to clear it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../shared/input-error.js';
import { readOwnText } from './run-folder-guard.js';
import { RUN_FILE_LIMITS } from './run-files.js';

export const LOCK_FILE = 'run.lock';

interface Holder {
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  since: string;
}

/** The run directory is being trained by another process. */
export class RunLockedError extends InputError {
  override name = 'RunLockedError';
}

export class RunLock {
  private constructor(
    readonly file: string,
    private readonly text: string,
  ) {}

  /** Takes `dir`'s lock for this process, taking over a stale one; throws RunLockedError when it is held. */
  static acquire(dir: string): RunLock {
    const file = path.join(dir, LOCK_FILE);
    const text = JSON.stringify({ pid: process.pid, host: os.hostname(), since: new Date().toISOString() } satisfies Holder) + '\n';
    // Written whole beside the lock, then linked into place: the lock never exists half-written,
    // and the link fails if a lock exists (an atomic create-if-absent).
    const tmp = path.join(dir, `.${LOCK_FILE}.${process.pid}.tmp`);
    // Created afresh ('wx' follows no link a stranger's folder may hold at this name).
    fs.rmSync(tmp, { force: true });
    fs.writeFileSync(tmp, text, { flag: 'wx' });
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        if (createFrom(tmp, file, text)) return new RunLock(file, text);
        const held = readHolder(file);
        if (held === undefined) continue; // released meanwhile
        const { holder, raw } = held;
        if (holder && holder.host === os.hostname() && holder.pid !== process.pid && !processAlive(holder.pid)) {
          // Stale: its trainer is gone. Removed only if unchanged, so a lock just taken by another is kept.
          if (readHolder(file)?.raw === raw) fs.rmSync(file, { force: true });
          continue;
        }
        throw new RunLockedError(describeHolder(dir, holder));
      }
      throw new RunLockedError(`${dir}: another trainer keeps taking the run's lock (${LOCK_FILE}); try again`);
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }

  /** Gives the lock up (if it is still this one's). */
  release(): void {
    try {
      if (readOwnText(this.file, RUN_FILE_LIMITS.lock) === this.text) fs.rmSync(this.file, { force: true });
    } catch {
      // Gone already.
    }
  }
}

/**
 * Whether a process is alive (signal 0 checks without sending anything). Only a positive whole
 * number names one process: a status.json from elsewhere saying pid 0 or -1 (for kill(), this
 * process group, or every process of the user) or "1" is no live trainer, so Stop never sends
 * a signal there.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Creates `file` with the contents of `tmp`; false when it exists. */
function createFrom(tmp: string, file: string, text: string): boolean {
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV') throw err;
  }
  // A file system without hard links: create exclusively, then write.
  try {
    fs.writeFileSync(file, text, { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * The lock's holder (null when the file is not one), or undefined when there is no lock. A lock
 * that is a link, a FIFO or a device, or larger than any lock rlx writes, is an InputFileError:
 * read, it would block or never end (run.lock -> /dev/zero).
 */
function readHolder(file: string): { holder: Holder | null; raw: string } | undefined {
  const raw = readOwnText(file, RUN_FILE_LIMITS.lock);
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(raw) as Partial<Holder>;
    const ok = Number.isSafeInteger(value.pid) && typeof value.host === 'string';
    return { holder: ok ? (value as Holder) : null, raw };
  } catch {
    return { holder: null, raw };
  }
}

function describeHolder(dir: string, holder: Holder | null): string {
  const lock = path.join(dir, LOCK_FILE);
  if (!holder) return `${dir} is locked by ${lock}, which is not a lock rlx wrote; delete it if no trainer is using the run`;
  const since = holder.since ? ` since ${holder.since}` : '';
  if (holder.host !== os.hostname()) {
    return `${dir} is being trained by process ${holder.pid} on ${holder.host}${since}; stop it first (if that trainer is gone, delete ${lock})`;
  }
  return `${dir} is being trained by process ${holder.pid}${holder.pid === process.pid ? ' (this one)' : ''}${since}; stop it first`;
}
