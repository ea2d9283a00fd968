// Several runs side by side: their curves on shared axes and a table of the hyperparameters
// that differ. One comparison panel: asking again shows the new selection in it.
import * as vscode from 'vscode';
import { feedRun } from './run-feed.js';
import { RunPanel, type PanelContext } from './run-panel.js';
import { PANEL_OPTIONS } from './page-html.js';

export class ComparePanel extends RunPanel {
  static readonly viewType = 'rlx.compare';
  private static current: ComparePanel | undefined;

  static title(count: number): string {
    return `Compare ${count} run${count === 1 ? '' : 's'}`;
  }

  static createOrShow(context: PanelContext, runDirs: readonly string[]): ComparePanel {
    const runs = runDirs.map(feedRun);
    const current = ComparePanel.current;
    if (current) {
      current.setRuns(runs, ComparePanel.title(runs.length));
      current.panel.reveal();
      return current;
    }
    const panel = vscode.window.createWebviewPanel(ComparePanel.viewType, ComparePanel.title(runs.length), vscode.ViewColumn.Active, PANEL_OPTIONS);
    return new ComparePanel(panel, runDirs, context);
  }

  static revive(context: PanelContext, panel: vscode.WebviewPanel, runDirs: readonly string[]): ComparePanel {
    ComparePanel.current?.dispose();
    return new ComparePanel(panel, runDirs, context);
  }

  static get instance(): ComparePanel | undefined {
    return ComparePanel.current;
  }

  private constructor(panel: vscode.WebviewPanel, runDirs: readonly string[], context: PanelContext) {
    super(panel, 'compare', runDirs.map(feedRun), context);
    ComparePanel.current = this;
  }

  override dispose(): void {
    if (ComparePanel.current === this) ComparePanel.current = undefined;
    super.dispose();
  }
}
