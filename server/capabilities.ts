// What the server offers (the initialize result), shaped by what the client can take.
import {
  CodeActionKind,
  TextDocumentSyncKind,
  type ClientCapabilities,
  type SemanticTokensLegend,
  type ServerCapabilities,
} from 'vscode-languageserver';
import { clientSupport } from './client-support.js';
import { APPLY_FIX_COMMAND } from './features/code-actions.js';

/**
 * Completion triggers. A space triggers too, but the server answers it only right after `:` or
 * `=` (see features/completion/index.ts), where a value or a base is what comes next.
 */
export const COMPLETION_TRIGGERS = ['.', ':', '=', ' ', '"', '/'];
/** Triggers answered only inside the folder path of `pretrained("...")` (features/completion/folders.ts). */
export const PATH_TRIGGERS = ['"', '/'];
export const SIGNATURE_TRIGGERS = ['(', ','];

export function serverCapabilities(client: ClientCapabilities, legend: SemanticTokensLegend, options: { completionResolve: boolean }): ServerCapabilities {
  const text = client.textDocument;
  const support = clientSupport(client);
  // Fixes reach a client as CodeAction literals, or as commands the server runs by asking the
  // client to apply an edit; a client that takes neither gets no code actions at all.
  const fixesAsCommands = !support.codeActionLiterals && support.applyEdit;
  return {
    // LineIndex counts UTF-16 code units, the encoding every client supports.
    positionEncoding: 'utf-16',
    textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
    completionProvider: { triggerCharacters: COMPLETION_TRIGGERS, resolveProvider: options.completionResolve },
    hoverProvider: true,
    definitionProvider: true,
    referencesProvider: true,
    documentHighlightProvider: true,
    renameProvider: text?.rename?.prepareSupport ? { prepareProvider: true } : true,
    documentSymbolProvider: true,
    workspaceSymbolProvider: true,
    foldingRangeProvider: true,
    selectionRangeProvider: true,
    semanticTokensProvider: { legend, full: true, range: false },
    documentFormattingProvider: true,
    documentRangeFormattingProvider: true,
    codeActionProvider: support.codeActionLiterals ? { codeActionKinds: [CodeActionKind.QuickFix] } : fixesAsCommands,
    ...(fixesAsCommands ? { executeCommandProvider: { commands: [APPLY_FIX_COMMAND] } } : {}),
    inlayHintProvider: true,
    signatureHelpProvider: { triggerCharacters: SIGNATURE_TRIGGERS },
    workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
  };
}
