// Problems, not stack traces: each way training can be refused or fail says why, and what to do.
/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RlxApi } from '../../../extension/api.js';
import type { TrainOutcome } from '../../../extension/training/launcher.js';
import { open, rlxApi, setSetting, tinySpec, waitFor, waitForDiagnostics, workspaceDir, writeSpec } from './helpers.js';

suite('problems', () => {
  let api: RlxApi;

  suiteSetup(async () => {
    api = await rlxApi();
  });

  test('refuses a spec with errors: fix the 2 errors first', async () => {
    const uri = writeSpec('two-errors.rlx', tinySpec('TwoErrors').replace('max_steps: 200', 'max_steps: -3, gravity: -1'));
    await open(uri);
    await waitForDiagnostics(uri, (d) => d.length >= 2);
    const outcome = await vscode.commands.executeCommand<TrainOutcome>('rlx.train', uri, 'TwoErrors');
    assert.deepEqual(outcome, { ok: false, reason: 'Cannot train TwoErrors: fix the 2 errors first.' });
  });

  test('refuses a runs folder that cannot be written', async () => {
    fs.writeFileSync(path.join(workspaceDir(), 'not-a-folder'), 'a file where the runs folder would go\n');
    const restore = await setSetting('runs.folder', 'not-a-folder/runs');
    try {
      const uri = writeSpec('folder.rlx', tinySpec('Folder'));
      const outcome = await vscode.commands.executeCommand<TrainOutcome>('rlx.train', uri, 'Folder');
      assert.equal(outcome.ok, false);
      assert.match(outcome.ok ? '' : outcome.reason, /^Cannot write runs to .*not-a-folder\/runs \(a file is in the way\)\. Choose another folder with the setting rlx\.runs\.folder\.$/);
    } finally {
      await restore();
    }
  });

  test('reports a trainer that is not there', async () => {
    const restore = await setSetting('trainer.path', './no-such-trainer.js');
    try {
      const uri = writeSpec('missing.rlx', tinySpec('Missing'));
      const outcome = await vscode.commands.executeCommand<TrainOutcome>('rlx.train', uri, 'Missing');
      assert.equal(outcome.ok, false);
      assert.match(outcome.ok ? '' : outcome.reason, /^The rlx trainer was not found at .*no-such-trainer\.js\. Fix the setting rlx\.trainer\.path/);
    } finally {
      await restore();
    }
  });

  test('reports a trainer that breaks before training, with its error', async function () {
    this.timeout(60_000);
    // What a trainer whose native module does not load prints (as the bundle would).
    fs.writeFileSync(path.join(workspaceDir(), 'broken-trainer.mjs'), "process.stderr.write('rlx train: internal error: cannot load onnxruntime_binding.node\\n');\nprocess.exitCode = 70;\n");
    const restore = await setSetting('trainer.path', 'broken-trainer.mjs');
    try {
      const uri = writeSpec('broken-trainer.rlx', tinySpec('BrokenTrainer'));
      const outcome = await vscode.commands.executeCommand<TrainOutcome>('rlx.train', uri, 'BrokenTrainer');
      assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
      const [result] = await outcome.batch.done;
      assert.equal(result.state, 'failed');
      assert.equal(result.error, 'internal error: cannot load onnxruntime_binding.node');
      assert.deepEqual(result.runDirs, []);
      await waitFor('the failure in the status bar', () => /\$\(error\) rlx: BrokenTrainer failed/.test(api.statusBar().training));
    } finally {
      await restore();
    }
  });

  test('reports a run that fails while training, with the run error', async function () {
    this.timeout(60_000);
    // An env module that throws after a few steps: the run directory exists and is marked failed.
    fs.writeFileSync(
      path.join(workspaceDir(), 'flaky_env.ts'),
      `let steps = 0;
export default class Flaky {
  observationSpace = { kind: 'box', shape: [1], low: [-1], high: [1] };
  actionSpace = { kind: 'discrete', n: 2 };
  maxSteps = 20;
  constructor(_params: Record<string, unknown>) {}
  reset(_seed?: number) { return { obs: [0], info: {} }; }
  step(_action: number) {
    if (++steps > 600) throw new Error('the flaky env broke at step ' + steps);
    return { obs: [0], reward: 1, terminated: false, truncated: false, info: {} };
  }
}
`,
    );
    const uri = writeSpec('flaky.rlx', tinySpec('Flaky').replace('env Pole = CartPole { max_steps: 200 }', 'env Pole = module("./flaky_env.ts")'));
    const outcome = await vscode.commands.executeCommand<TrainOutcome>('rlx.train', uri, 'Flaky');
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
    const [result] = await outcome.batch.done;
    assert.equal(result.state, 'failed');
    assert.match(result.error ?? '', /the flaky env broke at step/);
    assert.equal(result.runDirs.length, 1, 'the failed run has its directory');
  });
});
