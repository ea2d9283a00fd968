// A window reload while a run trains (issue 17 #5): the trainer is detached and goes on; the new
// window follows it again: the status bar item, the progress notification and the live lens come
// back, and Stop stops that run, without asking "Stop which run?". The reload is real
// (workbench.action.reloadWindow); session.ts carries the results over it.
/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TrainOutcome } from '../../../extension/training/launcher.js';
import type { StatusFile } from '../../../runtime/run/reader.js';
import { codeLenses, open, readJson, rlxApi, screenshot, tinySpec, waitFor, workspaceDir, writeSpec } from './helpers.js';
import { afterReload, canReload, reloadWindow } from './session.js';

const SPEC = 'reattach.rlx';

suite('reattach', () => {
  test('starts a long run from its Train lens, then reloads the window while it trains', async function () {
    if (!canReload()) this.skip();
    this.timeout(120_000);
    const api = await rlxApi();
    const uri = writeSpec(SPEC, tinySpec('Reattach', '5M', '[3]'));
    await open(uri);
    const lens = await waitFor('the Train lens of Reattach', async () => (await codeLenses(uri)).find((l) => l.command?.command === 'rlx.train'));
    const outcome = await vscode.commands.executeCommand<TrainOutcome>(lens.command!.command, ...(lens.command!.arguments ?? []));
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
    const job = outcome.batch.jobs[0];
    await waitFor('the run to train a few updates', () => job.progress && job.progress.step >= 512, 60_000);
    assert.match(api.statusBar().training, /^\$\(sync~spin\) rlx: Reattach \d+%$/);
    await reloadWindow(this.test!.fullTitle());
  });

  test('after the reload: the status bar, the progress and the lens follow the run again, and Stop stops it without asking which', async function () {
    // Runs only in the window after the reload (the test before ends in it).
    if (!afterReload) this.skip();
    this.timeout(120_000);
    const api = await rlxApi();
    const uri = vscode.Uri.file(path.join(workspaceDir(), SPEC));
    api.refreshRuns();
    const run = api.runs().find((r) => r.experiment === 'Reattach' && r.state === 'running');
    assert.ok(run, `a running Reattach run: ${api.runs().map((r) => `${r.experiment}/${r.runId} ${r.state}`).join(', ')}`);
    const label = `Reattach/${run.runId}`;

    const job = await waitFor('the window to follow the run again', () => api.activeJobs().find((j) => j.runDirs.includes(run.dir)));
    assert.equal(job.state, 'running');
    assert.equal(job.label, label);
    await waitFor('its progress', () => job.progress && job.progress.step > 0);
    const status = await waitFor('the training status item', () => api.statusBar().training || undefined);
    assert.match(status, new RegExp(`^\\$\\(sync~spin\\) rlx: ${label} \\d+%$`));

    // The lens over the experiment shows it training again.
    await open(uri);
    const live = await waitFor('the live lens of Reattach', async () => {
      const lenses = await codeLenses(uri);
      return lenses.some((l) => /^\$\(sync~spin\) Training \d+%$/.test(l.command?.title ?? '')) ? lenses : undefined;
    });
    assert.deepEqual(live.map((l) => l.command?.title.replace(/\d+%/, 'N%')), ['$(sync~spin) Training N%', '$(debug-stop) Stop', 'Dashboard', 'Plan']);

    // What the window shows: the status bar item and the progress notification, back.
    await vscode.commands.executeCommand('workbench.view.extension.rlx');
    await vscode.window.showTextDocument(uri, { viewColumn: vscode.ViewColumn.One });
    const seen = await screenshot('reattach-after-reload');
    if (seen) {
      assert.ok(seen.statusBar.some((s) => s.includes(`rlx: ${label}`)), `status bar: ${seen.statusBar.join(' | ')}`);
      assert.ok(seen.notifications.some((n) => n.includes(`Training ${label}`)), `notifications: ${seen.notifications.join(' | ')}`);
    }

    // Stop from the lens: that run, no question. A "Stop which run?" would leave the command waiting.
    const stop = live.find((l) => l.command?.title === '$(debug-stop) Stop')!.command!;
    const stopping = vscode.commands.executeCommand<boolean>(stop.command, ...(stop.arguments ?? []));
    await Promise.race([stopping, waitFor('Stop to end the run without asking "Stop which run?"', () => job.state !== 'running', 60_000)]);
    assert.equal(await stopping, true);
    const result = await job.done;
    assert.equal(result.state, 'stopped');
    assert.equal(readJson<StatusFile>(path.join(run.dir, 'status.json')).status, 'stopped');
    const notice = await waitFor('the stopped notification', () => api.lastTrainingNotice());
    assert.equal(notice.message, `Training ${label} stopped. It saved a checkpoint: Resume goes on from there.`);
    // The run's dashboard is open (it opened with Train): no button to open it again.
    assert.deepEqual(notice.actions, ['Resume']);
  });
});
