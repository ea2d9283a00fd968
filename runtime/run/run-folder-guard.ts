// Before rlx writes into a run folder it did not just create (`rlx train --resume`, `rlx eval
// --record`): the folder may come from a stranger, and a writer that follows a link writes
// outside it (events.jsonl -> ~/.bashrc is appended to, checkpoints/ -> ~/ fills a folder of the
// user's), and one that opens a FIFO or a device waits forever or reads without end (run.lock ->
// /dev/zero). rlx never writes a link or a special file into a run folder, so any such entry is
// refused, named, before anything is opened; the files the writers then open are opened without
// following a link and without blocking, and checked on their descriptor (openOwnFile), so what
// was checked is what is written even if the folder changes in between.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileErrorReason } from '../../shared/file-errors.js';
import { formatBytes, InputFileError, type InputFileOptions } from '../../shared/input-files.js';
import { RUN_FILE_LIMITS } from './run-files.js';

/** The files a writer reads back whole or in part, bounded before it opens them. */
const BOUNDED: Readonly<Record<string, InputFileOptions>> = {
  'run.lock': RUN_FILE_LIMITS.lock,
  'events.jsonl': RUN_FILE_LIMITS.events,
  'status.json': RUN_FILE_LIMITS.status,
  'plan.json': RUN_FILE_LIMITS.plan,
};

/**
 * Refuses the run folder `runDir` for writing (`doing`: "resume", "record an episode into") when
 * anything inside it is a symbolic link, a FIFO, a device or a socket, or a file the writer reads
 * is larger than rlx reads: an InputFileError naming the entry and what to do. The folder itself
 * may be reached through links (a runs folder on another disk), as readers allow.
 */
export function checkRunFolderForWriting(runDir: string, doing: string): void {
  const refuse = (entry: string, why: string) => {
    throw new InputFileError(`cannot ${doing} the run ${runDir}: ${entry} ${why}`);
  };
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch (err) {
      throw new InputFileError(`cannot ${doing} the run ${runDir}: cannot read the folder ${dir}: ${fileErrorReason(err)}`);
    }
    for (const name of names) {
      const entry = path.join(dir, name);
      let stat: fs.Stats;
      try {
        stat = fs.lstatSync(entry);
      } catch {
        continue; // gone meanwhile
      }
      if (stat.isSymbolicLink()) {
        refuse(entry, `is a symbolic link (to ${linkTarget(entry)}); rlx writes only a run folder's own files and never through a link: replace the link with a copy of what it names, or delete it`);
      } else if (stat.isDirectory()) {
        walk(entry);
      } else if (!stat.isFile()) {
        refuse(entry, 'is not a regular file (a FIFO, device or socket), which rlx never writes into a run folder; delete it');
      } else if (dir === runDir) {
        const limit = BOUNDED[name];
        if (limit && stat.size > limit.maxBytes) refuse(entry, `is ${formatBytes(stat.size)}, more than the ${formatBytes(limit.maxBytes)} rlx reads for the ${limit.what}; restore it from a copy of the run`);
      }
    }
  };
  walk(runDir);
}

function linkTarget(file: string): string {
  try {
    return fs.readlinkSync(file);
  } catch {
    return '?';
  }
}

/**
 * Opens a run folder's own file with `flags` (fs.constants: O_RDONLY, O_RDWR | O_CREAT, ...)
 * without following a link and without blocking on a FIFO, and checks on the descriptor that it
 * is a regular file of at most `limit.maxBytes`; an InputFileError otherwise (the descriptor is
 * closed). Returns the descriptor and the file's size.
 */
export function openOwnFile(file: string, flags: number, limit: InputFileOptions): { fd: number; size: number } {
  let fd: number;
  try {
    fd = fs.openSync(file, flags | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK, 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new InputFileError(`the ${limit.what} ${file} is a symbolic link; rlx writes only a run folder's own files and never through a link: delete the link`, { cause: err });
    }
    throw err;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new InputFileError(`the ${limit.what} ${file} is not a regular file (a FIFO, device or socket); delete it`);
    if (stat.size > limit.maxBytes) throw new InputFileError(`the ${limit.what} ${file} is ${formatBytes(stat.size)}, more than the ${formatBytes(limit.maxBytes)} rlx reads for it`);
    return { fd, size: stat.size };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** The text of a run folder's own file (see openOwnFile); undefined when it is not there. */
export function readOwnText(file: string, limit: InputFileOptions): string | undefined {
  let opened: { fd: number; size: number };
  try {
    opened = openOwnFile(file, fs.constants.O_RDONLY, limit);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const { fd, size } = opened;
  try {
    const bytes = Buffer.alloc(size);
    let at = 0;
    while (at < size) {
      const n = fs.readSync(fd, bytes, at, size - at, at);
      if (n === 0) break;
      at += n;
    }
    return bytes.subarray(0, at).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}
