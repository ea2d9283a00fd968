// What the handlers share: the connection, the workspace, what the client can take, the
// diagnostics publisher, and the one way a request about a document is served.
//
// Versions: a request speaks of the document as it was when the request arrived. If an edit
// lands before the request is served, its positions no longer fit the text, so it is answered
// with ContentModified (clients drop such requests silently or ask again), never with an answer
// computed against the newer text. Within one request the analysis, the feature and the answer
// happen in one synchronous step, so nothing can change the document in between.
import {
  ErrorCodes,
  LSPErrorCodes,
  ResponseError,
  type CancellationToken,
  type ClientCapabilities,
  type Connection,
  type TextDocumentIdentifier,
} from 'vscode-languageserver/node';
import { clientSupport, type ClientSupport } from '../client-support.js';
import type { DocumentContext } from '../context.js';
import { toLspDiagnostics } from '../features/diagnostics.js';
import { RenameError } from '../features/rename.js';
import { tooLargeDiagnostic } from '../limits.js';
import { pythonEnvKey } from '../../dsl/index.js';
import { DiagnosticsPublisher } from '../publisher.js';
import { TrustedPythonEnvs, type ServerServices } from '../python-envs.js';
import { remapUris } from '../uris.js';
import { ServerWorkspace } from '../workspace.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Session {
  readonly workspace: ServerWorkspace;
  readonly publisher: DiagnosticsPublisher;
  /** Python env probes, allowed once the client says the workspace is trusted (python-envs.ts). */
  readonly pythonEnvs: TrustedPythonEnvs;
  /** What the client announced in `initialize`; requests before it are refused. */
  client: ClientCapabilities | undefined;
  /** The same, as the forms of answers it takes. */
  support: ClientSupport = clientSupport({});
  /** Requests wait for the first index of the workspace (so importers are known) and for the settings; neither ever rejects. */
  indexed: Promise<void> = Promise.resolve();
  settingsLoaded: Promise<void> = Promise.resolve();

  constructor(readonly connection: Connection, services: ServerServices = {}) {
    // A probe that answers re-checks the files that asked about its env, and publishes what changed.
    this.pythonEnvs = new TrustedPythonEnvs(services.pythonEnvProbes, (query) => {
      this.log(`rlx: probed the Python env ${query.file ?? `gymnasium("${query.id}")`}`);
      this.publisher.schedule(this.workspace.readersOfPythonEnv(pythonEnvKey(query)));
    });
    this.workspace = new ServerWorkspace(this.pythonEnvs);
    this.publisher = new DiagnosticsPublisher(this.workspace, {
      convert: (doc) => {
        const tooLarge = this.workspace.tooLarge(doc.unit.path);
        return tooLarge === undefined ? toLspDiagnostics(doc) : [tooLargeDiagnostic(doc.unit.path, tooLarge)];
      },
      publish: (uri, version, diagnostics) => {
        const related = this.client?.textDocument?.publishDiagnostics?.relatedInformation ?? false;
        const shown = related ? diagnostics : diagnostics.map(({ relatedInformation: _, ...d }) => d);
        void connection.sendDiagnostics({ uri, version, diagnostics: this.remap(shown) });
      },
      onError: (err) => this.logError('diagnostics', err),
      // Editors ask again for the tokens and hints of the document being edited, not of the
      // open files that import it; they are told to.
      onImportersChanged: (paths) => {
        if (!paths.some((p) => this.workspace.isOpen(p))) return;
        if (this.client?.workspace?.semanticTokens?.refreshSupport) void connection.languages.semanticTokens.refresh();
        if (this.client?.workspace?.inlayHint?.refreshSupport) void connection.languages.inlayHint.refresh();
      },
    });
  }

  initialize(client: ClientCapabilities): void {
    this.client = client;
    this.support = clientSupport(client);
  }

  /** The client says the workspace is trusted: probes may run, and the files with Python envs are checked again. */
  trustWorkspace(): void {
    if (!this.pythonEnvs.trust()) return;
    this.publisher.schedule(this.workspace.readersOfPythonEnv());
  }

  log(message: string): void {
    this.connection.console.log(message);
  }

  logError(what: string, err: unknown): void {
    this.connection.console.error(`${what}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  }

  /** Features name files by their path's URI; the client may spell an open document's URI otherwise. */
  remap<T>(value: T): T {
    return remapUris(value, this.workspace.clientUris());
  }

  /**
   * A handler for a request about one document. `neutral` is the answer when the document is
   * unknown or the feature fails; `run` is the feature call, given what the client can take.
   * `needs: 'model'` for features that read names only, no diagnostics and no importers: they
   * answer from the parses without waiting for a re-check (workspace.modelContext).
   */
  onDocument<P extends { textDocument: TextDocumentIdentifier }, R>(
    what: string,
    neutral: R,
    run: (doc: DocumentContext, params: P, support: ClientSupport) => R,
    needs: 'analysis' | 'model' = 'analysis',
  ) {
    return async (params: P, token: CancellationToken): Promise<R> => {
      const support = this.requireInitialized();
      // A client's malformed request gets InvalidParams saying what is missing, not a TypeError from reading it.
      const given = (params as { textDocument?: { uri?: unknown } } | null | undefined)?.textDocument?.uri;
      if (typeof given !== 'string') throw new ResponseError(ErrorCodes.InvalidParams, `${what} needs params.textDocument.uri, the document's URI as a string`);
      const uri = params.textDocument.uri;
      const version = this.workspace.versionOf(uri);
      await this.settled(token);
      if (this.workspace.versionOf(uri) !== version) {
        throw new ResponseError(LSPErrorCodes.ContentModified, `the document changed (version ${version} -> ${this.workspace.versionOf(uri)}) before ${what} could answer`);
      }
      try {
        // A file over the size limit is analysed as empty: an answer about that text would be wrong (and formatting it would delete the file).
        if (this.workspace.tooLarge(this.workspace.pathOf(uri)) !== undefined) return neutral;
        const doc = needs === 'model' ? this.workspace.modelContext(uri) : this.workspace.context(uri);
        if (!doc) return neutral;
        return this.remap(run(doc.context, params, support));
      } catch (err) {
        if (err instanceof RenameError) throw new ResponseError(LSPErrorCodes.RequestFailed, err.message);
        this.logError(`${what} failed at ${uri}`, err);
        return neutral;
      }
    };
  }

  /** A handler for a request about the whole workspace (workspace symbols). */
  onWorkspace<P, R>(what: string, neutral: R, run: (params: P, support: ClientSupport) => R) {
    return async (params: P, token: CancellationToken): Promise<R> => {
      const support = this.requireInitialized();
      await this.settled(token);
      try {
        return this.remap(run(params, support));
      } catch (err) {
        this.logError(`${what} failed`, err);
        return neutral;
      }
    };
  }

  /** The protocol says a request before `initialize` is answered with ServerNotInitialized. */
  requireInitialized(): ClientSupport {
    if (!this.client) throw new ResponseError(ErrorCodes.ServerNotInitialized, 'the server is not initialized: send `initialize` first');
    return this.support;
  }

  /** Waits for the index and the settings, then one turn so that a $/cancelRequest or didChange sent right after the request is seen. */
  private async settled(token: CancellationToken): Promise<void> {
    await this.indexed;
    await this.settingsLoaded;
    await nextTurn();
    if (token.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'request cancelled');
  }
}
