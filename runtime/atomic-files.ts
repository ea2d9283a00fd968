// Writes that leave nothing half-written (run directories, checkpoints, formatted sources): a
// crash or a kill at any moment leaves either the old file or the new one (write a temporary
// file in the same folder, then rename it over).
import * as fs from 'node:fs';
import * as path from 'node:path';

export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, data);
  try {
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
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
