// Writes that leave nothing half-written (run directories, checkpoints, formatted sources): a
// crash or a kill at any moment leaves either the old file or the new one (write a temporary
// file in the same folder, then rename it over).
import * as fs from 'node:fs';
import * as path from 'node:path';

export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, file);
  } catch (err) {
    // A full disk leaves a partial temporary file: remove it (it holds the space too).
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** Temporary files of writeFileAtomic() left by a process killed mid-write: `.<name>.<pid>.tmp`. */
export function isOrphanedTemporary(name: string): boolean {
  return /^\..+\.\d+\.tmp$/.test(name);
}

export function writeJsonAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
}

export function readJson<T>(file: string, what: string): T {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new Error(`cannot read ${what} at ${file}`);
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new Error(`${what} at ${file} is not valid JSON: ${(err as Error).message}`);
  }
}
