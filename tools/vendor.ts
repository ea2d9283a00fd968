// The second step of `npm run build`: copies chevrotain's own single-file ESM build
// (lib/chevrotain.mjs, which its package ships) to out/vendor/, where package.json's
// "#chevrotain" import points. The dsl imports chevrotain as "#chevrotain".
//
// Why: chevrotain's main entry imports lodash-es as ~650 separate modules, which Node 20 takes
// ~300 ms to load, and every `rlx` command, language server start and test process paid it; the
// single file (the same version, built by chevrotain's authors) loads in ~20 ms.
// Run: node out/tools/vendor.js
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Where the copy goes, relative to the repository (package.json's "imports" names it too). */
export const VENDORED_CHEVROTAIN = 'out/vendor/chevrotain.mjs';

/** chevrotain's single-file build: lib/chevrotain.mjs beside lib/src/api.js, its main entry. */
export function chevrotainBundle(): string {
  const entry = createRequire(path.join(root, 'package.json')).resolve('chevrotain');
  return path.join(path.dirname(entry), '..', 'chevrotain.mjs');
}

export function vendor(): void {
  const source = chevrotainBundle();
  if (!fs.existsSync(source)) throw new Error(`chevrotain's single-file build is not at ${source}; has its package layout changed?`);
  const target = path.join(root, VENDORED_CHEVROTAIN);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(source, target);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) vendor();
