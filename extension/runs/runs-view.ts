// The Runs view: runs folder -> experiments -> runs, read with runtime/run/reader.ts. It follows
// the runs folders with file watchers (a run started from a terminal appears as soon as its
// status.json does) and, while the view is visible and something runs, a slow poll that also
// notices a trainer that died without a word (state `crashed`).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { listRuns, type RunInfo } from '../../runtime/run/reader.js';
import { runsRoots } from '../settings.js';
import type { TrainJob } from '../training/job.js';
import type { TrainingManager } from '../training/manager.js';
import { describeExperiment, describeRun } from './describe.js';
import { withLatestUpdate } from './latest-update.js';
import type { RunsNode } from './nodes.js';
import { groupBySweep, membershipOf } from './sweeps.js';

const POLL_MS = 2000;
const IDLE_POLL_MS = 10_000;
const DEBOUNCE_MS = 200;
const UPDATE_REFRESH_MS = 1000;

export class RunsTreeProvider implements vscode.TreeDataProvider<RunsNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<RunsNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];
  private watchers: vscode.Disposable[] = [];
  private runsByRoot = new Map<string, RunInfo[]>();
  private debounce: NodeJS.Timeout | undefined;
  private poller: NodeJS.Timeout | undefined;
  private pollInterval: number | undefined;
  private visible = false;
  private readonly refreshedEmitter = new vscode.EventEmitter<void>();
  /** After each re-read of the runs folders (tests wait on it). */
  readonly onDidRefresh = this.refreshedEmitter.event;

  constructor(private readonly manager: TrainingManager) {
    this.disposables.push(
      this.refreshedEmitter,
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.watchRoots()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('rlx.runs.folder')) this.watchRoots();
      }),
      // Queued runs are items too; a run's progress comes from its status.json (watcher, poll).
      manager.onDidChangeJobs(() => this.scheduleRefresh()),
    );
    this.watchRoots();
  }

  /** The view calls this when it is shown or hidden. */
  setVisible(visible: boolean): void {
    this.visible = visible;
    if (visible) this.refresh();
    this.updatePoller();
  }

  private watchRoots(): void {
    for (const w of this.watchers) w.dispose();
    this.watchers = [];
    for (const root of runsRoots()) {
      // status.json appears when a run starts and changes every ~2 s while it trains; folders
      // come and go with new and deleted runs.
      // events.jsonl grows with every update, as the dashboard reads it: the view follows it (at
      // most once a second, the dashboard's pace) rather than status.json's ~2 s.
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(root), '{*,*/*,*/*/status.json,*/*/events.jsonl}'));
      watcher.onDidCreate(() => this.scheduleRefresh());
      watcher.onDidChange((uri) => (uri.path.endsWith('events.jsonl') ? this.scheduleRefresh(UPDATE_REFRESH_MS) : this.scheduleRefresh()));
      watcher.onDidDelete(() => this.scheduleRefresh());
      this.watchers.push(watcher);
    }
    this.refresh();
  }

  scheduleRefresh(delayMs = DEBOUNCE_MS): void {
    if (this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.refresh();
    }, delayMs);
  }

  refresh(): void {
    const next = new Map<string, RunInfo[]>();
    for (const root of runsRoots()) next.set(root, listRuns(root).map(withLatestUpdate));
    this.runsByRoot = next;
    this.changeEmitter.fire(undefined);
    this.refreshedEmitter.fire();
    this.updatePoller();
  }

  /**
   * While the view is visible: a re-read every 2 s while something trains (steps, crashes),
   * else every 10 s (a watcher can miss a runs folder created after it started watching).
   */
  private updatePoller(): void {
    const busy = this.manager.active.length > 0 || [...this.runsByRoot.values()].some((runs) => runs.some((r) => r.state === 'running'));
    const interval = !this.visible ? undefined : busy ? POLL_MS : IDLE_POLL_MS;
    if (interval === this.pollInterval) return;
    if (this.poller) clearInterval(this.poller);
    this.poller = interval === undefined ? undefined : setInterval(() => this.refresh(), interval);
    this.pollInterval = interval;
  }

  /** Every run the view knows, for commands that pick one. */
  allRuns(): RunInfo[] {
    return [...this.runsByRoot.values()].flat();
  }

  getChildren(node?: RunsNode): RunsNode[] {
    if (!node) {
      const roots = [...this.runsByRoot.keys()];
      if (roots.length === 1) return this.experiments(roots[0]);
      return roots.map((root) => ({ kind: 'root', root }));
    }
    if (node.kind === 'root') return this.experiments(node.root);
    if (node.kind === 'experiment') {
      const queued: RunsNode[] = this.manager.queued
        .filter((job) => job.options.runsRoot === node.root && jobExperiment(job) === node.name)
        .map((job) => ({ kind: 'job', job, experiment: node.name, root: node.root }));
      // A sweep's runs under the sweep, labelled by what they vary; the experiment's own runs beside.
      const { sweeps, single } = groupBySweep(node.runs);
      const sweepNodes = sweeps.map((s): RunsNode => ({ kind: 'sweep', root: node.root, experiment: node.name, name: s.name, runs: s.runs }));
      return [...queued, ...sweepNodes, ...single.map((info): RunsNode => ({ kind: 'run', info }))];
    }
    if (node.kind === 'sweep') return node.runs.map((info): RunsNode => ({ kind: 'run', info }));
    return [];
  }

  private experiments(root: string): RunsNode[] {
    const byName = new Map<string, RunInfo[]>();
    for (const run of this.runsByRoot.get(root) ?? []) {
      const list = byName.get(run.experiment) ?? [];
      list.push(run);
      byName.set(run.experiment, list);
    }
    // Experiments with queued runs show before their first run exists.
    for (const job of this.manager.queued) {
      const name = jobExperiment(job);
      if (job.options.runsRoot === root && name && !byName.has(name)) byName.set(name, []);
    }
    return [...byName.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, runs]) => ({ kind: 'experiment', root, name, runs }));
  }

  getTreeItem(node: RunsNode): vscode.TreeItem {
    switch (node.kind) {
      case 'root': {
        const item = new vscode.TreeItem(path.basename(path.dirname(node.root)) + '/' + path.basename(node.root), vscode.TreeItemCollapsibleState.Expanded);
        item.id = `root:${node.root}`;
        item.resourceUri = vscode.Uri.file(node.root);
        item.iconPath = vscode.ThemeIcon.Folder;
        item.contextValue = 'root';
        return item;
      }
      case 'experiment': {
        const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `experiment:${path.join(node.root, node.name)}`;
        item.description = describeExperiment(node.runs);
        item.iconPath = new vscode.ThemeIcon('beaker');
        item.contextValue = 'experiment';
        item.tooltip = path.join(node.root, node.name);
        return item;
      }
      case 'sweep': {
        const item = new vscode.TreeItem(`sweep ${node.name}`, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `sweep:${path.join(node.root, node.experiment)}:${node.name}`;
        item.description = describeExperiment(node.runs);
        item.iconPath = new vscode.ThemeIcon('list-tree');
        item.contextValue = 'sweep';
        item.tooltip = `Sweep ${node.name} of ${node.experiment}: its runs, labelled by the values they vary. Compare Runs… opens them all.`;
        return item;
      }
      case 'run': {
        const member = membershipOf(node.info);
        const d = member && member.label !== '' ? describeRun(node.info, Date.now(), member.label) : describeRun(node.info);
        const item = new vscode.TreeItem(d.label, vscode.TreeItemCollapsibleState.None);
        item.id = `run:${node.info.dir}`;
        item.description = d.description;
        item.tooltip = new vscode.MarkdownString(d.tooltip);
        item.iconPath = new vscode.ThemeIcon(d.icon.id, d.icon.color ? new vscode.ThemeColor(d.icon.color) : undefined);
        item.contextValue = d.contextValue;
        item.command = { command: 'rlx.openDashboard', title: 'Open Dashboard', arguments: [node] };
        return item;
      }
      case 'job': {
        const item = new vscode.TreeItem(node.job.label, vscode.TreeItemCollapsibleState.None);
        item.id = `job:${node.job.id}`;
        item.description = 'queued';
        item.tooltip = `Waits for a free slot: at most rlx.train.maxParallel runs train at once.`;
        item.iconPath = new vscode.ThemeIcon('clock');
        item.contextValue = 'run.queued';
        return item;
      }
    }
  }

  getParent(node: RunsNode): RunsNode | undefined {
    if (node.kind === 'root') return undefined;
    const roots = [...this.runsByRoot.keys()];
    const rootNode = (root: string): RunsNode | undefined => (roots.length > 1 ? { kind: 'root', root } : undefined);
    if (node.kind === 'experiment') return rootNode(node.root);
    const root = node.kind === 'run' ? path.dirname(path.dirname(node.info.dir)) : node.root;
    const name = node.kind === 'run' ? node.info.experiment : node.experiment;
    const experiment = this.experiments(root).find((e) => e.kind === 'experiment' && e.name === name);
    // A sweep member's parent is its sweep.
    const sweep = node.kind === 'run' ? membershipOf(node.info)?.sweep : undefined;
    if (sweep !== undefined && experiment) return this.getChildren(experiment).find((n) => n.kind === 'sweep' && n.name === sweep) ?? experiment;
    return experiment;
  }

  dispose(): void {
    if (this.debounce) clearTimeout(this.debounce);
    if (this.poller) clearInterval(this.poller);
    for (const w of this.watchers) w.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

/** The experiment a queued job will write under (a resumed run's is its folder's). */
function jobExperiment(job: TrainJob): string {
  const r = job.options.request;
  return r.kind === 'resume' ? path.basename(path.dirname(r.runDir)) : r.experiment;
}
