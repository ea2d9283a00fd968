// The rlx extension: the language client, training from the editor, the Runs view and the run
// panels. activate() only wires things up and returns at once: the server starts in the
// background, parsing happens in the server, training in child processes.
import * as vscode from 'vscode';
import type { RlxApi, RunsTreeSnapshot } from './api.js';
import { ComparePanel } from './panels/compare-panel.js';
import { DashboardPanel } from './panels/dashboard-panel.js';
import { RolloutsPanel } from './panels/rollouts-panel.js';
import { panelContext, registerPanelSerializers } from './panels/serializers.js';
import { registerRunCommands } from './runs/commands.js';
import type { RunsNode } from './runs/nodes.js';
import { RunsTreeProvider } from './runs/runs-view.js';
import { RlxClient } from './server/client.js';
import { ServerStatusItem } from './server/status.js';
import * as path from 'node:path';
import { runsRootFor, runsRoots } from './settings.js';
import type { Training } from './training/live-lens.js';
import { TrainCodeLensProvider } from './training/codelens.js';
import { registerTrainingCommands } from './training/commands.js';
import { Launcher } from './training/launcher.js';
import { trainingLogDir, TrainingManager } from './training/manager.js';
import { PlanDocuments } from './training/plan-documents.js';
import { TrainingStatusItem } from './training/status.js';

let client: RlxClient | undefined;

export function activate(context: vscode.ExtensionContext): RlxApi {
  client = new RlxClient(context);
  const rlx = client;
  const serverStatus = new ServerStatusItem(rlx);

  // The panels log to the manager's channel, so the manager comes first; its callback reads
  // `panels` only when a finished run opens its dashboard, long after both exist.
  const manager: TrainingManager = new TrainingManager(
    trainingLogDir(context),
    (runDir) => DashboardPanel.createOrShow(panels, runDir),
    (runDir) => DashboardPanel.isOpen(runDir),
  );
  const panels = panelContext(context, (message) => manager.output.appendLine(`[panels] ${message}`));
  const trainingStatus = new TrainingStatusItem(manager);
  const launcher = new Launcher(rlx, manager, context.asAbsolutePath('dist/rlx.mjs'));

  const tree = new RunsTreeProvider(manager);
  const view = vscode.window.createTreeView('rlx.runs', { treeDataProvider: tree, canSelectMany: true, showCollapseAll: true });
  tree.setVisible(view.visible);
  const trainingChanged = throttledEvent([manager.onDidChange, tree.onDidRefresh], 500);
  const lenses = new TrainCodeLensProvider(rlx, (uri, name) => trainingOf(manager, tree, uri, name), trainingChanged.event);
  const plans = new PlanDocuments();

  context.subscriptions.push(
    rlx,
    serverStatus,
    manager,
    trainingStatus,
    tree,
    view,
    view.onDidChangeVisibility((e) => tree.setVisible(e.visible)),
    trainingChanged,
    lenses,
    plans,
    vscode.languages.registerCodeLensProvider({ language: 'rlx', scheme: 'file' }, lenses),
    ...registerTrainingCommands(rlx, launcher, manager, tree, plans),
    ...registerRunCommands(panels, tree),
    ...registerPanelSerializers(context, panels, runsRoots),
    vscode.commands.registerCommand('rlx.restartServer', () => rlx.restart()),
    vscode.commands.registerCommand('rlx.showServerLog', () => rlx.outputChannel.show(true)),
    // Trust granted while open: the next Train is allowed, and the server may probe Python envs.
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      tree.refresh();
      void rlx.workspaceTrusted();
    }),
  );

  // Trainers an earlier window started (a reload): Stop, status bar and progress follow them again.
  manager.reattach(runsRoots());
  void rlx.start();

  return {
    serverState: () => rlx.state,
    whenServerRunning: (timeoutMs = 30_000) => whenRunning(rlx, timeoutMs),
    statusBar: () => ({ server: serverStatus.text, training: trainingStatus.visible ? trainingStatus.text : '' }),
    activeJobs: () => manager.active,
    lastTrainingNotice: () => manager.lastNotice,
    runsTree: () => snapshot(tree, undefined),
    refreshRuns: () => tree.refresh(),
    runs: () => tree.allRuns(),
    panels: () =>
      [...DashboardPanel.all(), ...RolloutsPanel.all(), ...(ComparePanel.instance ? [ComparePanel.instance] : [])].map((p) => ({
        viewType: p.panel.viewType,
        title: p.panel.title,
        runDirs: p.runDirs,
        pageLoads: p.pageLoads,
      })),
  };
}

