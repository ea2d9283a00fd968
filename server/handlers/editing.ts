// Changing the code: rename, formatting (whole document or a range) and quick fixes.
import { codeActions } from '../features/code-actions.js';
import { formatDocument, formatRange } from '../features/formatting.js';
import { prepareRename, rename } from '../features/rename.js';
import type { Session } from './session.js';

export function registerEditing(session: Session): void {
  const { connection } = session;
  connection.onPrepareRename(session.onDocument('prepare rename', null, (doc, p) => prepareRename(doc, p.position)));
  connection.onRenameRequest(session.onDocument('rename', null, (doc, p) => rename(doc, p.position, p.newName)));
  connection.onDocumentFormatting(session.onDocument('formatting', [], (doc, p) => formatDocument(doc, p.options)));
  connection.onDocumentRangeFormatting(session.onDocument('range formatting', [], (doc, p) => formatRange(doc, p.range, p.options)));
  connection.onCodeAction(session.onDocument('code actions', [], (doc, p) => codeActions(doc, p.range, p.context.only)));
}
