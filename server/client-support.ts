// What the client can take, read once from its `initialize` capabilities. A capability the client
// does not declare is one it lacks (the protocol's rule), so a bare client gets plain text,
// plain insertions, commands for fixes and a flat outline; VS Code declares them all.
import { MarkupKind, type ClientCapabilities, type MarkupKind as Kind } from 'vscode-languageserver';

export interface ClientSupport {
  /** Completion items may insert snippets (`linear(${1:from}, ${2:to})`); else plain text. */
  snippets: boolean;
  /** Markup the client renders: completion documentation, hover, signature documentation. */
  completionDocs: Kind;
  hover: Kind;
  signatureDocs: Kind;
  /** Code actions may be CodeAction literals; else only Commands. */
  codeActionLiterals: boolean;
  /** The client applies edits the server sends (workspace/applyEdit). */
  applyEdit: boolean;
  /** The outline may be DocumentSymbol[] (a tree); else SymbolInformation[] (a flat list). */
  hierarchicalSymbols: boolean;
}

export function clientSupport(client: ClientCapabilities): ClientSupport {
  const text = client.textDocument;
  return {
    snippets: text?.completion?.completionItem?.snippetSupport ?? false,
    completionDocs: markupKind(text?.completion?.completionItem?.documentationFormat),
    hover: markupKind(text?.hover?.contentFormat),
    signatureDocs: markupKind(text?.signatureHelp?.signatureInformation?.documentationFormat),
    codeActionLiterals: text?.codeAction?.codeActionLiteralSupport !== undefined,
    applyEdit: client.workspace?.applyEdit ?? false,
    hierarchicalSymbols: text?.documentSymbol?.hierarchicalDocumentSymbolSupport ?? false,
  };
}

/** Markdown when the client lists it among the formats it renders, plain text otherwise. */
function markupKind(formats: Kind[] | undefined): Kind {
  return formats?.includes(MarkupKind.Markdown) ? MarkupKind.Markdown : MarkupKind.PlainText;
}
