// The only module that talks LSP. Each request: find the document, let a cancellation or an edit
// sent just after it arrive, make the document's analysis current, call the feature (a pure
// function of a DocumentContext) and hand its answer back. Features never see the connection;
// their failures are logged and answered with an empty result, never a crash.
//
// Versions: a request speaks of the document as it was when the request arrived. If an edit
// lands before the request is served, its positions no longer fit the text, so it is answered
// with ContentModified (clients drop such requests silently or ask again), never with an answer
// computed against the newer text. Within one request the analysis, the feature and the answer
// happen in one synchronous step, so nothing can change the document in between.
import * as path from 'node:path';
import {
  createConnection,
  createServerPipeTransport,
  createServerSocketTransport,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  FileChangeType,
  IPCMessageReader,
  IPCMessageWriter,
  LSPErrorCodes,
  ProposedFeatures,
  ResponseError,
  TextDocuments,
  type CancellationToken,
  type ClientCapabilities,
  type Connection,
  type ConnectionOptions,
  type InitializeParams,
  type InitializeResult,
  type RequestMessage,
  type TextDocumentIdentifier,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { uriToPath, type DocumentContext } from './context.js';
import { serverCapabilities } from './capabilities.js';
import { DiagnosticsPublisher } from './publisher.js';
import { EXPERIMENTS_METHOD, PLAN_METHOD, type ExperimentsParams, type PlanParams } from './protocol.js';
import { parseSettings, SETTINGS_SECTION } from './settings.js';
import { parseTransport, type Transport } from './transport.js';
import { remapUris } from './uris.js';
import { ServerWorkspace, type FileChangeKind } from './workspace.js';
import { codeActions } from './features/code-actions.js';
import { completion } from './features/completion/index.js';
import { definition } from './features/definition.js';
import { toLspDiagnostics } from './features/diagnostics.js';
import { experiments, planFor } from './features/experiments.js';
import { foldingRanges } from './features/folding.js';
import { formatDocument, formatRange } from './features/formatting.js';
import { documentHighlights } from './features/highlight.js';
import { hover } from './features/hover.js';
import { inlayHints } from './features/inlay-hints.js';
import { references } from './features/references.js';
import { prepareRename, rename, RenameError } from './features/rename.js';
import { selectionRanges } from './features/selection.js';
import { SEMANTIC_TOKENS_LEGEND, semanticTokens } from './features/semantic-tokens.js';
import { signatureHelp } from './features/signature-help.js';
import { documentSymbols, workspaceSymbols } from './features/symbols.js';

/** Starts the server on the transport its arguments name (stdio by default). */
export function startServer(argv: readonly string[]): Connection {
  const connection = openConnection(parseTransport(argv));
  serve(connection);
  connection.listen();
  return connection;
}

// A request the client cancels while it still waits in the queue is answered at once, without
// running its handler (jsonrpc's default would run it anyway).
const CONNECTION_OPTIONS: ConnectionOptions = {
  connectionStrategy: {
    cancelUndispatched: (message) => ({
      jsonrpc: '2.0',
      id: (message as RequestMessage).id,
      error: new ResponseError(LSPErrorCodes.RequestCancelled, 'request cancelled').toJson(),
    }),
  },
};

function openConnection(transport: Transport): Connection {
  switch (transport.kind) {
    case 'stdio':
      // Passing the streams (not reader objects) keeps the library's exit when stdin closes.
      return createConnection(ProposedFeatures.all, process.stdin, process.stdout, CONNECTION_OPTIONS);
    case 'node-ipc':
      return createConnection(ProposedFeatures.all, new IPCMessageReader(process), new IPCMessageWriter(process), CONNECTION_OPTIONS);
    case 'socket': {
      const [reader, writer] = createServerSocketTransport(transport.port);
      return createConnection(ProposedFeatures.all, reader, writer, CONNECTION_OPTIONS);
    }
    case 'pipe': {
      const [reader, writer] = createServerPipeTransport(transport.name);
      return createConnection(ProposedFeatures.all, reader, writer, CONNECTION_OPTIONS);
    }
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Requests wait for the settings; a client that never answers must not hold them for ever. */
const SETTINGS_TIMEOUT_MS = 2000;

function withinTime<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms; keeping the previous settings`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const WATCHED_KINDS: Record<number, FileChangeKind> = {
  [FileChangeType.Created]: 'created',
  [FileChangeType.Changed]: 'changed',
  [FileChangeType.Deleted]: 'deleted',
};

function serve(connection: Connection): void {
  const log = (message: string) => connection.console.log(message);
  const logError = (what: string, err: unknown) =>
    connection.console.error(`${what}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);

  // Whatever else in the process prints goes to the client's log, never into the protocol's stdout.
  routeConsole(connection);
  process.on('uncaughtException', (err) => logError('uncaught exception', err));
  process.on('unhandledRejection', (err) => logError('unhandled rejection', err));

  const workspace = new ServerWorkspace();
  const documents = new TextDocuments(TextDocument);
  let client: ClientCapabilities = {};
  let relatedInformation = true;
  const publisher = new DiagnosticsPublisher(workspace, {
    convert: (doc) => toLspDiagnostics(doc),
    publish: (uri, version, diagnostics) => {
      const shown = relatedInformation ? diagnostics : diagnostics.map(({ relatedInformation: _, ...d }) => d);
      void connection.sendDiagnostics({ uri, version, diagnostics: remapUris(shown, workspace.clientUris()) });
    },
    onError: (err) => logError('diagnostics', err),
    // Editors ask again for the tokens and hints of the document being edited, not of the
    // open files that import it; they are told to.
    onImportersChanged: (paths) => {
      if (!paths.some((p) => workspace.isOpen(p))) return;
      if (client.workspace?.semanticTokens?.refreshSupport) void connection.languages.semanticTokens.refresh();
      if (client.workspace?.inlayHint?.refreshSupport) void connection.languages.inlayHint.refresh();
    },
  });

  // Requests wait for the first index of the workspace (so importers are known) and for the
  // settings. Neither promise ever rejects.
  let ready: Promise<void> = Promise.resolve();
  let settingsLoaded: Promise<void> = Promise.resolve();

  async function loadSettings(pushed?: unknown): Promise<void> {
    try {
      const raw = client.workspace?.configuration
        ? await withinTime(connection.workspace.getConfiguration({ section: SETTINGS_SECTION }), SETTINGS_TIMEOUT_MS)
        : (pushed as Record<string, unknown> | undefined)?.[SETTINGS_SECTION];
      workspace.settings = parseSettings(raw);
      if (client.workspace?.inlayHint?.refreshSupport) void connection.languages.inlayHint.refresh();
    } catch (err) {
      logError('reading the rlx settings', err);
    }
  }

  async function indexWorkspace(): Promise<void> {
    try {
      const started = performance.now();
      const { found, removed } = await workspace.scan();
      publisher.schedule(removed); // gone from the index (a folder was removed): cleared
      publisher.publishAll();
      log(`rlx: ${found.length} .rlx file(s) in ${workspace.workspaceFolders.length} folder(s), checked in ${Math.round(performance.now() - started)} ms`);
    } catch (err) {
      logError('indexing the workspace', err);
    }
  }

  /**
   * A handler for a request about one document. `neutral` is the answer when the document is
   * unknown or the feature fails; `run` is the feature call.
   */
  function onDocument<P extends { textDocument: TextDocumentIdentifier }, R>(what: string, neutral: R, run: (doc: DocumentContext, params: P) => R) {
    return async (params: P, token: CancellationToken): Promise<R> => {
      const uri = params.textDocument.uri;
      const version = workspace.versionOf(uri);
      await ready;
      await settingsLoaded;
      await nextTurn(); // a $/cancelRequest or didChange sent right after the request is seen now
      if (token.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'request cancelled');
      if (workspace.versionOf(uri) !== version) {
        throw new ResponseError(LSPErrorCodes.ContentModified, `the document changed (version ${version} -> ${workspace.versionOf(uri)}) before ${what} could answer`);
      }
      try {
        const doc = workspace.context(uri);
        if (!doc) return neutral;
        return remapUris(run(doc.context, params), workspace.clientUris());
      } catch (err) {
        if (err instanceof RenameError) throw new ResponseError(LSPErrorCodes.RequestFailed, err.message);
        logError(`${what} failed at ${uri}`, err);
        return neutral;
      }
    };
  }

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    client = params.capabilities;
    relatedInformation = client.textDocument?.publishDiagnostics?.relatedInformation ?? false;
    workspace.setFolders(workspaceFolders(params));
    return {
      capabilities: serverCapabilities(client, SEMANTIC_TOKENS_LEGEND, { completionResolve: false }),
      serverInfo: { name: 'rlx' },
    };
  });

  connection.onInitialized(() => {
    const ws = client.workspace;
    if (ws?.didChangeWatchedFiles?.dynamicRegistration) {
      void connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: '**/*.rlx' }] });
    }
    if (ws?.didChangeConfiguration?.dynamicRegistration) {
      void connection.client.register(DidChangeConfigurationNotification.type, { section: SETTINGS_SECTION });
    }
    if (ws?.workspaceFolders) {
      connection.workspace.onDidChangeWorkspaceFolders((event) => {
        const removed = new Set(event.removed.map((f) => uriToPath(f.uri)));
        const folders = [...workspace.workspaceFolders.filter((f) => !removed.has(f)), ...event.added.map((f) => uriToPath(f.uri))];
        workspace.setFolders(folders);
        ready = indexWorkspace();
      });
    }
    settingsLoaded = loadSettings();
    ready = indexWorkspace();
  });

  connection.onDidChangeConfiguration((params) => {
    settingsLoaded = loadSettings(params.settings);
  });

  connection.onDidChangeWatchedFiles((params) => {
    const changes = params.changes.map((c) => ({ uri: c.uri, kind: WATCHED_KINDS[c.type] ?? 'changed' }));
    publisher.schedule(workspace.filesChanged(changes));
  });

  documents.onDidChangeContent((e) => publisher.schedule([workspace.documentChanged(e.document)]));
  documents.onDidClose((e) => publisher.schedule([workspace.documentClosed(e.document)]));
  documents.onDidSave((e) => workspace.documentSaved(e.document));
  documents.listen(connection);

  connection.onShutdown(() => publisher.dispose());

  // --- Features ---------------------------------------------------------------------------

  connection.onCompletion(onDocument('completion', [], (doc, p) => {
    // A space triggers completion only where a value or base comes next (`env: |`, `= |`).
    if (p.context?.triggerCharacter === ' ' && !afterColonOrEquals(doc, p.position)) return [];
    return completion(doc, p.position);
  }));
  connection.onHover(onDocument('hover', null, (doc, p) => hover(doc, p.position)));
  connection.onDefinition(onDocument('definition', [], (doc, p) => definition(doc, p.position)));
  connection.onReferences(onDocument('references', [], (doc, p) => references(doc, p.position, p.context.includeDeclaration)));
  connection.onDocumentHighlight(onDocument('document highlight', [], (doc, p) => documentHighlights(doc, p.position)));
  connection.onPrepareRename(onDocument('prepare rename', null, (doc, p) => prepareRename(doc, p.position)));
  connection.onRenameRequest(onDocument('rename', null, (doc, p) => rename(doc, p.position, p.newName)));
  connection.onDocumentSymbol(onDocument('document symbols', [], (doc) => documentSymbols(doc)));
  connection.onFoldingRanges(onDocument('folding ranges', [], (doc) => foldingRanges(doc)));
  connection.onSelectionRanges(onDocument('selection ranges', [], (doc, p) => selectionRanges(doc, p.positions)));
  connection.languages.semanticTokens.on(onDocument('semantic tokens', { data: [] }, (doc) => semanticTokens(doc)));
  connection.onDocumentFormatting(onDocument('formatting', [], (doc, p) => formatDocument(doc, p.options)));
  connection.onDocumentRangeFormatting(onDocument('range formatting', [], (doc, p) => formatRange(doc, p.range, p.options)));
  connection.onCodeAction(onDocument('code actions', [], (doc, p) => codeActions(doc, p.range, p.context.only)));
  connection.languages.inlayHint.on(onDocument('inlay hints', [], (doc, p) => inlayHints(doc, p.range)));
  connection.onSignatureHelp(onDocument('signature help', null, (doc, p) => signatureHelp(doc, p.position)));
  connection.onRequest(EXPERIMENTS_METHOD, onDocument('rlx/experiments', [], (doc, _p: ExperimentsParams) => experiments(doc)));
  connection.onRequest(PLAN_METHOD, onDocument('rlx/plan', { ok: false as const, error: 'no such document' }, (doc, p: PlanParams) => planFor(doc, p.name)));

  connection.onWorkspaceSymbol(async (params, token) => {
    await ready;
    await nextTurn();
    if (token.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'request cancelled');
    try {
      return remapUris(workspaceSymbols(workspace.workspaceModel(), params.query), workspace.clientUris());
    } catch (err) {
      logError('workspace symbols failed', err);
      return [];
    }
  });
}

