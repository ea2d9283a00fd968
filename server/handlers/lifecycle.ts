// The session's life: initialize (what the client can take, what the server offers), the first
// index of the workspace, workspace folders coming and going, settings, shutdown.
import * as path from 'node:path';
import {
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  ErrorCodes,
  ResponseError,
  type InitializeParams,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { serverCapabilities } from '../capabilities.js';
import { uriToPath } from '../context.js';
import { SEMANTIC_TOKENS_LEGEND } from '../features/semantic-tokens.js';
import { WORKSPACE_TRUSTED_NOTIFICATION, WORKSPACE_TRUSTED_OPTION } from '../protocol.js';
import { parseSettings, SETTINGS_SECTION } from '../settings.js';
import type { Session } from './session.js';

/** Requests wait for the settings; a client that never answers must not hold them for ever. */
const SETTINGS_TIMEOUT_MS = 2000;

/** User env modules (`module("./x.ts")`, runtime/envs/user-module.ts): what they declare is checked, so their changes re-check the specs that read them. */
const ENV_MODULE_GLOB = '**/*.{ts,js,mjs}';

export function registerLifecycle(session: Session): void {
  const { connection, workspace } = session;

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    session.initialize(params.capabilities);
    workspace.setFolders(workspaceFolders(params));
    const options = params.initializationOptions as Record<string, unknown> | null | undefined;
    if (options?.[WORKSPACE_TRUSTED_OPTION] === true) session.trustWorkspace();
    return {
      capabilities: serverCapabilities(params.capabilities, SEMANTIC_TOKENS_LEGEND, { completionResolve: false }),
      serverInfo: { name: 'rlx' },
    };
  });

  connection.onInitialized(() => {
    const ws = session.client?.workspace;
    if (ws?.didChangeWatchedFiles?.dynamicRegistration) {
      void connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: '**/*.rlx' }, { globPattern: ENV_MODULE_GLOB }] });
    }
    if (ws?.didChangeConfiguration?.dynamicRegistration) {
      void connection.client.register(DidChangeConfigurationNotification.type, { section: SETTINGS_SECTION });
    }
    if (ws?.workspaceFolders) {
      connection.workspace.onDidChangeWorkspaceFolders((event) => {
        const removed = new Set(event.removed.map((f) => uriToPath(f.uri)));
        workspace.setFolders([...workspace.workspaceFolders.filter((f) => !removed.has(f)), ...event.added.map((f) => uriToPath(f.uri))]);
        session.indexed = indexWorkspace(session);
      });
    }
    session.settingsLoaded = loadSettings(session);
    session.indexed = indexWorkspace(session);
  });

  connection.onDidChangeConfiguration((params) => {
    session.settingsLoaded = loadSettings(session, params.settings);
  });

  connection.onNotification(WORKSPACE_TRUSTED_NOTIFICATION, () => session.trustWorkspace());

  connection.onShutdown(() => session.publisher.dispose());

  // Methods the server does not know: before `initialize` the protocol's answer is still
  // ServerNotInitialized, after it MethodNotFound.
  connection.onRequest((method) => {
    session.requireInitialized();
    throw new ResponseError(ErrorCodes.MethodNotFound, `the rlx server has no method '${method}'`);
  });
}

/** The folders to index: the workspace folders, or the older root URI / root path. */
function workspaceFolders(params: InitializeParams): string[] {
  if (params.workspaceFolders) return params.workspaceFolders.map((f) => uriToPath(f.uri));
  if (params.rootUri) return [uriToPath(params.rootUri)];
  if (params.rootPath) return [path.resolve(params.rootPath)];
  return [];
}

/** Indexes and checks every .rlx file of the folders; never rejects. */
async function indexWorkspace(session: Session): Promise<void> {
  try {
    const started = performance.now();
    const { found, removed } = await session.workspace.scan();
    session.publisher.schedule(removed); // gone from the index (a folder was removed): cleared
    session.publisher.publishAll();
    session.log(`rlx: ${found.length} .rlx file(s) in ${session.workspace.workspaceFolders.length} folder(s), checked in ${Math.round(performance.now() - started)} ms`);
  } catch (err) {
    session.logError('indexing the workspace', err);
  }
}

/** Asks the client for the settings (or reads those it pushed); never rejects. */
async function loadSettings(session: Session, pushed?: unknown): Promise<void> {
  const { connection, client } = session;
  try {
    const raw = client?.workspace?.configuration
      ? await withinTime(connection.workspace.getConfiguration({ section: SETTINGS_SECTION }), SETTINGS_TIMEOUT_MS)
      : (pushed as Record<string, unknown> | undefined)?.[SETTINGS_SECTION];
    session.workspace.settings = parseSettings(raw);
    if (client?.workspace?.inlayHint?.refreshSupport) void connection.languages.inlayHint.refresh();
  } catch (err) {
    session.logError('reading the rlx settings', err);
  }
}

function withinTime<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms; keeping the previous settings`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
