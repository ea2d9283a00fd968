// What every run panel shares: the webview's options and page, following the runs it shows
// (RunFeed) while visible, and the page's requests. Each panel kind is a subclass with its own
// createOrShow/revive; disposing the panel releases everything it registered.
import * as vscode from 'vscode';
import type { HostMessage, PageKind, PageMessage } from '../../webview/protocol.js';
import { RunFeed, type FeedRun } from './run-feed.js';
import { pageHtml, webviewOptions } from './page-html.js';
import { NOTICE_BYTES, ReadProgress } from './read-progress.js';

export interface PanelContext {
  extensionUri: vscode.Uri;
  log(message: string): void;
  /** Remembers which runs a panel shows, so that it comes back after a window reload. */
  remember(viewType: string, title: string, runDirs: readonly string[] | undefined): void;
}

/**
 * How often a visible panel looks for new events (the trainer appends once per update): a
 * quarter second while a run it shows trains, so a new point is drawn well within a second of
 * its update; a second otherwise (a finished run changes only when it is resumed).
 */
const LIVE_POLL_MS = 250;
const POLL_MS = 1000;

export abstract class RunPanel implements vscode.Disposable {
  protected readonly disposables: vscode.Disposable[] = [];
  private feed: RunFeed;
  private timer: NodeJS.Timeout | undefined;
  private ready = false;
  /** How many times the page has loaded (said `ready`): once, unless it was reloaded or rebuilt. */
  pageLoads = 0;
  private disposed = false;
  /** Kept here: a disposed panel throws on every property. */
  private readonly viewType: string;
  private title: string;

  protected constructor(
    readonly panel: vscode.WebviewPanel,
    readonly page: PageKind,
    runs: readonly FeedRun[],
    protected readonly context: PanelContext,
  ) {
    this.feed = new RunFeed(runs);
    panel.webview.options = webviewOptions(context.extensionUri);
    panel.iconPath = vscode.Uri.joinPath(context.extensionUri, 'icons', 'rlx-file.svg');
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      // A page that loads (again: a reload, or a hidden page VS Code unloaded after all) asks
      // with `ready` and gets everything; while hidden it is sent nothing (poll), and the
      // changes since reach it when it shows again.
      panel.webview.onDidReceiveMessage((m: PageMessage) => void this.onMessage(m)),
    );
    this.viewType = panel.viewType;
    this.title = panel.title;
    this.render();
    this.schedulePoll();
    this.context.remember(this.viewType, this.title, this.runDirs);
  }

  get runDirs(): string[] {
    return this.feed.runs.map((r) => r.dir);
  }

  /** Shows other runs in the same panel (the comparison panel, when asked again). */
  protected setRuns(runs: readonly FeedRun[], title: string): void {
    this.context.remember(this.viewType, this.title, undefined);
    this.feed.dispose();
    this.feed = new RunFeed(runs);
    this.panel.title = title;
    this.title = title;
    this.context.remember(this.viewType, title, this.runDirs);
    this.render();
  }

  private render(): void {
    this.ready = false;
    this.panel.webview.html = pageHtml(this.panel.webview, this.context.extensionUri, this.page, this.title, this.context.log);
  }

  protected post(message: HostMessage): void {
    void this.panel.webview.postMessage(message);
  }

  private schedulePoll(): void {
    this.timer = setTimeout(() => {
      this.poll();
      if (!this.disposed) this.schedulePoll();
    }, this.feed.live ? LIVE_POLL_MS : POLL_MS);
  }

  private poll(): void {
    if (!this.ready || !this.panel.visible) return;
    for (const message of this.feed.poll()) this.post(message);
    this.reportProblems();
  }

  /** A run whose files cannot be read: said once, where the user looks, and in the log. */
  private reportProblems(): boolean {
    const problems = this.feed.takeProblems();
    for (const problem of problems) {
      this.context.log(`reading runs for ${this.title}: ${problem}`);
      void vscode.window.showErrorMessage(`rlx cannot read ${problem}. The panel shows what it could read.`);
    }
    return problems.length > 0;
  }

  protected async onMessage(message: PageMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.pageLoads++;
        await this.load();
        return;
      case 'openEpisode': {
        const episode = this.feed.episode(message.runId, message.file);
        if (episode) this.post(episode);
        else if (!this.reportProblems()) this.context.log(`the page asked for an episode that is not one of run ${message.runId}: ${message.file}`);
        return;
      }
      case 'openFrame': {
        const frame = this.feed.frame(message.runId, message.file, message.frame);
        if (frame) this.post(frame);
        else this.context.log(`the page asked for a frame of an episode that is not one of run ${message.runId}: ${message.file}`);
        return;
      }
      case 'openFile': {
        const file = this.feed.resolveFile(message.runId, message.relativePath);
        if (!file) {
          void vscode.window.showWarningMessage(`${message.relativePath} is not a file of run ${message.runId}.`);
          return;
        }
        await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true, viewColumn: vscode.ViewColumn.Beside });
        return;
      }
      case 'error':
        this.context.log(`${this.page} page: ${message.message}`);
        return;
      case 'save':
        await this.save(message);
        return;
    }
  }

  /**
   * The runs' histories, read in the background and posted as they are read (the curves grow
   * on the page); a long one with a progress notice whose Cancel stops the read, leaving the
   * page with what was read and the runs followed from the files' ends.
   */
  private async load(): Promise<void> {
    const feed = this.feed;
    // A read that a later page load, other runs or the panel's end took over posts nothing more.
    const post = (m: HostMessage) => {
      if (!this.disposed && this.feed === feed) this.post(m);
    };
    const bytes = feed.historyBytes();
    if (bytes < NOTICE_BYTES) {
      await feed.snapshot(post);
      this.reportProblems();
      return;
    }
    const stopped = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Reading the history of ${this.title}`, cancellable: true },
      async (progress, token) => {
        const stop = new AbortController();
        const subscription = token.onCancellationRequested(() => stop.abort());
        const figures = new ReadProgress((r) => progress.report(r));
        try {
          await feed.snapshot(post, { signal: stop.signal, onProgress: (read, total) => figures.update(read, total) });
        } finally {
          subscription.dispose();
        }
        return stop.signal.aborted;
      },
    );
    this.reportProblems();
    if (stopped && !this.disposed && this.feed === feed) {
      void vscode.window.showInformationMessage(`${this.title} shows the part of its history read before you stopped, and what the run writes from now on.`);
    }
  }

  /** An export from the page: asks where (beside the first run), then writes it. */
  private async save(message: Extract<PageMessage, { type: 'save' }>): Promise<void> {
    const folder = this.runDirs[0] ? vscode.Uri.file(this.runDirs[0]) : vscode.workspace.workspaceFolders?.[0]?.uri;
    const names = { png: 'PNG image', svg: 'SVG image', csv: 'CSV table' } as const;
    const name = message.name.replace(/[\\/]/g, '-');
    const target = await vscode.window.showSaveDialog({
      defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
      filters: { [names[message.format]]: [message.format] },
      saveLabel: 'Export',
      title: `Export ${name}`,
    });
    if (!target) return;
    try {
      await vscode.workspace.fs.writeFile(target, Buffer.from(message.data, message.encoding));
    } catch (err) {
      void vscode.window.showErrorMessage(`Could not save ${target.fsPath}: ${(err as Error).message}`);
    }
  }

  /** Closes the panel (or follows its closing by the user); subclasses forget it first. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.feed.dispose();
    this.context.remember(this.viewType, this.title, undefined);
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose(); // a no-op when the user closed it
  }
}