/** The folders to index: the workspace folders, or the older root URI / root path. */
function workspaceFolders(params: InitializeParams): string[] {
  if (params.workspaceFolders) return params.workspaceFolders.map((f) => uriToPath(f.uri));
  if (params.rootUri) return [uriToPath(params.rootUri)];
  if (params.rootPath) return [path.resolve(params.rootPath)];
  return [];
}

function afterColonOrEquals(doc: DocumentContext, position: { line: number; character: number }): boolean {
  const offset = doc.lines.offset(position);
  const lineStart = doc.lines.offset({ line: position.line, character: 0 });
  const before = doc.unit.text.slice(lineStart, offset).trimEnd();
  return before.endsWith(':') || before.endsWith('=');
}

/** console.* into the client's log: on stdio, stdout belongs to the protocol. */
function routeConsole(connection: Connection): void {
  const show = (a: unknown): string => {
    if (typeof a === 'string') return a;
    if (a instanceof Error) return a.stack ?? a.message;
    try {
      return JSON.stringify(a) ?? String(a);
    } catch {
      return String(a); // a cycle
    }
  };
  const format = (args: unknown[]) => args.map(show).join(' ');
  console.log = (...args: unknown[]) => connection.console.log(format(args));
  console.info = (...args: unknown[]) => connection.console.info(format(args));
  console.debug = (...args: unknown[]) => connection.console.log(format(args));
  console.warn = (...args: unknown[]) => connection.console.warn(format(args));
  console.error = (...args: unknown[]) => connection.console.error(format(args));
}
