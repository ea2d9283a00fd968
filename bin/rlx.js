#!/usr/bin/env node
// The `rlx` command: runs the compiled command line (`npm run build` compiles it into out/).
import { existsSync } from 'node:fs';

const entry = new URL('../out/cli/run.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('rlx: not built yet (no out/cli/run.js); run `npm run build` in the rlx folder first\n');
  process.exit(2);
}
await import(entry.href);
