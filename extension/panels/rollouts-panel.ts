// The recorded episodes of one run: pick an episode, step through observations, actions and
// reward terms; a text run's recorded batches: each prompt's samples with their rewards,
// advantages and verdicts (the page asks for a file with `openEpisode`).
import * as vscode from 'vscode';
import { feedRun } from './run-feed.js';
import { RunPanel, type PanelContext } from './run-panel.js';
import { PANEL_OPTIONS } from './page-html.js';

export class RolloutsPanel extends RunPanel {
  static readonly viewType = 'rlx.rollouts';
  private static readonly open = new Map<string, RolloutsPanel>();

  static createOrShow(context: PanelContext, runDir: string): RolloutsPanel {
    const run = feedRun(runDir);
    const existing = RolloutsPanel.open.get(run.dir);
    if (existing) {
      existing.panel.reveal();
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(RolloutsPanel.viewType, `Rollouts: ${run.id}`, vscode.ViewColumn.Active, PANEL_OPTIONS);
    return new RolloutsPanel(panel, runDir, context);
  }

  static revive(context: PanelContext, panel: vscode.WebviewPanel, runDir: string): RolloutsPanel {
    return new RolloutsPanel(panel, runDir, context);
  }

  static all(): RolloutsPanel[] {
    return [...RolloutsPanel.open.values()];
  }

  private constructor(panel: vscode.WebviewPanel, runDir: string, context: PanelContext) {
    const run = feedRun(runDir);
    super(panel, 'rollouts', [run], context);
    RolloutsPanel.open.set(run.dir, this);
  }

  override dispose(): void {
    for (const [dir, p] of RolloutsPanel.open) if (p === this) RolloutsPanel.open.delete(dir);
    super.dispose();
  }
}
