// The language server's state in the status bar: starting, running, or stopped with a way back.
import * as vscode from 'vscode';
import type { RlxClient, ServerState } from './client.js';

const LOOK: Record<ServerState, { text: string; tooltip: string; error?: boolean }> = {
  starting: { text: '$(sync~spin) rlx', tooltip: 'The rlx language server is starting' },
  running: { text: '$(check) rlx', tooltip: 'The rlx language server is running' },
  stopped: { text: '$(circle-slash) rlx', tooltip: 'The rlx language server is stopped', error: true },
  failed: { text: '$(error) rlx', tooltip: 'The rlx language server did not start', error: true },
};

export class ServerStatusItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly client: RlxClient) {
    this.item = vscode.window.createStatusBarItem('rlx.server', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'rlx Language Server';
    this.subscription = client.onDidChangeState(() => this.update());
    this.update();
    this.item.show();
  }

  get text(): string {
    return this.item.text;
  }

  private update(): void {
    const state = this.client.state;
    const look = LOOK[state];
    this.item.text = look.text;
    const tooltip = new vscode.MarkdownString(
      `${look.tooltip}${state === 'failed' && this.client.lastError ? `: ${this.client.lastError}` : ''}\n\n` +
        '[Restart](command:rlx.restartServer) · [Show Log](command:rlx.showServerLog)',
    );
    tooltip.isTrusted = { enabledCommands: ['rlx.restartServer', 'rlx.showServerLog'] };
    this.item.tooltip = tooltip;
    this.item.command = look.error ? 'rlx.restartServer' : 'rlx.showServerLog';
    this.item.backgroundColor = look.error ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
