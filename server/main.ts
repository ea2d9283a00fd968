// Entry point of the rlx language server process: `node out/server/main.js --stdio`, the bundle
// (dist/server.mjs), or a module that vscode-languageclient forks with `--node-ipc`.
// `rlx lsp` starts the same server through connection.ts.
import { startServer } from './connection.js';

try {
  startServer(process.argv.slice(2));
} catch (err) {
  // Only a bad command line gets here; stdout is not ours to write to.
  process.stderr.write(`rlx language server: ${(err as Error).message}\nusage: node server/main.js [--stdio | --node-ipc | --socket=PORT | --pipe=NAME]\n`);
  process.exitCode = 2;
}
