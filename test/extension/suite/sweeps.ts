// Sweeps in the Runs view (issue 18 #5): a small sweep run from its Sweep lens (`rlx sweep`, its
// members as processes of their own) shows under its experiment as "sweep NAME", each member
// labelled by the values it varies; Compare on the sweep opens every member, grouped by
// configuration, with how many runs each mean averages.
/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RlxApi } from '../../../extension/api.js';
import type { TrainOutcome } from '../../../extension/training/launcher.js';
import { codeLenses, open, rlxApi, screenshot, tinySpec, waitFor, writeSpec } from './helpers.js';

const SWEEP = `
sweep LrPair over Swept {
  algorithm.learning_rate: [1e-3, 3e-3]
  seeds: [1, 2]
  strategy: grid
  parallel: 2
}
`;

suite('sweeps', () => {
  let api: RlxApi;

  suiteSetup(async () => {
    api = await rlxApi();
  });

  test('groups a sweep\'s runs under "sweep NAME", each labelled by the values it varies, and compares the whole sweep', async function () {
    this.timeout(240_000);
    const uri = writeSpec('sweep.rlx', tinySpec('Swept', '1k') + SWEEP);
    await open(uri);
    const lens = await waitFor('the Sweep lens of LrPair', async () => (await codeLenses(uri)).find((l) => l.command?.command === 'rlx.trainSweep'));
    const outcome = await vscode.commands.executeCommand<TrainOutcome>(lens.command!.command, ...(lens.command!.arguments ?? []));
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
    const results = await outcome.batch.done;
    assert.deepEqual(results.map((r) => [r.state, r.runDirs.length]), [['finished', 4]], results.map((r) => r.error ?? '').join('\n'));

    api.refreshRuns();
    const experiment = await waitFor('Swept in the Runs view', () => api.runsTree().find((n) => n.label === 'Swept'));
    assert.match(experiment.description ?? '', /^4 runs$/);
    const sweep = experiment.children.find((c) => c.label === 'sweep LrPair');
    assert.ok(sweep, `children of Swept: ${experiment.children.map((c) => c.label).join(', ')}`);
    assert.equal(sweep.contextValue, 'sweep');
    assert.equal(sweep.description, '4 runs');
    // Member order: each learning rate, then its seeds.
    assert.deepEqual(sweep.children.map((c) => c.label), ['lr=1e-3 · seed 1', 'lr=1e-3 · seed 2', 'lr=3e-3 · seed 1', 'lr=3e-3 · seed 2']);
    for (const member of sweep.children) {
      assert.equal(member.contextValue, 'run.finished');
      // The return first: what tells members apart survives the side bar cutting the row off.
      assert.match(member.description ?? '', /^return \d+\.\d · (\d{1,3}(,\d{3})?|\d+(\.\d+)?k) steps · (<1|\d+)s$/);
    }

    // Only the comparison in the editor area, for the screenshots.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // Compare Runs… on the sweep's row (its context menu passes the row, and the selection).
    await vscode.commands.executeCommand('rlx.compareRuns', sweep.element, [sweep.element]);
    const panel = await waitFor('the comparison', () => api.panels().find((p) => p.viewType === 'rlx.compare'));
    assert.equal(panel.title, 'Compare 4 runs');
    assert.deepEqual([...panel.runDirs].sort(), results[0].runDirs.slice().sort());
    await vscode.commands.executeCommand('workbench.view.extension.rlx');
    for (const theme of ['Default Light Modern', 'Default Dark Modern']) {
      await vscode.workspace.getConfiguration('workbench').update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('notifications.clearAll');
      // The mouse over the chart: its legend reads out each mean and how many runs it averages there.
      const seen = await screenshot(`sweep-compare-${theme.includes('Light') ? 'light' : 'dark'}`, { hover: '.u-over' });
      if (!seen) continue;
      // What the page shows: the sweep, its configurations by their values, and how many runs each
      // mean averages. The harness waits until the webview on screen is drawn (a new webview's
      // frames take seconds to appear under code-server: screenshots taken after a fixed 1.5 s
      // showed a blank editor).
      const page = seen.webviews.find((w) => w.includes('of sweep LrPair'));
      assert.ok(page, `the comparison's page in the picture (${seen.webviewWait})`);
      assert.match(page, /4 runs of sweep LrPair in 2 configurations/);
      // (The legend's colon is drawn by its style sheet: not in the page's text.)
      assert.match(page, /lr=1e-3 \(mean of 2 runs\):?\s*[-\d.]+ \(n=2 of 2\)/);
      assert.match(page, /lr=3e-3 \(mean of 2 runs\) ★ best:?\s*[-\d.]+ \(n=2 of 2\)/);
      // The side bar's rows as read out (a row's aria label: its tooltip, else its label and description).
      assert.ok(seen.sideBarRows.some((r) => r.startsWith('Sweep LrPair of Swept')), `side bar: ${seen.sideBarRows.join(' | ')}`);
      assert.ok(seen.sideBarRows.some((r) => /^lr=3e-3 · seed 2 return \d+\.\d · \d+ steps/.test(r)), `side bar: ${seen.sideBarRows.join(' | ')}`);
    }
    await vscode.workspace.getConfiguration('workbench').update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
