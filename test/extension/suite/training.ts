// Training from the editor, end to end: the Train lens starts the bundled trainer, the run
// directory fills, the Runs view and the status bar show it, and its panels open.
/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RlxApi, RunsTreeSnapshot } from '../../../extension/api.js';
import type { TrainOutcome } from '../../../extension/training/launcher.js';
import type { StatusFile } from '../../../runtime/run/reader.js';
import { codeLenses, open, readJson, reportFigure, rlxApi, screenshot, tinySpec, waitFor, workspaceDir, writeSpec } from './helpers.js';

suite('training', () => {
  let api: RlxApi;
  let runDir: string;
  let secondRun: string;

  suiteSetup(async () => {
    api = await rlxApi();
  });

  test('trains a tiny experiment from its Train lens', async function () {
    this.timeout(120_000);
    const uri = writeSpec('tiny.rlx', tinySpec('Tiny', '3k'));
    await open(uri);
    const lens = await waitFor('the Train lens of Tiny', async () => (await codeLenses(uri)).find((l) => l.command?.command === 'rlx.train'));
    assert.deepEqual(lens.command!.arguments?.[1], 'Tiny');
    const clicked = Date.now();
    const outcome = await vscode.commands.executeCommand<TrainOutcome>(lens.command!.command, ...(lens.command!.arguments ?? []));
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
    // Live from the first click (rlx.openDashboardOnTrain: open): the run's dashboard opens as the run starts.
    const dashboard = await waitFor('the new run\'s dashboard', () => api.panels().find((p) => p.viewType === 'rlx.dashboard'));
    const opened = Date.now() - clicked;
    const dir = dashboard.runDirs[0];
    const firstUpdate = await waitFor('the first update in events.jsonl', () => {
      const text = fs.existsSync(path.join(dir, 'events.jsonl')) ? fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8') : '';
      return text.includes('"type":"metrics"') ? Date.now() - clicked : undefined;
    }, 60_000, 20);
    // The page reads the run's events once a second (extension/panels/run-panel.ts POLL_MS).
    reportFigure(`[timing] click to dashboard open: ${opened} ms; click to first update written: ${firstUpdate} ms (the page draws it within its 1 s poll)`);
    // While it trains, the status bar says so.
    const seen = await waitFor('the training status item', () => {
      const text = api.statusBar().training;
      return text.includes('Tiny') ? text : undefined;
    });
    assert.match(seen, /rlx: Tiny/);
    const [result] = await outcome.batch.done;
    assert.equal(result.state, 'finished', result.error);
    assert.equal(result.runDirs.length, 1);
    runDir = result.runDirs[0];
  });

  test('the Plan lens opens the resolved plan read-only, not as an untitled buffer to save', async () => {
    const uri = vscode.Uri.file(path.join(workspaceDir(), 'tiny.rlx'));
    await open(uri);
    const lens = await waitFor('the Plan lens of Tiny', async () => (await codeLenses(uri)).find((l) => l.command?.command === 'rlx.showPlan'));
    await vscode.commands.executeCommand(lens.command!.command, ...(lens.command!.arguments ?? []));
    const editor = await waitFor('the plan editor', () => vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'rlx-plan'));
    const doc = editor.document;
    assert.equal(doc.isUntitled, false);
    assert.equal(doc.languageId, 'json');
    assert.equal((JSON.parse(doc.getText()) as { experiment: string }).experiment, 'Tiny');
    // A content provider's document: the workbench shows it read-only and never asks to save it.
    assert.equal(doc.isDirty, false);
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  test('writes the run directory under the runs folder', () => {
    assert.equal(path.dirname(path.dirname(runDir)), path.join(workspaceDir(), 'runs'));
    assert.equal(path.basename(path.dirname(runDir)), 'Tiny');
    const status = readJson<StatusFile>(path.join(runDir, 'status.json'));
    assert.equal(status.status, 'finished');
    assert.equal(status.seed, 1);
    assert.ok(status.step >= 2000, `steps: ${status.step}`);
    const events = fs.readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string });
    assert.ok(events.some((e) => e.type === 'metrics'));
    assert.ok(fs.existsSync(path.join(runDir, 'plan.json')));
    assert.ok(fs.existsSync(path.join(runDir, 'source', 'tiny.rlx')));
    assert.ok(fs.existsSync(path.join(runDir, 'checkpoints', 'policy-final.onnx')));
  });

  test('exports the run\'s metrics as CSV: a column per scalar metric, a row per logged step', async () => {
    const target = vscode.Uri.file(path.join(workspaceDir(), 'tiny-metrics.csv'));
    const written = await vscode.commands.executeCommand<vscode.Uri>('rlx.exportMetricsCsv', runDir, undefined, target);
    assert.equal(written?.fsPath, target.fsPath);
    const [header, ...rows] = fs.readFileSync(target.fsPath, 'utf8').trim().split('\n');
    const events = fs.readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; step: number; values?: Record<string, number> });
    const logged = events.filter((e) => e.type === 'metrics' || e.type === 'eval');
    const names = new Set(logged.flatMap((e) => Object.keys(e.values ?? {})));
    assert.deepEqual(header.split(','), ['step', ...[...names].sort()]);
    assert.equal(rows.length, new Set(logged.map((e) => e.step)).size);
    assert.ok(header.includes('charts/sps'));
  });

  test('shows the run in the Runs view', async () => {
    api.refreshRuns();
    const tiny = await waitFor('Tiny in the Runs view', () => api.runsTree().find((n) => n.label === 'Tiny'));
    assert.equal(tiny.icon, 'beaker');
    assert.match(tiny.description ?? '', /1 run/);
    const run: RunsTreeSnapshot | undefined = tiny.children[0];
    assert.ok(run, 'a run under Tiny');
    assert.equal(run.label, 'seed 1');
    assert.equal(run.icon, 'pass');
    assert.equal(run.contextValue, 'run.finished');
    // Steps as shared/format.ts writes them: 2,944 below 10k, 20.5k above.
    assert.match(run.description ?? '', /^(\d{1,3}(,\d{3})?|\d+(\.\d+)?k) steps · return \d+\.\d · (<1|\d+)s$/);
  });

  test('shows the result and the server in the status bar', () => {
    const { server, training } = api.statusBar();
    assert.equal(server, '$(check) rlx');
    assert.match(training, /^\$\(check\) rlx: Tiny finished$/);
  });

  test('opens the dashboard, rollouts and comparison panels of the run', async () => {
    await vscode.commands.executeCommand('rlx.openDashboard', runDir);
    const dashboardLoads = () => api.panels().find((p) => p.viewType === 'rlx.dashboard')?.pageLoads ?? 0;
    await waitFor('the dashboard page to load', () => dashboardLoads() === 1);
    await vscode.commands.executeCommand('rlx.openRollouts', runDir);
    await vscode.commands.executeCommand('rlx.compareRuns', undefined, undefined, [runDir]);
    const panels = api.panels();
    for (const viewType of ['rlx.dashboard', 'rlx.rollouts', 'rlx.compare']) {
      const panel = panels.find((p) => p.viewType === viewType);
      assert.ok(panel, `${viewType} is open`);
      assert.deepEqual(panel.runDirs, [runDir]);
    }
    // The workbench's own tabs (its model follows the extension host's a moment later).
    const title = 'Tiny/' + path.basename(runDir);
    await waitFor(`a webview tab titled ${title}`, () =>
      vscode.window.tabGroups.all.flatMap((g) => g.tabs).some((t) => t.input instanceof vscode.TabInputWebview && t.label === title),
    );
    await vscode.commands.executeCommand('rlx.openDashboard', runDir);
    // Revealed, the dashboard shows the page it had (retainContextWhenHidden: hidden behind the
    // other two, it was not unloaded); the harness still waits until the page on screen is
    // drawn, and the picture must show it, not a blank editor.
    await waitFor('the dashboard\'s tab in front', () => vscode.window.tabGroups.activeTabGroup.activeTab?.label === title);
    const seen = await screenshot('dashboard');
    if (seen) {
      const page = seen.webviews.find((w) => w.includes(`Tiny / ${path.basename(runDir)}`));
      assert.ok(page, `the dashboard's page in the picture (${seen.webviewWait})`);
      assert.match(page, /finished/i);
      assert.match(page, /Episode return/);
      assert.ok(seen.webviewsDrawn, seen.webviewWait);
    }
    // Opening the same run again shows the same panel, and its page was never reloaded: tab
    // switches do not make it take in the run's history again.
    await vscode.commands.executeCommand('rlx.openDashboard', runDir);
    assert.equal(api.panels().filter((p) => p.viewType === 'rlx.dashboard').length, 1);
    assert.equal(dashboardLoads(), 1, 'the dashboard page loaded once');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await waitFor('the panels to close', () => api.panels().length === 0, 10_000);
  });

  test('trains from "rlx: Train Experiment…" through its quick pick', async function () {
    this.timeout(120_000);
    const uri = vscode.Uri.file(path.join(workspaceDir(), 'tiny.rlx'));
    await open(uri);
    const pending = vscode.commands.executeCommand<TrainOutcome | undefined>('rlx.trainExperiment');
    // The quick pick lists the active file's experiments: accept the first, as Enter would.
    await new Promise((r) => setTimeout(r, 1000));
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    const outcome = await pending;
    assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'no outcome');
    const [result] = await outcome.batch.done;
    assert.equal(result.state, 'finished', result.error);
    assert.equal(path.basename(path.dirname(result.runDirs[0])), 'Tiny');
    secondRun = result.runDirs[0];
  });

  test('opens a run\'s plan, and deletes a run when confirmed', async () => {
    await vscode.commands.executeCommand('rlx.openPlan', secondRun);
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, path.join(secondRun, 'plan.json'));
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    // One question, whether or not this file system has a trash (code-server's remote one has none).
    const questions: string[] = [];
    const ask = async (message: string) => (questions.push(message), true);
    const deleted = await vscode.commands.executeCommand<boolean>('rlx.deleteRun', secondRun, undefined, { ask });
    assert.equal(deleted, true);
    assert.equal(questions.length, 1, `asked: ${questions.join(' | ')}`);
    assert.doesNotMatch(questions[0], /vscode-remote|EntryNotFound|Error/);
    assert.equal(fs.existsSync(secondRun), false);
    api.refreshRuns();
    assert.equal(api.runsTree().find((n) => n.label === 'Tiny')?.children.length, 1);
  });

  test('"Train with seed…" offers a seed no run of the experiment used', async function () {
    this.timeout(120_000);
    const uri = vscode.Uri.file(path.join(workspaceDir(), 'tiny.rlx'));
    api.refreshRuns();
    const pending = vscode.commands.executeCommand<TrainOutcome | undefined>('rlx.trainWithSeed', uri, 'Tiny');
    // Accept the input box as offered, as Enter would.
    await new Promise((r) => setTimeout(r, 1000));
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    const outcome = await pending;
    assert.ok(outcome?.ok, outcome && !outcome.ok ? outcome.reason : 'no outcome');
    const [result] = await outcome.batch.done;
    assert.equal(result.state, 'finished', result.error);
    assert.equal(readJson<StatusFile>(path.join(result.runDirs[0], 'status.json')).seed, 2, 'seed 1 was taken by the first run');
  });
});
