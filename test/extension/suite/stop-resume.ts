// Stopping (SIGINT, as Ctrl-C: the trainer checkpoints and writes `stopped`), resuming from the Runs view,
// and the queue beyond rlx.train.maxParallel.
/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RlxApi } from '../../../extension/api.js';
import type { TrainOutcome } from '../../../extension/training/launcher.js';
import type { StatusFile } from '../../../runtime/run/reader.js';
import { codeLenses, EXTENSION_ID, open, readJson, rlxApi, screenshot, setSetting, tinySpec, waitFor, workspaceDir, writeSpec } from './helpers.js';

suite('stop and resume', () => {
  let api: RlxApi;

  suiteSetup(async () => {
    api = await rlxApi();
  });

  test('stops a run cleanly and resumes it from the Runs view', async function () {
    this.timeout(120_000);
    const uri = writeSpec('long.rlx', tinySpec('Long', '5M', '[7]'));
    const outcome = await vscode.commands.executeCommand<TrainOutcome>('rlx.train', uri, 'Long');
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
    const job = outcome.batch.jobs[0];
    const progress = await waitFor('the run to train a few updates', () => (job.progress && job.progress.step >= 512 ? job.progress : undefined), 60_000);
    const runDir = progress.runDir;

    const runNode = await waitFor('the running run in the Runs view', () => {
      api.refreshRuns();
      const long = api.runsTree().find((n) => n.label === 'Long');
      return long?.children.find((c) => c.contextValue === 'run.running');
    });
    assert.equal(runNode.icon, 'sync~spin');
    assert.match(runNode.description ?? '', /\/5M steps/);

    // The lens over the experiment shows it training, as a running notebook cell does, instead of Train.
    await open(uri);
    const live = await waitFor('the live lens of Long', async () => {
      const lenses = await codeLenses(uri);
      return lenses.some((l) => /^\$\(sync~spin\) Training \d+%$/.test(l.command?.title ?? '')) ? lenses : undefined;
    });
    assert.deepEqual(live.map((l) => l.command?.title.replace(/\d+%/, 'N%')), ['$(sync~spin) Training N%', '$(debug-stop) Stop', 'Dashboard', 'Plan']);
    assert.equal(live.find((l) => l.command?.title === 'Dashboard')?.command?.arguments?.[0], runDir);
    for (const theme of ['Default Light Modern', 'Default Dark Modern']) {
      await vscode.workspace.getConfiguration('workbench').update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('notifications.clearAll');
      await vscode.window.showTextDocument(uri, { viewColumn: vscode.ViewColumn.One });
      await screenshot(`lens-training-${theme.includes('Light') ? 'light' : 'dark'}`);
    }
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', undefined, vscode.ConfigurationTarget.Global);

    // Stop from the lens.
    const stop = live.find((l) => l.command?.title === '$(debug-stop) Stop')!.command!;
    assert.equal(await vscode.commands.executeCommand<boolean>(stop.command, ...(stop.arguments ?? [])), true);
    const [stopped] = await outcome.batch.done;
    assert.equal(stopped.state, 'stopped');
    // In the editor's words, with the way on.
    const notice = await waitFor('the stopped notification', () => api.lastTrainingNotice());
    assert.match(notice.message, /^Training Long stopped\. It saved a checkpoint: Resume goes on from there\.$/);
    // The run's dashboard is open (it opened with Train): no button to open it again.
    assert.deepEqual(notice.actions, ['Resume']);
    const status = readJson<StatusFile>(path.join(runDir, 'status.json'));
    assert.equal(status.status, 'stopped');
    const stoppedAt = status.step;

    const resumed = await vscode.commands.executeCommand<TrainOutcome>('rlx.resumeRun', runDir);
    assert.ok(resumed.ok, resumed.ok ? '' : resumed.reason);
    const again = resumed.batch.jobs[0];
    await waitFor('the resumed run to go past its checkpoint', () => (again.progress && again.progress.step > stoppedAt ? true : undefined), 60_000);
    assert.equal(await vscode.commands.executeCommand<boolean>('rlx.stopRun', runDir), true);
    const [end] = await resumed.batch.done;
    assert.equal(end.state, 'stopped');
    const events = fs.readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; resumed?: boolean });
    assert.ok(events.some((e) => e.type === 'status' && e.resumed === true), 'a resumed status event');
  });

  test('queues runs beyond rlx.train.maxParallel', async function () {
    this.timeout(120_000);
    const restore = await setSetting('train.maxParallel', 1);
    try {
      const uri = writeSpec('queue.rlx', tinySpec('Queued', '5M', '[1, 2]'));
      const outcome = await vscode.commands.executeCommand<TrainOutcome>('rlx.train', uri, 'Queued');
      assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
      assert.equal(outcome.batch.jobs.length, 2, 'one run per seed');
      const [first, second] = outcome.batch.jobs;
      await waitFor('the first seed to start', () => first.progress !== undefined, 60_000);
      assert.equal(second.state, 'queued');
      assert.match(api.statusBar().training, /rlx: Queued seed 1 \d+%, 1 queued/);
      const queuedNode = api.runsTree().find((n) => n.label === 'Queued')?.children.find((c) => c.contextValue === 'run.queued');
      assert.equal(queuedNode?.label, 'Queued seed 2');

      // Stopping the first frees its slot for the second.
      await vscode.commands.executeCommand('rlx.stopRun', first.progress!.runDir);
      await waitFor('the second seed to start', () => second.progress !== undefined, 60_000);
      await vscode.commands.executeCommand('rlx.stopRun', second.progress!.runDir);
      const results = await outcome.batch.done;
      assert.deepEqual(results.map((r) => r.state), ['stopped', 'stopped']);
    } finally {
      await restore();
    }
  });

  test('shows runs started from a terminal, through the file watcher', async function () {
    this.timeout(60_000);
    const uri = writeSpec('terminal.rlx', tinySpec('FromTerminal', '1k'));
    const cli = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'rlx.mjs');
    // As a user would type it in a terminal: the extension does not know this process.
    const trainer = spawnSync(process.execPath, [cli, 'train', uri.fsPath, '--out', 'runs', '--device', 'cpu'], { cwd: workspaceDir(), encoding: 'utf8' });
    assert.equal(trainer.status, 0, trainer.stderr);
    // No refreshRuns(): the view hears of it by itself.
    const node = await waitFor('the terminal run in the Runs view', () => api.runsTree().find((n) => n.label === 'FromTerminal'), 20_000);
    assert.equal(node.children[0]?.icon, 'pass');
  });
});
