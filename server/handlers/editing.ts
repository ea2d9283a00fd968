// Changing the code: rename, formatting (whole document or a range) and quick fixes. A client
// without CodeAction literals gets each fix as a command; running it asks the client to apply
// the fix's edit.
import { ErrorCodes, ResponseError } from 'vscode-languageserver/node';
import { APPLY_FIX_COMMAND, asCommands, codeActions, fixEdit } from '../features/code-actions.js';
import { uriToPath, type DocumentContext } from '../context.js';
import { runRecordingOf } from '../disk.js';
import { formatDocument, formatRange } from '../features/formatting.js';
import { prepareRename, rename } from '../features/rename.js';
import type { Session } from './session.js';

export function registerEditing(session: Session): void {
  const { connection } = session;
  connection.onPrepareRename(session.onDocument('prepare rename', null, (doc, p) => prepareRename(doc, p.position)));
  connection.onRenameRequest(session.onDocument('rename', null, (doc, p) => rename(doc, p.position, p.newName)));
  connection.onDocumentFormatting(session.onDocument('formatting', [], (doc, p) => isRunRecord(doc) ? [] : formatDocument(doc)));
  connection.onDocumentRangeFormatting(session.onDocument('range formatting', [], (doc, p) => isRunRecord(doc) ? [] : formatRange(doc, p.range)));
  connection.onCodeAction(session.onDocument('code actions', [], (doc, p, support) => {
    const actions = codeActions(doc, p.range, p.context.only);
    if (support.codeActionLiterals) return actions;
    return support.applyEdit ? asCommands(actions) : [];
  }));
  connection.onExecuteCommand(async (params) => {
    session.requireInitialized();
    const edit = params.command === APPLY_FIX_COMMAND ? fixEdit(params.arguments) : undefined;
    if (!edit) throw new ResponseError(ErrorCodes.InvalidParams, `the server has no command '${params.command}' taking these arguments; it runs only ${APPLY_FIX_COMMAND} with a WorkspaceEdit`);
    const applied = await connection.workspace.applyEdit({ label: 'rlx quick fix', edit });
    if (!applied.applied) session.log(`rlx: the client did not apply the fix${applied.failureReason ? `: ${applied.failureReason}` : ''}`);
    return null;
  });
}

/** A run's recorded source, opened from the run folder: no edits, or format-on-save would rewrite the record of what trained. */
function isRunRecord(doc: DocumentContext): boolean {
  return doc.uri.startsWith('file:') && runRecordingOf(uriToPath(doc.uri)) !== undefined;
}
