// Training in the status bar: what runs now (or the last result, for a while), a click away
// from the trainer's output.
import * as vscode from 'vscode';
import type { TrainingManager } from './manager.js';
import { batchProgress, resultsSummary } from './progress.js';

/** How long the last result stays after the last run ended. */
const RESULT_MS = 20_000;

export class TrainingStatusItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private hideTimer: NodeJS.Timeout | undefined;
  private shown = false;
  /** Runs that ended since training last started after a quiet spell, oldest first. */
  private results: { label: string; state: string; error?: string }[] = [];
  private idle = true;

  constructor(private readonly manager: TrainingManager) {
    this.item = vscode.window.createStatusBarItem('rlx.training', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'rlx Training';
    this.item.command = 'rlx.showTrainingOutput';
    this.disposables.push(
      this.item,
      manager.onDidChange(() => this.update()),
      manager.onDidFinishJob(({ job, result }) => {
        if (result.state !== 'cancelled') this.results.push({ label: job.label, state: result.state, error: result.error });
      }),
    );
  }

  get text(): string {
    return this.item.text;
  }

  get visible(): boolean {
    return this.shown;
  }

  private show(): void {
    this.shown = true;
    this.item.show();
  }

  private update(): void {
    const running = this.manager.running;
    const queued = this.manager.queued;
    if (running.length + queued.length > 0) {
      // Training starts again after a quiet spell: the results shown next are of this spell's runs.
      if (this.idle) this.results = [];
      this.idle = false;
      if (this.hideTimer) clearTimeout(this.hideTimer);
      this.hideTimer = undefined;
      const one = running.length === 1 ? running[0] : undefined;
      const percent = one?.progress ? ` ${batchProgress([one]).percent}%` : '';
      const head = one ? `${one.label}${percent}` : `${running.length} running`;
      this.item.text = `$(sync~spin) rlx: ${head}${queued.length > 0 ? `, ${queued.length} queued` : ''}`;
      this.item.tooltip = [...running.map((j) => `${j.label}: running`), ...queued.map((j) => `${j.label}: queued`)].join('\n') + '\n\nClick for the trainer output.';
      this.item.backgroundColor = undefined;
      this.show();
      return;
    }
    this.idle = true;
    if (this.results.length > 0) {
      const summary = resultsSummary(this.results);
      this.item.text = summary.text;
      this.item.tooltip = summary.tooltip;
      this.item.backgroundColor = summary.error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
      this.show();
      if (this.hideTimer) clearTimeout(this.hideTimer);
      this.hideTimer = setTimeout(() => {
        this.hideTimer = undefined;
        this.shown = false;
        this.results = [];
        this.item.hide();
      }, RESULT_MS);
    }
  }

  dispose(): void {
    if (this.hideTimer) clearTimeout(this.hideTimer);
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

