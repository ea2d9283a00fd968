// Reading the files a user names on the command line, with errors that say what to do.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FileHost } from '../dsl/index.js';
import { InputError } from '../shared/input-error.js';
import { isSkippedFolder, readDataFileAt } from '../server/disk.js';

/** A refusal the command line itself makes (a flag, a file named on it); printed without a stack, exit 2. */
export class UserError extends InputError {
  override name = 'UserError';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The largest source file read: far above any spec written by hand, far below what hurts. */
export const MAX_SOURCE_BYTES = 16 * 2 ** 20;

/** A file's text; a UserError for a missing file, a directory, or text that is not UTF-8. */
export function readSourceFile(file: string): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new UserError(`cannot read '${file}': no such file`);
  }
  if (stat.isDirectory()) throw new UserError(`'${file}' is a directory; name an .rlx file in it`);
  // A device or a pipe (`import "/dev/zero"`) would never end, or never start.
  if (!stat.isFile()) throw new UserError(`'${file}' is not a regular file; name an .rlx file`);
  if (stat.size > MAX_SOURCE_BYTES) {
    throw new UserError(`'${file}' is ${(stat.size / 2 ** 20).toFixed(1)} MiB; an .rlx file may be at most ${MAX_SOURCE_BYTES / 2 ** 20} MiB (split it into files that import each other)`);
  }
  const bytes = fs.readFileSync(file);
  try {
    const text = utf8.decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    const bad = firstInvalidUtf8(bytes);
    throw new UserError(`'${file}' is not UTF-8 text (invalid byte 0x${bytes[bad].toString(16).padStart(2, '0')} at offset ${bad}); save it as UTF-8`);
  }
}

/** Offset of the first byte that breaks UTF-8 (lead byte, continuation bytes, overlong forms). */
function firstInvalidUtf8(bytes: Buffer): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    const length = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (length === 0) return i;
    for (let k = 1; k < length; k++) {
      if (i + k >= bytes.length || (bytes[i + k] & 0xc0) !== 0x80) return i;
    }
    if (!utf8Ok(bytes.subarray(i, i + length))) return i;
    i += length;
  }
  return 0;
}

function utf8Ok(sequence: Buffer): boolean {
  try {
    utf8.decode(sequence);
    return true;
  } catch {
    return false;
  }
}

/** Files named on the command line, with directories expanded to the .rlx files inside them. */
export function expandSourceArgs(args: string[]): string[] {
  const out: string[] = [];
  for (const arg of args) {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(arg);
    } catch {
      throw new UserError(`cannot read '${arg}': no such file or directory`);
    }
    if (!stat.isDirectory()) {
      out.push(arg);
      continue;
    }
    const found = rlxFilesUnder(arg);
    if (found.length === 0) {
      throw new UserError(`'${arg}' is a directory with no .rlx files in it (outside run folders, build output and dependencies, which are skipped: name a file there to use it)`);
    }
    out.push(...found);
  }
  return out;
}

/**
 * The .rlx files under a directory, sorted. The folders below it that the language server skips
 * are skipped too (run folders and a run's recorded sources, build output, dependencies): `rlx
 * check .` after training must not report a run's copy of a spec, whose imports and modules are
 * named as in the original folder, nor `rlx fmt .` rewrite a past run's record. Links to
 * directories are followed, but no directory is entered twice (by its real path): a link back
 * up the tree would loop for ever.
 */
function rlxFilesUnder(root: string): string[] {
  const found: string[] = [];
  const entered = new Set<string>();
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let real: string;
    try {
      real = fs.realpathSync(dir);
    } catch {
      continue; // a dangling link
    }
    if (entered.has(real)) continue;
    entered.add(real);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      let isDir = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        try {
          isDir = fs.statSync(full).isDirectory();
        } catch {
          continue;
        }
      }
      if (isDir) {
        if (!isSkippedFolder(full)) pending.push(full);
      } else if (entry.name.endsWith('.rlx')) found.push(full);
    }
  }
  return found.sort();
}

/** The disk, for imports and datasets; files the user named were read (and validated) already. */
export const diskHost: FileHost = {
  readFile(filePath: string): string | undefined {
    try {
      return readSourceFile(filePath);
    } catch {
      return undefined;
    }
  },
  readDataFile: (filePath) => readDataFileAt(filePath),
};