export function deactivate(): Thenable<void> | undefined {
  return client?.stop();
}

function whenRunning(rlx: RlxClient, timeoutMs: number): Promise<void> {
  if (rlx.state === 'running') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      subscription.dispose();
      reject(new Error(`the rlx language server is ${rlx.state} after ${timeoutMs} ms${rlx.lastError ? `: ${rlx.lastError}` : ''}`));
    }, timeoutMs);
    const subscription = rlx.onDidChangeState((state) => {
      if (state !== 'running') return;
      clearTimeout(timer);
      subscription.dispose();
      resolve();
    });
  });
}

function snapshot(tree: RunsTreeProvider, node: RunsNode | undefined): RunsTreeSnapshot[] {
  return tree.getChildren(node).map((child) => {
    const item = tree.getTreeItem(child);
    const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
    return {
      label,
      description: typeof item.description === 'string' ? item.description : undefined,
      icon: item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : undefined,
      contextValue: item.contextValue,
      element: child,
      children: snapshot(tree, child),
    };
  });
}

/** What trains now from a file's experiment: this window's jobs, and running runs in the file's runs folder (a reload, a terminal). */
function trainingOf(manager: TrainingManager, tree: RunsTreeProvider, uri: vscode.Uri, experiment: string): Training {
  const root = runsRootFor(uri);
  const mine = manager.active.filter((j) => j.options.request.kind === 'train' && j.options.request.file === uri.fsPath && j.options.request.experiment === experiment);
  const runs = new Map<string, { dir: string; step: number; budget: number }>();
  for (const r of tree.allRuns()) {
    if (r.state === 'running' && r.experiment === experiment && path.dirname(path.dirname(r.dir)) === root && r.status) runs.set(r.dir, { dir: r.dir, step: r.status.step, budget: r.status.budget });
  }
  // This window's jobs know their progress first (they read status.json twice a second).
  for (const j of mine) if (j.state === 'running' && j.progress) runs.set(j.progress.runDir, { dir: j.progress.runDir, step: j.progress.step, budget: j.progress.budget });
  const starting = mine.filter((j) => j.state === 'running' && !j.progress);
  const queued = mine.filter((j) => j.state === 'queued');
  const jobNode = (job: (typeof mine)[number]) => ({ kind: 'job' as const, job, experiment, root });
  return { runs: [...runs.values()], starting: starting.length, queued: queued.length, stopTargets: [...runs.keys(), ...starting.map(jobNode), ...queued.map(jobNode)] };
}

/** One event for several sources, at most once per `ms` (the lenses re-ask the server each time). */
function throttledEvent(sources: vscode.Event<unknown>[], ms: number): vscode.EventEmitter<void> {
  const emitter = new vscode.EventEmitter<void>();
  let timer: NodeJS.Timeout | undefined;
  const subscriptions = sources.map((source) =>
    source(() => {
      timer ??= setTimeout(() => {
        timer = undefined;
        emitter.fire();
      }, ms);
    }),
  );
  const dispose = emitter.dispose.bind(emitter);
  emitter.dispose = () => {
    if (timer) clearTimeout(timer);
    for (const s of subscriptions) s.dispose();
    dispose();
  };
  return emitter;
}
