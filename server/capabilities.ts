// What the server offers (the initialize result), shaped by what the client can take.
import {
  CodeActionKind,
  TextDocumentSyncKind,
  type ClientCapabilities,
  type SemanticTokensLegend,
  type ServerCapabilities,
} from 'vscode-languageserver';

/**
 * Completion triggers. A space triggers too, but the server answers it only right after `:` or
 * `=` (see features/completion/index.ts), where a value or a base is what comes next.
 */
export const COMPLETION_TRIGGERS = ['.', ':', '=', ' '];
export const SIGNATURE_TRIGGERS = ['(', ','];

export function serverCapabilities(client: ClientCapabilities, legend: SemanticTokensLegend, options: { completionResolve: boolean }): ServerCapabilities {
  const text = client.textDocument;
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
    codeActionProvider: text?.codeAction?.codeActionLiteralSupport ? { codeActionKinds: [CodeActionKind.QuickFix] } : true,
    inlayHintProvider: true,
    signatureHelpProvider: { triggerCharacters: SIGNATURE_TRIGGERS },
    workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
  };
}
