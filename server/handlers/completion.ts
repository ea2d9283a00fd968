// Help while typing: completion and signature help, in the forms the client takes (snippets or
// plain insertions, markdown or plain documentation).
import type { CompletionItem, SignatureHelp } from 'vscode-languageserver';
import type { ClientSupport } from '../client-support.js';
import { completion } from '../features/completion/index.js';
import { withoutSnippets } from '../features/completion/snippets.js';
import { signatureHelp } from '../features/signature-help.js';
import { asKind } from '../markup.js';
import type { Session } from './session.js';

export function registerCompletion(session: Session): void {
  const { connection } = session;
  connection.onCompletion(session.onDocument('completion', [], (doc, p, support) =>
    forClient(completion(doc, p.position, { triggerCharacter: p.context?.triggerCharacter }), support), 'model'));
  connection.onSignatureHelp(session.onDocument('signature help', null, (doc, p, support) => {
    const help = signatureHelp(doc, p.position);
    return help && signaturesForClient(help, support);
  }, 'model'));
}

function forClient(items: CompletionItem[], support: ClientSupport): CompletionItem[] {
  const inserted = support.snippets ? items : withoutSnippets(items);
  return inserted.map((item) => (item.documentation ? { ...item, documentation: asKind(support.completionDocs, item.documentation) } : item));
}

function signaturesForClient(help: SignatureHelp, support: ClientSupport): SignatureHelp {
  return {
    ...help,
    signatures: help.signatures.map((s) => (s.documentation ? { ...s, documentation: asKind(support.signatureDocs, s.documentation) } : s)),
  };
}
