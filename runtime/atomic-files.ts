// Writes that leave nothing half-written (run directories, checkpoints, formatted sources): a
// crash or a kill at any moment leaves either the old file or the new one (write a temporary
// file in the same folder, then rename it over).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputFileError, readInputText } from '../shared/input-files.js';

/** Writes `data` to `file` atomically; chunks (a list of byte arrays) are written one after another, without joining them first. */
export function writeFileAtomic(file: string, data: string | Uint8Array | readonly Uint8Array[]): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    // Created afresh: 'wx' follows no link left at the temporary's name (a run folder from
    // elsewhere); the rename replaces a link at `file` itself rather than writing through it.
    fs.rmSync(tmp, { force: true });
    if (typeof data === 'string' || data instanceof Uint8Array) fs.writeFileSync(tmp, data, { flag: 'wx' });
    else writeChunks(tmp, data);
    fs.renameSync(tmp, file);
  } catch (err) {
    // A full disk leaves a partial temporary file: remove it (it holds the space too).
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

function writeChunks(file: string, chunks: readonly Uint8Array[]): void {
  const fd = fs.openSync(file, 'wx');
  try {
    for (const chunk of chunks) {
      for (let at = 0; at < chunk.length; ) at += fs.writeSync(fd, chunk, at, chunk.length - at);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Temporary files of writeFileAtomic() left by a process killed mid-write: `.<name>.<pid>.tmp`. */
export function isOrphanedTemporary(name: string): boolean {
  return /^\..+\.\d+\.tmp$/.test(name);
}

export function writeJsonAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
}

/** The largest JSON file of a run read (a JavaScript string holds at most ~512 MiB). */
const MAX_JSON_BYTES = 512 * 2 ** 20;

/**
 * The JSON value in a run's file; `what` names it ("the run's plan"). A file that is missing,
 * not a regular file, cut short or not JSON is an InputFileError: a damaged run folder is the
 * user's to repair, not a bug in rlx.
 */
export function readJson<T>(file: string, what: string): T {
  const text = readInputText(file, { what: what.replace(/^the /, ''), maxBytes: MAX_JSON_BYTES });
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new InputFileError(`${what} at ${file} is not valid JSON: ${(err as Error).message} (cut short by a full disk or a copy? restore it from a copy of the run)`);
  }
}

/**
 * `mkdir -p`, one level at a time. Node's `mkdirSync(dir, { recursive: true })` never returns
 * under a folder that refuses new entries with ENOENT (procfs: `rlx train --out /proc/x` hung
 * at full CPU); here the first level that cannot be made throws its error.
 */
export function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let at = path.resolve(dir); !fs.existsSync(at); at = path.dirname(at)) {
    missing.push(at);
    if (path.dirname(at) === at) break;
  }
  for (const level of missing.reverse()) {
    try {
      fs.mkdirSync(level);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/**
 * Makes the folder `dir` whole or not at all (`rlx export --to DIR`): `fill` writes into a
 * temporary folder beside it (`.<name>.<pid>.tmp`, on the same file system), which is renamed to
 * `dir` once complete (an empty folder there is replaced). On any failure (a full disk, no free
 * inodes, a read-only file system) the temporary folder is removed, so nothing half-written is
 * left where a retry writes. Returns what `fill` returns, and the temporary folder's path.
 */
export function writeFolderAtomic<T>(dir: string, fill: (temporary: string) => T): { result: T; temporary: string } {
  const parent = path.dirname(path.resolve(dir));
  makeDirs(parent);
  const temporary = path.join(parent, `.${path.basename(dir)}.${process.pid}.tmp`);
  fs.rmSync(temporary, { recursive: true, force: true });
  fs.mkdirSync(temporary);
  try {
    const result = fill(temporary);
    fs.renameSync(temporary, dir);
    return { result, temporary };
  } catch (err) {
    try {
      fs.rmSync(temporary, { recursive: true, force: true });
    } catch {
      // What cannot be removed (the file system turned read-only) keeps its hidden name: it blocks nothing.
    }
    throw err;
  }
}
