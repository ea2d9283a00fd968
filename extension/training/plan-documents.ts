// The Plan lens's document: the resolved plan as read-only JSON under the `rlx-plan:` scheme, so
// that it opens without a dirty untitled buffer that asks to be saved on close. The text is kept
// per Uri for as long as a document shows it; asking again replaces it (the spec may have changed).
import * as vscode from 'vscode';

export const PLAN_SCHEME = 'rlx-plan';

export class PlanDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changeEmitter.event;
  private readonly disposables: vscode.Disposable[] = [
    this.changeEmitter,
    vscode.workspace.registerTextDocumentContentProvider(PLAN_SCHEME, this),
    // Closed documents need their text no more.
    vscode.workspace.onDidCloseTextDocument((doc) => {
      if (doc.uri.scheme === PLAN_SCHEME) this.texts.delete(doc.uri.toString());
    }),
  ];

  /** Opens (or refreshes) the plan of `name` in `spec` beside the editor. */
  async show(spec: vscode.Uri, name: string, json: string): Promise<vscode.TextEditor> {
    // `<name>.plan.json`: the tab's title, and its extension gives it JSON colouring.
    const uri = vscode.Uri.from({ scheme: PLAN_SCHEME, path: `/${name}.plan.json`, query: spec.toString() });
    const key = uri.toString();
    const changed = this.texts.has(key) && this.texts.get(key) !== json;
    this.texts.set(key, json);
    if (changed) this.changeEmitter.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== 'json') await vscode.languages.setTextDocumentLanguage(doc, 'json');
    return vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '// This plan is no longer available: use the Plan lens again.\n';
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
