// Documents and diagnostics: the client's open documents (their text and versions), files
// changed on disk, and the diagnostics that follow every change.
import { FileChangeType, TextDocuments } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
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
  documents.onDidChangeContent((e) => publisher.schedule([workspace.documentChanged(e.document)]));
  documents.onDidClose((e) => publisher.schedule([workspace.documentClosed(e.document)]));
  documents.onDidSave((e) => workspace.documentSaved(e.document));
  documents.listen(connection);

  connection.onDidChangeWatchedFiles((params) => {
    const changes = params.changes.map((c) => ({ uri: c.uri, kind: WATCHED_KINDS[c.type] ?? 'changed' }));
    publisher.schedule(workspace.filesChanged(changes));
  });
}
