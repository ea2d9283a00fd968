// What the Runs view's items offer: dashboards, rollouts, comparison, the plan, the folder, the
// metrics as CSV, and deleting a run (after asking, to the trash where the file system has one).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isInputError } from '../../shared/input-error.js';
import { EventTail, readRun, type RunInfo } from '../../runtime/run/reader.js';
import { ComparePanel } from '../panels/compare-panel.js';
import { DashboardPanel } from '../panels/dashboard-panel.js';
import { RolloutsPanel } from '../panels/rollouts-panel.js';
import type { PanelContext } from '../panels/run-panel.js';
import { runPickItems } from './pick-items.js';
import { metricsCsv } from './metrics-csv.js';
import { isRunsNode, runDirOf, type RunsNode } from './nodes.js';
import type { RunsTreeProvider } from './runs-view.js';

export interface DeleteOptions {
  /** Skips the confirmation (for tests and scripts that asked already). */
  confirmed?: boolean;
  /** Asks a yes/no question (a modal dialog by default); tests answer and count the questions. */
  ask?: (message: string, detail: string, button: string) => Promise<boolean>;
}

export function registerRunCommands(panels: PanelContext, tree: RunsTreeProvider): vscode.Disposable[] {
  /** The run a command is about: its argument, else one the user picks. */
  const runDir = async (arg: unknown, title: string): Promise<string | undefined> => runDirOf(arg) ?? (await pickRuns(tree.allRuns(), title, false))?.[0];

  return [
    vscode.commands.registerCommand('rlx.openDashboard', async (arg?: unknown) => {
      const dir = await runDir(arg, 'Open the dashboard of which run?');
      return dir ? DashboardPanel.createOrShow(panels, dir) : undefined;
    }),
    vscode.commands.registerCommand('rlx.openRollouts', async (arg?: unknown) => {
      const dir = await runDir(arg, 'Open the rollouts of which run?');
      return dir ? RolloutsPanel.createOrShow(panels, dir) : undefined;
    }),
    vscode.commands.registerCommand('rlx.compareRuns', async (arg?: unknown, selected?: unknown[], dirs?: string[]) => {
      let chosen = dirs ?? runDirsOf(selected && selected.length > 0 ? selected : arg ? [arg] : []);
      // Runs given by a caller are shown as they are; a selection of one asks for the others.
      if (!dirs && chosen.length < 2) {
        const runs = tree.allRuns();
        const picked = await pickRuns(runs, 'Compare which runs?', true, chosen);
        if (!picked) return undefined;
        chosen = picked;
      }
      return chosen.length > 0 ? ComparePanel.createOrShow(panels, chosen) : undefined;
    }),
    vscode.commands.registerCommand('rlx.openPlan', async (arg?: unknown) => {
      const dir = await runDir(arg, 'Open the plan of which run?');
      if (dir) await vscode.window.showTextDocument(vscode.Uri.file(path.join(dir, 'plan.json')), { preview: true });
    }),
    vscode.commands.registerCommand('rlx.revealRun', async (arg?: unknown) => {
      const dir = isRunsNode(arg) && arg.kind === 'experiment' ? path.join(arg.root, arg.name) : await runDir(arg, 'Reveal which run?');
      if (!dir) return;
      const uri = vscode.Uri.file(dir);
      // The Explorer shows folders of the workspace; the system's file manager the others.
      if (vscode.workspace.getWorkspaceFolder(uri)) await vscode.commands.executeCommand('revealInExplorer', uri);
      else await vscode.commands.executeCommand('revealFileInOS', uri);
    }),
    vscode.commands.registerCommand('rlx.deleteRun', async (arg?: unknown, _selected?: unknown, options?: DeleteOptions) => {
      const dir = await runDir(arg, 'Delete which run?');
      if (!dir) return false;
      const deleted = await deleteRun(dir, options ?? {});
      if (deleted) tree.refresh();
      return deleted;
    }),
    vscode.commands.registerCommand('rlx.exportMetricsCsv', async (arg?: unknown, _selected?: unknown, target?: vscode.Uri) => {
      const dir = await runDir(arg, 'Export the metrics of which run?');
      if (!dir) return undefined;
      const run = readRun(dir);
      // Tests (and scripts) name the file; a person picks it in the save dialog.
      const uri = target ?? (await vscode.window.showSaveDialog({
        title: `Export the metrics of ${run.experiment}/${run.runId}`,
        defaultUri: vscode.Uri.file(path.join(path.dirname(path.dirname(path.dirname(dir))), `${run.experiment}-${run.runId}-metrics.csv`)),
        filters: { CSV: ['csv'] },
      }));
      if (!uri) return undefined;
      let csv: string;
      try {
        csv = metricsCsv(new EventTail(path.join(dir, 'events.jsonl')).poll());
      } catch (err) {
        if (!isInputError(err)) throw err;
        void vscode.window.showErrorMessage(`rlx cannot export the metrics of ${run.experiment}/${run.runId}: ${err.message}`);
        return undefined;
      }
      await vscode.workspace.fs.writeFile(uri, Buffer.from(csv, 'utf8'));
      return uri;
    }),
    vscode.commands.registerCommand('rlx.refreshRuns', () => tree.refresh()),
  ];
}

