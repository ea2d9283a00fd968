// Locates files relative to the repository, whichever folder the compiled
// test runs from (out/test/... after tsc), so that no machine's absolute
// path is written into the tests.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder above this file that holds the project's package.json. */
export function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, 'utf8')).name === 'rlx') return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no rlx package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/** The shared Gymnasium reference trajectories, kept beside the repository in ../shared. */
export function gymnasiumFixturesDir(): string {
  return path.resolve(repoRoot(), '../shared/fixtures/gymnasium');
}
