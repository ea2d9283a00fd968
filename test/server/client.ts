// A small LSP client for tests and the benchmark: it spawns the compiled server over stdio and
// speaks JSON-RPC to it as an editor would (vscode-jsonrpc's connection, the protocol's types).
// It keeps every publishDiagnostics, answers the server's own requests (configuration,
// capability registration, refreshes) and records its log messages for assertion messages.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CancellationTokenSource,
  createMessageConnection,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidChangeWatchedFilesNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  IPCMessageReader,
  IPCMessageWriter,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type ApplyWorkspaceEditParams,
  type ClientCapabilities,
  type FileEvent,
  type InitializeResult,
  type LogMessageParams,
  type MessageConnection,
  type Position,
  type PublishDiagnosticsParams,
  type Range,
  type Registration,
  type RegistrationParams,
  type ShowMessageParams,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol/node';

/** The compiled server, beside this compiled helper (out/test/server -> out/server). */
export const SERVER_MAIN = fileURLToPath(new URL('../../server/main.js', import.meta.url));

/** What VS Code 1.100 announces, trimmed to what the server looks at. */
export const VSCODE_LIKE_CAPABILITIES: ClientCapabilities = {
  workspace: {
    configuration: true,
    workspaceFolders: true,
    didChangeWatchedFiles: { dynamicRegistration: true },
    didChangeConfiguration: { dynamicRegistration: true },
    inlayHint: { refreshSupport: true },
    semanticTokens: { refreshSupport: true },
    symbol: {},
  },
  textDocument: {
    synchronization: { didSave: true, dynamicRegistration: false },
    publishDiagnostics: { relatedInformation: true, versionSupport: true },
    rename: { prepareSupport: true },
    codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'refactor', 'source'] } } },
    completion: { completionItem: { snippetSupport: true, documentationFormat: ['markdown', 'plaintext'] } },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    semanticTokens: { requests: { full: true }, tokenTypes: [], tokenModifiers: [], formats: ['relative'] },
    inlayHint: {},
    signatureHelp: { signatureInformation: { parameterInformation: { labelOffsetSupport: true } } },
  },
};

export interface StartOptions {
  /** Files to create in a fresh temporary workspace folder, by relative name. */
  files?: Record<string, string>;
  /** The `rlx` settings section the client answers workspace/configuration with. */
  settings?: unknown;
  capabilities?: ClientCapabilities;
  /** Another server entry (the bundle); default: the compiled server. */
  serverMain?: string;
  /** Extra arguments after the server's path (default `--stdio`); stdio transport only. */
  args?: string[];
  /** How to talk to the server: its stdin/stdout (default), or Node's IPC channel of a forked module. */
  transport?: 'stdio' | 'node-ipc';
  /** `initializationOptions` of the initialize request (`{ workspaceTrusted: true }`). */
  initializationOptions?: unknown;
  /** The server process's environment; this process's by default. */
  env?: NodeJS.ProcessEnv;
}

export interface WaitOptions {
  /** Only a notification for this document version. */
  version?: number;
  /** Only notifications received after this mark (see `mark()`). */
  after?: number;
  timeoutMs?: number;
}

export class TestClient {
  readonly diagnostics: PublishDiagnosticsParams[] = [];
  readonly logs: string[] = [];
  /** window/showMessage notifications: what the user was told. */
  readonly messages: ShowMessageParams[] = [];
  readonly configurationRequests: unknown[] = [];
  readonly registrations: Registration[] = [];
  /** The edits the server asked the client to apply (workspace/applyEdit), all applied. */
  readonly appliedEdits: ApplyWorkspaceEditParams[] = [];
  /** The refresh requests the server sent (`workspace/semanticTokens/refresh`, ...), in order. */
  readonly refreshes: string[] = [];
  settings: unknown;
  initializeResult!: InitializeResult;
  private readonly versions = new Map<string, number>();
  private readonly waiters = new Set<() => void>();
  private stderr = '';
  private readonly exited: Promise<number | null>;

