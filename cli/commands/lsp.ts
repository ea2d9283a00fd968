// rlx lsp [--stdio]: the rlx language server, for editors that start a command (Neovim, Helix,
// Emacs...). The server is imported only here, so other commands never load it.
import type { Command } from '../command.js';
import { UserError } from '../files.js';

const usage = 'rlx lsp [--stdio | --node-ipc | --socket=PORT | --pipe=NAME]';

export const lspCommand: Command = {
  name: 'lsp',
  summary: 'run the rlx language server (stdio by default), for editors',
  usage,
  async run(argv) {
    const { startServer } = await import('../../server/connection.js');
    const { serverServices } = await import('../server-services.js');
    try {
      startServer(argv, serverServices());
    } catch (err) {
      throw new UserError(`${(err as Error).message}\nusage: ${usage}`);
    }
    // The server ends the process itself: on `exit` from the client, or when its input closes.
    return new Promise<number>(() => {});
  },
};
