// Paths tests need, found from this file's location (never a machine's absolute path).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder above this file with rlx's package.json. */
export const repoRoot = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (dir !== path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg) && JSON.parse(fs.readFileSync(pkg, 'utf8')).name === 'rlx') return dir;
    dir = path.dirname(dir);
  }
  throw new Error('cannot find the rlx repository root above the test files');
})();

/** The design's shared folder beside the repository (LANGUAGE.md, fixtures). */
export const sharedDir = path.resolve(repoRoot, '../shared');

export function examplesDir(): string {
  return path.join(repoRoot, 'examples');
}

export function exampleFiles(): string[] {
  return fs.readdirSync(examplesDir()).filter((f) => f.endsWith('.rlx')).sort().map((f) => path.join(examplesDir(), f));
}
