// How the server talks to its client, from its command line: `--stdio` (Neovim, Helix, Emacs,
// `rlx lsp`), `--node-ipc` (what vscode-languageclient passes when it forks the module), or a
// socket or pipe. Other arguments (`--clientProcessId=N`) are not ours and are ignored.
export type Transport =
  | { kind: 'stdio' }
  | { kind: 'node-ipc' }
  | { kind: 'socket'; port: number }
  | { kind: 'pipe'; name: string };

/** The transport the arguments ask for; stdio when they name none. Throws on a malformed one. */
export function parseTransport(argv: readonly string[]): Transport {
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = splitFlag(argv[i]);
    if (flag === '--stdio') return { kind: 'stdio' };
    if (flag === '--node-ipc') return { kind: 'node-ipc' };
    if (flag === '--socket' || flag === '--port') {
      const value = inline ?? argv[i + 1];
      const port = Number(value);
      if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`${flag} needs a port number, got '${value ?? ''}'`);
      return { kind: 'socket', port };
    }
    if (flag === '--pipe') {
      const name = inline ?? argv[i + 1];
      if (!name) throw new Error('--pipe needs a pipe name');
      return { kind: 'pipe', name };
    }
  }
  return { kind: 'stdio' };
}

function splitFlag(arg: string): [string, string | undefined] {
  const eq = arg.indexOf('=');
  return eq < 0 ? [arg, undefined] : [arg.slice(0, eq), arg.slice(eq + 1)];
}
