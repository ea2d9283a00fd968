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
    if (typeof data === 'string' || data instanceof Uint8Array) fs.writeFileSync(tmp, data);
    else writeChunks(tmp, data);
    fs.renameSync(tmp, file);
  } catch (err) {
    // A full disk leaves a partial temporary file: remove it (it holds the space too).
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

function writeChunks(file: string, chunks: readonly Uint8Array[]): void {
  const fd = fs.openSync(file, 'w');
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
