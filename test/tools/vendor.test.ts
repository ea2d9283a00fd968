// The dsl loads chevrotain's single-file build through "#chevrotain" (tools/vendor.ts says why):
// the mapping must reach the copy, and the copy must be the installed chevrotain's.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { chevrotainBundle, VENDORED_CHEVROTAIN } from '../../tools/vendor.js';
import { repoRoot } from '../helpers/repo.js';

test('"#chevrotain" resolves to the vendored single file, a copy of the installed chevrotain\'s own', async () => {
  const resolved = fileURLToPath(import.meta.resolve('#chevrotain'));
  assert.equal(resolved, path.join(repoRoot(), VENDORED_CHEVROTAIN));
  assert.ok(fs.readFileSync(resolved).equals(fs.readFileSync(chevrotainBundle())), 'out/vendor/chevrotain.mjs differs from chevrotain\'s lib/chevrotain.mjs: run npm run build');
  // chevrotain's exports do not include its package.json: read it beside its main entry.
  const entry = createRequire(path.join(repoRoot(), 'package.json')).resolve('chevrotain');
  const installed = JSON.parse(fs.readFileSync(path.join(path.dirname(entry), '../../package.json'), 'utf8')) as { version: string };
  const vendored = (await import('#chevrotain')) as { VERSION: string };
  assert.equal(vendored.VERSION, installed.version);
});
