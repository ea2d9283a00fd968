// Entry point of the language server that editors start: the bundle (dist/server.mjs, which
// the VS Code extension forks with `--node-ipc`) or `node out/cli/server-main.js --stdio`. It is
// server/main.ts with the trainer's Python env probes added (cli/server-services.ts); `rlx lsp`
// starts the same.
import { startServer } from '../server/connection.js';
import { serverServices } from './server-services.js';

try {
  startServer(process.argv.slice(2), serverServices());
} catch (err) {
  // Only a bad command line gets here; stdout is not ours to write to.
  process.stderr.write(`rlx language server: ${(err as Error).message}\nusage: node server-main.js [--stdio | --node-ipc | --socket=PORT | --pipe=NAME]\n`);
  process.exitCode = 2;
}
