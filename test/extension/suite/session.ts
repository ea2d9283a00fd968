// One editor test session across window reloads. A reload (workbench.action.reloadWindow) ends the
// extension host that runs the suites; the harness keeps the page, and the new host runs index.ts
// again. So before reloading, the results so far are written beside the results file with the
// title of the test that reloads; the next run reads them back and runs only the tests not run yet.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SuiteResults } from './index.js';

/** The results of this session so far, shared by index.ts (which fills them) and reloadWindow(). */
export const results: SuiteResults = { passed: [], failed: [], pending: [] };

function carryFile(): string | undefined {
  const file = process.env.RLX_TEST_RESULTS;
  return file ? path.join(path.dirname(file), 'before-reload.json') : undefined;
}

/** Whether the harness survives a reload of the window (code-server's does; test-electron's does not say). */
export function canReload(): boolean {
  return process.env.RLX_TEST_CAN_RELOAD === '1' && carryFile() !== undefined;
}

/**
 * The results from before a reload (and removes them, so that a later start begins afresh), or
 * undefined on a session's first start.
 */
export function takeCarriedResults(): SuiteResults | undefined {
  const file = carryFile();
  if (!file || !fs.existsSync(file)) return undefined;
  const carried = JSON.parse(fs.readFileSync(file, 'utf8')) as SuiteResults;
  fs.rmSync(file);
  return carried;
}

/** Whether this extension host started after a reload that a test asked for. */
export const afterReload = (() => {
  const file = carryFile();
  return file !== undefined && fs.existsSync(file);
})();

/**
 * Reloads the window as the last step of the test `title`, which counts as passed: everything it
 * asserted held. Never returns (the host running it ends); the test after it runs in the new host.
 */
export async function reloadWindow(title: string): Promise<never> {
  const file = carryFile();
  if (!file || !canReload()) throw new Error('this harness cannot reload the window (RLX_TEST_CAN_RELOAD)');
  fs.writeFileSync(file, JSON.stringify({ ...results, passed: [...results.passed, title] }, null, 2));
  await vscode.commands.executeCommand('workbench.action.reloadWindow');
  return new Promise<never>(() => undefined);
}
