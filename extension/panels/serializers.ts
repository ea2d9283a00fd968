// Panels come back after a window reload: one serializer per panel kind, registered at
// activation (the manifest's onWebviewPanel events start the extension for them).
import * as vscode from 'vscode';
import { ComparePanel } from './compare-panel.js';
import { DashboardPanel } from './dashboard-panel.js';
import { RolloutsPanel } from './rollouts-panel.js';
import { rememberPanel, restoreRunDirs, type RememberedPanel } from './restore-state.js';
import type { PanelContext } from './run-panel.js';
import { webviewOptions } from './page-html.js';

const REMEMBERED_KEY = 'rlx.panels';

/** The panels' shared context, remembering open panels in the workspace state. */
export function panelContext(extension: vscode.ExtensionContext, log: (message: string) => void): PanelContext {
  return {
    extensionUri: extension.extensionUri,
    log,
    remember(viewType, title, runDirs) {
      const list = extension.workspaceState.get<RememberedPanel[]>(REMEMBERED_KEY, []);
      void extension.workspaceState.update(REMEMBERED_KEY, rememberPanel(list, viewType, title, runDirs));
    },
  };
}

export function registerPanelSerializers(extension: vscode.ExtensionContext, context: PanelContext, runsRoots: () => string[]): vscode.Disposable[] {
  const restore = (panel: vscode.WebviewPanel, state: unknown): string[] => {
    const remembered = extension.workspaceState.get<RememberedPanel[]>(REMEMBERED_KEY, []);
    const dirs = restoreRunDirs(panel.viewType, panel.title, state, remembered, runsRoots());
    if (dirs.length === 0) {
      context.log(`not restoring "${panel.title}": its runs are gone`);
      panel.dispose();
    } else {
      panel.webview.options = webviewOptions(context.extensionUri);
    }
    return dirs;
  };
  const serializer = (revive: (panel: vscode.WebviewPanel, dirs: string[]) => void): vscode.WebviewPanelSerializer => ({
    async deserializeWebviewPanel(panel, state) {
      const dirs = restore(panel, state);
      if (dirs.length > 0) revive(panel, dirs);
    },
  });
  return [
    vscode.window.registerWebviewPanelSerializer(DashboardPanel.viewType, serializer((panel, dirs) => DashboardPanel.revive(context, panel, dirs[0]))),
    vscode.window.registerWebviewPanelSerializer(RolloutsPanel.viewType, serializer((panel, dirs) => RolloutsPanel.revive(context, panel, dirs[0]))),
    vscode.window.registerWebviewPanelSerializer(ComparePanel.viewType, serializer((panel, dirs) => ComparePanel.revive(context, panel, dirs))),
  ];
}
