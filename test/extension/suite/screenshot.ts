// Leaves the workbench as a person would look at it: a spec with problems open, the Problems
// panel and the Runs view showing, then asks the harness (outside VS Code) for a screenshot
// through files in RLX_TEST_SCREENSHOT_DIR, while the extension host still runs.
/// <reference types="mocha" />
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { open, rlxApi, screenshot, waitFor, waitForDiagnostics, workspaceDir } from './helpers.js';

suite('screenshot', () => {
  test('shows a spec with its diagnostics and the Runs view', async function () {
    if (!process.env.RLX_TEST_SCREENSHOT_DIR) this.skip();
    this.timeout(60_000);
    const api = await rlxApi();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // The earlier suites' notifications would cover the Problems panel.
    await vscode.commands.executeCommand('notifications.clearAll');
    const uri = vscode.Uri.file(path.join(workspaceDir(), 'screenshot.rlx'));
    fs.writeFileSync(
      uri.fsPath,
      fs.readFileSync(path.join(workspaceDir(), 'tiny.rlx'), 'utf8').replace('max_steps: 200', 'max_steps: 200, gravity: -9.8').replace('epochs: 2', 'epochs: 2\n  learning_rat: 3e-4'),
    );
    await open(uri);
    await waitForDiagnostics(uri, (d) => d.length >= 2);
    await vscode.commands.executeCommand('workbench.view.extension.rlx');
    await vscode.commands.executeCommand('workbench.actions.view.problems');
    // Focus back in the editor, so that the squiggles are drawn in an active editor.
    await vscode.window.showTextDocument(uri, { preserveFocus: false });
    api.refreshRuns();
    await waitFor('runs in the view', () => api.runsTree().length > 0);
    await screenshot('workbench');
  });
});
