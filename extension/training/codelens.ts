// "Train", "Train with seed..." and "Sweep" above each experiment that checks clean, from the
// server's rlx/experiments; an experiment with errors gets one lens that leads to them, one the
// trainer cannot run yet says why, and one that trains now shows its progress, Stop and Dashboard.
import * as vscode from 'vscode';
import { cannotTrainLens, plural } from '../messages.js';
import type { RlxClient } from '../server/client.js';
import { liveLenses, type Training } from './live-lens.js';

export class TrainCodeLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changeEmitter.event;
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];

  constructor(
    private readonly client: RlxClient,
    /** What trains now from a file's experiment (this window's jobs, and runs in its runs folder). */
    private readonly trainingOf: (uri: vscode.Uri, experiment: string) => Training,
    /** Fires when something that trains changes (progress, start, end). */
    onDidChangeTraining: vscode.Event<void>,
  ) {
    this.disposables.push(
      client.onDidChangeState(() => this.changeEmitter.fire()),
      onDidChangeTraining(() => this.changeEmitter.fire()),
      // Clean or not changes with the diagnostics, also those of imported files.
      vscode.languages.onDidChangeDiagnostics((e) => {
        if (e.uris.some((u) => u.path.endsWith('.rlx'))) this.changeEmitter.fire();
      }),
    );
  }

  async provideCodeLenses(document: vscode.TextDocument, token: vscode.CancellationToken): Promise<vscode.CodeLens[]> {
    let experiments;
    try {
      experiments = await this.client.experiments(document.uri, token);
    } catch {
      return []; // the document changed meanwhile, or the server restarts: the editor asks again
    }
    const lenses: vscode.CodeLens[] = [];
    for (const info of experiments ?? []) {
      const range = this.client.asRange(info.nameRange);
      const args = [document.uri, info.name];
      if (!info.clean) {
        lenses.push(new vscode.CodeLens(range, { title: `$(error) fix ${plural(info.errors, 'error')} to train`, command: 'workbench.actions.view.problems', tooltip: `${info.name} cannot train while the file or its imports have errors` }));
      } else if (info.unsupported.length > 0) {
        // The trainer would refuse it: say why where "Train" would be (the warning is in Problems too).
        const { title, tooltip } = cannotTrainLens(info.unsupported);
        lenses.push(new vscode.CodeLens(range, { title, command: 'workbench.actions.view.problems', tooltip }));
      } else if (this.live(lenses, range, document.uri, info.name)) {
        // Training now: its state, Stop and Dashboard where Train was, as a running notebook cell.
      } else if (info.kind === 'sweep') {
        lenses.push(new vscode.CodeLens(range, { title: '$(play) Sweep', command: 'rlx.trainSweep', arguments: args, tooltip: `Train every member of ${info.name}` }));
      } else {
        lenses.push(
          new vscode.CodeLens(range, { title: '$(play) Train', command: 'rlx.train', arguments: args, tooltip: `Train ${info.name} (rlx train)` }),
          new vscode.CodeLens(range, { title: 'Train with seed…', command: 'rlx.trainWithSeed', arguments: args }),
        );
      }
      if (info.clean) lenses.push(new vscode.CodeLens(range, { title: 'Plan', command: 'rlx.showPlan', arguments: args, tooltip: 'The resolved plan the trainer would run' }));
    }
    return lenses;
  }

  private live(lenses: vscode.CodeLens[], range: vscode.Range, uri: vscode.Uri, name: string): boolean {
    const live = liveLenses(this.trainingOf(uri, name));
    for (const command of live) lenses.push(new vscode.CodeLens(range, command));
    return live.length > 0;
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