  private constructor(readonly folder: string, readonly process: ChildProcess, readonly connection: MessageConnection, settings: unknown) {
    this.settings = settings;
    process.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => process.on('exit', (code) => resolve(code)));
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.diagnostics.push(params);
      for (const wake of this.waiters) wake();
    });
    connection.onNotification('window/logMessage', (params: LogMessageParams) => {
      this.logs.push(params.message);
    });
    connection.onNotification('window/showMessage', (params: ShowMessageParams) => {
      this.messages.push(params);
    });
    connection.onRequest('workspace/configuration', (params: { items: unknown[] }) => {
      this.configurationRequests.push(params);
      return params.items.map(() => this.settings ?? null);
    });
    connection.onRequest('client/registerCapability', (params: RegistrationParams) => {
      this.registrations.push(...params.registrations);
      return null;
    });
    connection.onRequest('client/unregisterCapability', () => null);
    connection.onRequest('workspace/applyEdit', (params: ApplyWorkspaceEditParams) => {
      this.appliedEdits.push(params);
      return { applied: true };
    });
    for (const method of ['workspace/inlayHint/refresh', 'workspace/semanticTokens/refresh']) {
      connection.onRequest(method, () => {
        this.refreshes.push(method);
        return null;
      });
    }
    connection.onRequest('window/workDoneProgress/create', () => null);
    connection.listen();
  }

  /** Creates the workspace folder, spawns the server and initializes it (requests wait for its first index). */
  static async start(options: StartOptions = {}): Promise<TestClient> {
    const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-lsp-')));
    for (const [name, text] of Object.entries(options.files ?? {})) writeFile(folder, name, text);
    const main = options.serverMain ?? SERVER_MAIN;
    let child: ChildProcess;
    let connection: MessageConnection;
    if (options.transport === 'node-ipc') {
      // As vscode-languageclient starts a server module (TransportKind.ipc).
      child = fork(main, ['--node-ipc', `--clientProcessId=${process.pid}`], { silent: true, ...(options.env ? { env: options.env } : {}) });
      connection = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
    } else {
      child = spawn(process.execPath, [main, ...(options.args ?? ['--stdio'])], { stdio: ['pipe', 'pipe', 'pipe'], ...(options.env ? { env: options.env } : {}) });
      connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    }
    const client = new TestClient(folder, child, connection, options.settings);
    try {
      client.initializeResult = await client.unlessExited(connection.sendRequest(InitializeRequest.type, {
        processId: process.pid,
        rootUri: pathToFileURL(folder).toString(),
        workspaceFolders: [{ uri: pathToFileURL(folder).toString(), name: path.basename(folder) }],
        capabilities: options.capabilities ?? VSCODE_LIKE_CAPABILITIES,
        ...(options.initializationOptions !== undefined ? { initializationOptions: options.initializationOptions } : {}),
      }));
    } catch (err) {
      child.kill();
      connection.dispose();
      fs.rmSync(folder, { recursive: true, force: true });
      throw err;
    }
    await connection.sendNotification(InitializedNotification.type, {});
    return client;
  }

  uri(name: string): string {
    return pathToFileURL(path.join(this.folder, name)).toString();
  }

  /** Writes a file in the workspace folder (as another program would) and returns its URI. */
  write(name: string, text: string): string {
    writeFile(this.folder, name, text);
    return this.uri(name);
  }

  /** Opens a document with the given text (the disk's text when none is given); returns its URI. */
  async open(name: string, text?: string): Promise<string> {
    const uri = this.uri(name);
    this.versions.set(uri, 1);
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'rlx', version: 1, text: text ?? fs.readFileSync(path.join(this.folder, name), 'utf8') },
    });
    return uri;
  }

  /** Sends incremental changes; returns the new version. */
  async change(uri: string, ...changes: TextDocumentContentChangeEvent[]): Promise<number> {
    const version = (this.versions.get(uri) ?? 0) + 1;
    this.versions.set(uri, version);
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges: changes });
    return version;
  }

  /** Replaces `range` with `text` (one incremental change). */
  async edit(uri: string, range: Range, text: string): Promise<number> {
    return this.change(uri, { range, text });
  }

  async close(uri: string): Promise<void> {
    this.versions.delete(uri);
    await this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  }

  async watched(...changes: FileEvent[]): Promise<void> {
    await this.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes });
  }

  /** New settings: kept for the server's next workspace/configuration, and announced. */
  async configure(settings: unknown): Promise<void> {
    this.settings = settings;
    await this.connection.sendNotification(DidChangeConfigurationNotification.type, { settings: { rlx: settings } });
  }

  version(uri: string): number | undefined {
    return this.versions.get(uri);
  }

  /** A position in the diagnostics history: `waitForDiagnostics(uri, { after })` ignores what came before. */
  mark(): number {
    return this.diagnostics.length;
  }

  /** The first publishDiagnostics for `uri` that matches (already received or still to come). */
  async waitForDiagnostics(uri: string, options: WaitOptions = {}): Promise<PublishDiagnosticsParams> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    const find = () => this.diagnostics.slice(options.after ?? 0).find((d) => d.uri === uri && (options.version === undefined || d.version === options.version));
    const found = find();
    if (found) return found;
    return new Promise((resolve, reject) => {
      const wake = () => {
        const hit = find();
        if (!hit) return;
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(hit);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(new Error(`no publishDiagnostics for ${uri}${options.version === undefined ? '' : ` version ${options.version}`} within ${timeoutMs} ms; received:\n${this.diagnostics.map((d) => `  ${d.uri} v${d.version}: ${d.diagnostics.length}`).join('\n')}\nserver log:\n${this.logs.join('\n')}\n${this.stderr}`));
      }, timeoutMs);
      this.waiters.add(wake);
    });
  }

  /** The latest diagnostics published for `uri`, or undefined when none were. */
  latestDiagnostics(uri: string): PublishDiagnosticsParams | undefined {
    return this.diagnostics.filter((d) => d.uri === uri).at(-1);
  }

  request<R>(method: string, params: unknown, token?: CancellationTokenSource): Promise<R> {
    // Without a token, passing `undefined` would be sent as a second positional parameter.
    return this.unlessExited((token ? this.connection.sendRequest(method, params, token.token) : this.connection.sendRequest(method, params)) as Promise<R>);
  }

  /** The answer, or a failure saying the server died (jsonrpc would wait for ever). */
  private unlessExited<R>(answer: Promise<R>): Promise<R> {
    const died = this.exited.then((code) => {
      throw new Error(`the server exited (status ${code}) before answering:\n${this.output()}`);
    });
    return Promise.race([answer, died]);
  }

  /** shutdown, exit, and the server's exit code. */
  async stop(): Promise<number | null> {
    if (this.process.exitCode === null && this.process.signalCode === null) {
      try {
        await this.connection.sendRequest(ShutdownRequest.type);
        await this.connection.sendNotification(ExitNotification.type);
      } catch {
        this.process.kill();
      }
    }
    const code = await this.exited;
    this.connection.dispose();
    fs.rmSync(this.folder, { recursive: true, force: true });
    return code;
  }

  /** The server process's exit status, once it has ended. */
  waitForExit(): Promise<number | null> {
    return this.exited;
  }

  /** What the server wrote to stderr and its log, for assertion messages. */
  output(): string {
    return `${this.logs.join('\n')}\n${this.stderr}`;
  }
}

function writeFile(folder: string, name: string, text: string): void {
  const file = path.join(folder, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** A position from a marked text: the offset of `<|>` as line and character. */
export function cursor(marked: string): { text: string; position: Position } {
  const at = marked.indexOf('<|>');
  if (at < 0) throw new Error(`no <|> cursor in:\n${marked}`);
  const text = marked.slice(0, at) + marked.slice(at + 3);
  return { text, position: positionAt(text, at) };
}

export function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}

/** The range of the `n`th (0-based) occurrence of `needle` in `text`. */
export function rangeOf(text: string, needle: string, n = 0): Range {
  let at = -1;
  for (let i = 0; i <= n; i++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`'${needle}' occurs fewer than ${n + 1} times in:\n${text}`);
  }
  return { start: positionAt(text, at), end: positionAt(text, at + needle.length) };
}
