// Shared by the editor suites: the extension's API, the test workspace, and waiting for the
// editor (diagnostics, lenses, runs) without fixed sleeps.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RlxApi } from '../../../extension/api.js';
import type { WorkbenchText } from '../harness/code-server.js';

export const EXTENSION_ID = 'rlx.rlx';

export async function rlxApi(): Promise<RlxApi> {
  const extension = vscode.extensions.getExtension<RlxApi>(EXTENSION_ID);
  if (!extension) throw new Error(`the extension ${EXTENSION_ID} is not loaded (is extensionDevelopmentPath the repository root?)`);
  const api = await extension.activate();
  await api.whenServerRunning(60_000);
  return api;
}

export function workspaceDir(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the editor tests need a workspace folder');
  return folder.uri.fsPath;
}

/** Writes a spec into the workspace and returns its Uri. */
export function writeSpec(name: string, text: string): vscode.Uri {
  const file = path.join(workspaceDir(), name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return vscode.Uri.file(file);
}

export async function open(uri: vscode.Uri): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(uri);
  return vscode.window.showTextDocument(doc, { preview: false });
}

/** Polls until `check` returns a value that is not undefined/false; fails with `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function waitForDiagnostics(uri: vscode.Uri, match: (d: vscode.Diagnostic[]) => boolean, timeoutMs = 30_000): Promise<vscode.Diagnostic[]> {
  return waitFor(`diagnostics of ${path.basename(uri.fsPath)}`, () => {
    const diagnostics = vscode.languages.getDiagnostics(uri);
    return match(diagnostics) ? diagnostics : undefined;
  }, timeoutMs);
}

export async function codeLenses(uri: vscode.Uri): Promise<vscode.CodeLens[]> {
  return (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100)) ?? [];
}

/** Sets an rlx setting for the workspace; returns a function that puts the old value back. */
export async function setSetting(key: string, value: unknown): Promise<() => Promise<void>> {
  const config = vscode.workspace.getConfiguration('rlx');
  const previous = config.inspect(key)?.workspaceValue;
  await config.update(key, value, vscode.ConfigurationTarget.Workspace);
  return async () => {
    await vscode.workspace.getConfiguration('rlx').update(key, previous, vscode.ConfigurationTarget.Workspace);
  };
}

/** The spec the training suites train: small enough to finish in about a second. */
export function tinySpec(name: string, budget = '3k', seeds = '[1]'): string {
  return `// A tiny experiment for the editor tests.
env Pole = CartPole { max_steps: 200 }

policy Small = mlp { hidden: [16] }

algorithm Quick = PPO {
  rollout_steps: 64
  epochs: 2
}

experiment ${name} {
  env: Pole
  envs: 2
  policy: Small
  algorithm: Quick
  budget: ${budget}
  seeds: ${seeds}
}
`;
}

export function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

/**
 * Asks the harness for a screenshot of the workbench as it is now (code-server only: it watches
 * RLX_TEST_SCREENSHOT_DIR) and returns what it shows as text (status bar, notifications, side bar
 * rows, webview pages); undefined when nobody takes screenshots.
 */
export async function screenshot(name: string, options: { hover?: string } = {}): Promise<WorkbenchText | undefined> {
  const dir = process.env.RLX_TEST_SCREENSHOT_DIR;
  if (!dir) return undefined;
  await new Promise((r) => setTimeout(r, 1500)); // let the workbench lay out and paint
  const done = path.join(dir, `done-${name}`);
  fs.rmSync(done, { force: true });
  // `hover`: a selector in a webview the mouse is put over first (a chart's read-out shows on hover).
  // `webviews`: how many are on screen (each editor group's active tab), which the harness waits
  // to see drawn: VS Code makes a webview's frames some time after the command that shows it.
  const webviews = vscode.window.tabGroups.all.filter((g) => g.activeTab?.input instanceof vscode.TabInputWebview).length;
  fs.writeFileSync(path.join(dir, 'request'), JSON.stringify({ name, hover: options.hover, webviews }));
  // Read until whole: the harness may be writing it.
  // The harness may wait up to 30 s for the webviews on screen to be drawn (harness/code-server.ts).
  return waitFor(`the harness to take the screenshot ${name}`, () => fs.existsSync(done) && (JSON.parse(fs.readFileSync(done, 'utf8')) as WorkbenchText), 45_000, 200);
}

/** A figure the suites measure (click to first update...): printed, and kept beside the results file. */
export function reportFigure(line: string): void {
  console.log(line);
  const results = process.env.RLX_TEST_RESULTS;
  if (results) fs.appendFileSync(path.join(path.dirname(results), 'figures.log'), line + '\n');
}
