// The disk as the server sees it: .rlx texts read once and kept until the file changes, and the
// .rlx files under the workspace folders. Open editors are overlays on top (see workspace.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DataFileRead, FileHost } from '../dsl/index.js';
import { decodeDataset } from '../dsl/schema/dataset.js';
import { fileErrorReason } from '../shared/file-errors.js';

/** Folders that never hold a user's specs and can be huge. */
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'out', 'dist', 'runs']);

/**
 * A run directory's copy of its spec (`<run>/source/*.rlx`, next to the run's status.json, or
 * its run.lock while the trainer is still writing the first status): skipped wherever `--out`
 * put the run, as under `runs/`. Checked as a workspace file, the copy reports false errors (its
 * imports and modules are named as in the original folder); formatted, a past run's record changes.
 */
function isRunSource(dir: string): boolean {
  if (path.basename(dir) !== 'source') return false;
  const run = path.dirname(dir);
  return fs.existsSync(path.join(run, 'status.json')) || fs.existsSync(path.join(run, 'run.lock'));
}

/**
 * Whether a folder met while looking for .rlx files is left out: build output, dependencies,
 * run folders and a run's recorded sources. The one rule for the language server's index and
 * the command line's `rlx check DIR` / `rlx fmt DIR`.
 */
export function isSkippedFolder(dir: string): boolean {
  return SKIPPED_DIRS.has(path.basename(dir)) || isRunSource(dir);
}

/**
 * The run directory whose recorded sources hold `filePath` (`<run>/source/**`, at any depth:
 * an import from `../lib` is recorded under `source/_up/`), or undefined. Those files are the
 * run's record: no command changes them.
 */
export function runRecordingOf(filePath: string): string | undefined {
  for (let dir = path.dirname(path.resolve(filePath)); ; dir = path.dirname(dir)) {
    if (isRunSource(dir)) return path.dirname(dir);
    if (path.dirname(dir) === dir) return undefined;
  }
}

interface CachedFile {
  text: string | undefined;
  mtimeMs: number;
  size: number;
  /** Set when the file was over `maxBytes` and so not read. */
  tooLarge: boolean;
}

/**
 * A FileHost over the disk with a cache. Every read checks the file's mtime and size (one stat,
 * microseconds) so a change the client did not report (a client without file watching, a
 * `git checkout` racing the watcher) is still seen; `forget` drops an entry at once when the
 * client does report one.
 */
export class DiskHost implements FileHost {
  private readonly cache = new Map<string, CachedFile>();

  /** Files over `maxBytes` are not read at all (a multi-gigabyte file would take the heap): see tooLargeBytes(). */
  constructor(private readonly maxBytes = Infinity) {}

  readFile(filePath: string): string | undefined {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(filePath);
    } catch {
      this.cache.delete(filePath);
      return undefined;
    }
    const cached = this.cache.get(filePath);
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.text;
    const tooLarge = stat.isFile() && stat.size > this.maxBytes;
    let text: string | undefined;
    try {
      text = stat.isFile() && !tooLarge ? withoutBom(fs.readFileSync(filePath, 'utf8')) : undefined;
    } catch {
      text = undefined;
    }
    this.cache.set(filePath, { text, mtimeMs: stat.mtimeMs, size: stat.size, tooLarge });
    return text;
  }

  /** The size in bytes of a file readFile() left unread for being over `maxBytes`; undefined otherwise. */
  tooLargeBytes(filePath: string): number | undefined {
    const cached = this.cache.get(filePath);
    return cached?.tooLarge ? cached.size : undefined;
  }

  forget(filePath: string): void {
    this.cache.delete(filePath);
    this.dataFiles.delete(filePath);
  }

  private readonly dataFiles = new Map<string, { read: DataFileRead; mtimeMs: number; size: number }>();

  /** A dataset, read again only when its mtime or size changed (the checker then reuses its parse). */
  readDataFile(filePath: string): DataFileRead {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(filePath);
    } catch {
      stat = undefined;
    }
    const cached = this.dataFiles.get(filePath);
    if (stat && cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.read;
    const read = readDataFileAt(filePath);
    if (stat) this.dataFiles.set(filePath, { read, mtimeMs: stat.mtimeMs, size: stat.size });
    else this.dataFiles.delete(filePath);
    return read;
  }
}

/** The most of a dataset the checker reads while editing; a larger one is read by rlx train. */
export const DATA_CHECK_BYTES = 16 * 2 ** 20;

/**
 * A data file from the disk for the checker (the command line's and the server's): opened
 * without blocking and checked on its descriptor, so a FIFO or a device is reported, not
 * waited on or read for ever (as shared/input-files.ts does for the trainer).
 */
export function readDataFileAt(filePath: string, checkBytes = DATA_CHECK_BYTES): DataFileRead {
  let fd: number;
  try {
    fd = fs.openSync(filePath, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (err) {
    return { kind: 'unreadable', reason: fileErrorReason(err, 'it cannot be opened') };
  }
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) return { kind: 'unreadable', reason: 'it is a folder, not a file' };
    if (!stat.isFile()) return { kind: 'unreadable', reason: 'it is not a regular file (a device, pipe or socket); rlx reads only regular files' };
    if (stat.size > checkBytes) return { kind: 'large', bytes: stat.size };
    const bytes = Buffer.alloc(stat.size);
    let at = 0;
    for (let n = 1; at < bytes.length && n > 0; at += n) n = fs.readSync(fd, bytes, at, bytes.length - at, at);
    return { kind: 'text', ...decodeDataset(bytes.subarray(0, at)) };
  } catch (err) {
    return { kind: 'unreadable', reason: fileErrorReason(err, 'it cannot be read') };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The text an editor shows for a file saved with a UTF-8 byte-order mark: without it (the CLI
 * reads files the same way, runtime/cli/files.ts). Counted as a character, the mark would shift
 * every position on the first line by one, and edits for a file that is not open (a rename from
 * an importer) would land one character off. Editors keep the mark when they save.
 */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Every .rlx file under `folder`, skipping build output, dependencies and run directories.
 * Asynchronous and a folder at a time, so a big tree does not stall requests; symbolic links
 * are not followed (they can loop).
 */
export async function findRlxFiles(folder: string): Promise<string[]> {
  const found: string[] = [];
  const pending = [path.resolve(folder)];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable or vanished while scanning: nothing to index there
    }
    for (const entry of entries) {
      if (entry.isDirectory()) {
        const sub = path.join(dir, entry.name);
        if (!isSkippedFolder(sub)) pending.push(sub);
      } else if (entry.isFile() && entry.name.endsWith('.rlx')) {
        found.push(path.join(dir, entry.name));
      }
    }
  }
  return found.sort();
}

/** Whether a path lies in a folder the scan would skip (a watcher event from node_modules, say). */
export function isSkippedPath(filePath: string, folders: string[]): boolean {
  for (const folder of folders) {
    const rel = path.relative(folder, filePath);
    if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
    return rel.split(path.sep).slice(0, -1).some((part) => SKIPPED_DIRS.has(part)) || runRecordingOf(filePath) !== undefined;
  }
  return true; // outside every workspace folder
}
