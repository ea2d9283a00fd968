// One dashboard per run: learning curves and the run's state, live while it trains.
import * as vscode from 'vscode';
import { feedRun } from './run-feed.js';
import { RunPanel, type PanelContext } from './run-panel.js';
import { PANEL_OPTIONS } from './page-html.js';

export class DashboardPanel extends RunPanel {
  static readonly viewType = 'rlx.dashboard';
  private static readonly open = new Map<string, DashboardPanel>();

  static createOrShow(context: PanelContext, runDir: string): DashboardPanel {
    const run = feedRun(runDir);
    const existing = DashboardPanel.open.get(run.dir);
    if (existing) {
      existing.panel.reveal();
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(DashboardPanel.viewType, run.id, vscode.ViewColumn.Active, PANEL_OPTIONS);
    return new DashboardPanel(panel, runDir, context);
  }

  /** After a window reload: the panel is back, its run read from the saved state. */
  static revive(context: PanelContext, panel: vscode.WebviewPanel, runDir: string): DashboardPanel {
    return new DashboardPanel(panel, runDir, context);
  }

  /** Whether a dashboard of this run is open (visible or in a background tab). */
  static isOpen(runDir: string): boolean {
    return DashboardPanel.open.has(feedRun(runDir).dir);
  }

  static all(): DashboardPanel[] {
    return [...DashboardPanel.open.values()];
  }

  private constructor(panel: vscode.WebviewPanel, runDir: string, context: PanelContext) {
    const run = feedRun(runDir);
    super(panel, 'dashboard', [run], context);
    DashboardPanel.open.set(run.dir, this);
  }

  override dispose(): void {
    for (const [dir, p] of DashboardPanel.open) if (p === this) DashboardPanel.open.delete(dir);
    super.dispose();
  }
}
