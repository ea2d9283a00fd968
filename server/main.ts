// Entry point of the rlx language server process without Python env probes: `node out/server/main.js --stdio`,
// or a module that vscode-languageclient forks with `--node-ipc`.
// `rlx lsp` starts the same server through connection.ts. This entry runs no Python: the
// editors' entry, cli/server-main.ts (bundled as dist/server.mjs), adds the Python env probes.
import { startServer } from './connection.js';

try {
  startServer(process.argv.slice(2));
} catch (err) {
  // Only a bad command line gets here; stdout is not ours to write to.
  process.stderr.write(`rlx language server: ${(err as Error).message}\nusage: node server/main.js [--stdio | --node-ipc | --socket=PORT | --pipe=NAME]\n`);
  process.exitCode = 2;
}
