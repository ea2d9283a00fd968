// Help while typing: completion and signature help.
import { completion } from '../features/completion/index.js';
import { signatureHelp } from '../features/signature-help.js';
import type { Session } from './session.js';

export function registerCompletion(session: Session): void {
  const { connection } = session;
  connection.onCompletion(session.onDocument('completion', [], (doc, p) => completion(doc, p.position, { triggerCharacter: p.context?.triggerCharacter })));
  connection.onSignatureHelp(session.onDocument('signature help', null, (doc, p) => signatureHelp(doc, p.position)));
}