function runDirsOf(nodes: unknown[]): string[] {
  const dirs = nodes.flatMap((n) => {
    if (isRunsNode(n) && (n.kind === 'experiment' || n.kind === 'sweep')) return n.runs.map((r) => r.dir);
    const dir = runDirOf(n);
    return dir ? [dir] : [];
  });
  return [...new Set(dirs)];
}

async function pickRuns(runs: RunInfo[], title: string, many: boolean, preselected: string[] = []): Promise<string[] | undefined> {
  if (runs.length === 0) {
    void vscode.window.showInformationMessage('There are no runs yet: train an experiment first.');
    return undefined;
  }
  const items = runPickItems(runs, preselected);
  if (many) {
    const picked = await vscode.window.showQuickPick(items, { title, canPickMany: true });
    return picked?.map((p) => p.dir);
  }
  const picked = await vscode.window.showQuickPick(items, { title });
  return picked ? [picked.dir] : undefined;
}

/** Set once moving to the trash failed here: later deletes ask the one question that fits. */
let trashUnavailable = false;

async function deleteRun(dir: string, options: DeleteOptions): Promise<boolean> {
  const run = readRun(dir);
  const name = `${run.experiment}/${run.runId}`;
  if (run.state === 'running') {
    void vscode.window.showWarningMessage(`${name} is still training: stop it first.`);
    return false;
  }
  const ask = options.ask ?? askModal;
  // A remote workspace's file system has no trash: say "permanently" in the one question asked.
  let permanent = trashUnavailable || vscode.env.remoteName !== undefined;
  if (!options.confirmed) {
    const yes = permanent
      ? await ask(`Delete the run ${name} permanently?`, 'There is no trash on this file system: its folder (events, checkpoints, rollouts) cannot be restored.', 'Delete Permanently')
      : await ask(`Delete the run ${name}?`, 'Its folder (events, checkpoints, rollouts) moves to the trash.', 'Delete');
    if (!yes) return false;
  }
  for (const panel of [...DashboardPanel.all(), ...RolloutsPanel.all()]) if (panel.runDirs.includes(dir)) panel.dispose();
  const uri = vscode.Uri.file(dir);
  if (!permanent) {
    try {
      await vscode.workspace.fs.delete(uri, { recursive: true, useTrash: true });
      return true;
    } catch {
      // The trash was expected and is not there: a second decision, asked in plain words.
      trashUnavailable = permanent = true;
      const yes = options.confirmed || (await ask(`${name} cannot be moved to the trash: this file system has none. Delete it permanently?`, 'Its folder cannot be restored afterwards.', 'Delete Permanently'));
      if (!yes) return false;
    }
  }
  try {
    await vscode.workspace.fs.delete(uri, { recursive: true, useTrash: false });
    return true;
  } catch (err) {
    void vscode.window.showErrorMessage(`Could not delete ${name} (${dir}): ${(err as vscode.FileSystemError).code || (err as Error).message}. Check its permissions, or delete the folder by hand.`);
    return false;
  }
}

async function askModal(message: string, detail: string, button: string): Promise<boolean> {
  return (await vscode.window.showWarningMessage(message, { modal: true, detail }, button)) === button;
}

export type { RunsNode };
