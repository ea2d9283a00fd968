// The language client: starts the bundled server (dist/server.mjs) in a Node process over IPC,
// and asks it the two rlx requests (experiments of a document, plan of an experiment).
import * as vscode from 'vscode';
import { LanguageClient, State, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { EXPERIMENTS_METHOD, PLAN_METHOD, WORKSPACE_TRUSTED_NOTIFICATION, WORKSPACE_TRUSTED_OPTION, type ExperimentsParams, type ExperimentsResult, type PlanParams, type PlanResult } from '../../server/protocol.js';

export type ServerState = 'starting' | 'running' | 'stopped' | 'failed';

export class RlxClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  readonly onDidChangeState = this.stateEmitter.event;
  private current: ServerState = 'stopped';
  /** Why the last start failed, for the status item and messages. */
  lastError: string | undefined;
  readonly outputChannel: vscode.LogOutputChannel;

  constructor(private readonly extension: vscode.ExtensionContext) {
    // One channel for every client this session starts: a restart keeps the earlier log.
    this.outputChannel = vscode.window.createOutputChannel('rlx Language Server', { log: true });
  }

  get state(): ServerState {
    return this.current;
  }

  private setState(state: ServerState): void {
    if (state === this.current) return;
    this.current = state;
    this.stateEmitter.fire(state);
  }

  async start(): Promise<void> {
    const module = this.extension.asAbsolutePath('dist/server.mjs');
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc },
      debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'rlx' },
        { scheme: 'untitled', language: 'rlx' },
      ],
      // The server pulls `rlx` with workspace/configuration; this tells it when to pull again.
      synchronize: { configurationSection: 'rlx' },
      outputChannel: this.outputChannel,
      // The server runs the workspace's Python (to learn a gymnasium env's spaces) only when trusted.
      initializationOptions: { [WORKSPACE_TRUSTED_OPTION]: vscode.workspace.isTrusted },
    };
    const client = new LanguageClient('rlx', 'rlx Language Server', serverOptions, clientOptions);
    this.client = client;
    client.onDidChangeState((e) => {
      if (this.client !== client) return;
      if (e.newState === State.Starting) this.setState('starting');
      else if (e.newState === State.Running) this.setState('running');
      else if (this.current !== 'failed') this.setState('stopped');
    });
    this.setState('starting');
    this.lastError = undefined;
    try {
      await client.start();
      this.setState('running');
    } catch (err) {
      this.lastError = (err as Error).message;
      this.setState('failed');
      this.outputChannel.error(`The server did not start: ${this.lastError}`);
      void vscode.window
        .showErrorMessage(`The rlx language server did not start: ${this.lastError}`, 'Show Log', 'Restart')
        .then((choice) => {
          if (choice === 'Show Log') this.outputChannel.show();
          if (choice === 'Restart') void vscode.commands.executeCommand('rlx.restartServer');
        });
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client?.isRunning()) {
      try {
        await client.stop(2000);
      } catch (err) {
        this.outputChannel.warn(`Stopping the server: ${(err as Error).message}`);
      }
    }
    this.setState('stopped');
  }

  /** Trust was granted while the server runs: it may probe Python envs from now on (a server started later reads isTrusted). */
  async workspaceTrusted(): Promise<void> {
    const client = this.client;
    if (client && this.current === 'running') await client.sendNotification(WORKSPACE_TRUSTED_NOTIFICATION);
  }

  /** The experiments and sweeps of a document, or undefined while the server is not running. */
  async experiments(uri: vscode.Uri, token?: vscode.CancellationToken): Promise<ExperimentsResult | undefined> {
    const client = this.client;
    if (!client || this.current !== 'running') return undefined;
    const params: ExperimentsParams = { textDocument: { uri: client.code2ProtocolConverter.asUri(uri) } };
    // An undefined token would be sent as a second parameter: pass it only when there is one.
    return token ? client.sendRequest<ExperimentsResult>(EXPERIMENTS_METHOD, params, token) : client.sendRequest<ExperimentsResult>(EXPERIMENTS_METHOD, params);
  }

  async plan(uri: vscode.Uri, name: string): Promise<PlanResult | undefined> {
    const client = this.client;
    if (!client || this.current !== 'running') return undefined;
    const params: PlanParams = { textDocument: { uri: client.code2ProtocolConverter.asUri(uri) }, name };
    return client.sendRequest<PlanResult>(PLAN_METHOD, params);
  }

  asRange(range: ExperimentsResult[number]['range']): vscode.Range {
    return this.client ? this.client.protocol2CodeConverter.asRange(range) : new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
    this.outputChannel.dispose();
  }
}
