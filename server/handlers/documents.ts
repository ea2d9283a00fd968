// Documents and diagnostics: the client's open documents (their text and versions), files
// changed on disk, and the diagnostics that follow every change. A document over the size limit
// (limits.ts) is announced once with a message.
import { FileChangeType, MessageType, ShowMessageNotification, TextDocuments } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { tooLargeMessage } from '../limits.js';
import type { FileChangeKind } from '../workspace.js';
import type { Session } from './session.js';

const WATCHED_KINDS: Record<number, FileChangeKind> = {
  [FileChangeType.Created]: 'created',
  [FileChangeType.Changed]: 'changed',
  [FileChangeType.Deleted]: 'deleted',
};

export function registerDocuments(session: Session): void {
  const { connection, workspace, publisher } = session;
  const documents = new TextDocuments(TextDocument);
  const warnedTooLarge = new Set<string>(); // open documents told once that they are over the size limit
  documents.onDidChangeContent((e) => {
    const changed = workspace.documentChanged(e.document);
    publisher.schedule([changed]);
    const tooLarge = workspace.tooLarge(changed);
    if (tooLarge === undefined) warnedTooLarge.delete(e.document.uri);
    else if (!warnedTooLarge.has(e.document.uri)) {
      warnedTooLarge.add(e.document.uri);
      void connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Warning, message: tooLargeMessage(changed, tooLarge) });
    }
  });
  documents.onDidClose((e) => {
    warnedTooLarge.delete(e.document.uri);
    publisher.schedule([workspace.documentClosed(e.document)]);
  });
  documents.onDidSave((e) => workspace.documentSaved(e.document));
  documents.listen(connection);

  connection.onDidChangeWatchedFiles((params) => {
    const changes = params.changes.map((c) => ({ uri: c.uri, kind: WATCHED_KINDS[c.type] ?? 'changed' }));
    publisher.schedule(workspace.filesChanged(changes));
  });
}
