// Problems, not stack traces: each way training can be refused or fail says why, and what to do.
/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RlxApi } from '../../../extension/api.js';
import type { TrainOutcome } from '../../../extension/training/launcher.js';
import { codeLenses, open, rlxApi, screenshot, setSetting, tinySpec, waitFor, waitForDiagnostics, workspaceDir, writeSpec } from './helpers.js';

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
    await vscode.commands.executeCommand('notifications.clearAll');
    try {
      const uri = writeSpec('broken-trainer.rlx', tinySpec('BrokenTrainer'));
      await open(uri);
      const outcome = await vscode.commands.executeCommand<TrainOutcome>('rlx.train', uri, 'BrokenTrainer');
      assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
      const [result] = await outcome.batch.done;
      assert.equal(result.state, 'failed');
      assert.equal(result.error, 'internal error: cannot load onnxruntime_binding.node');
      assert.deepEqual(result.runDirs, []);
      await waitFor('the failure in the status bar', () => /\$\(error\) rlx: BrokenTrainer failed/.test(api.statusBar().training));
      // The trainer is what to fix, not the spec: the notification leads to the setting.
      const notice = await waitFor('the failure notification', () => (/BrokenTrainer/.test(api.lastTrainingNotice()?.message ?? '') ? api.lastTrainingNotice() : undefined));
      assert.equal(notice.message, 'Training BrokenTrainer did not start: internal error: cannot load onnxruntime_binding.node. Check the trainer (setting rlx.trainer.path) and the output in "rlx Training".');
      assert.deepEqual(notice.actions, ['Open Log', 'Open Settings']);
      const seen = await screenshot('failed-start-bad-trainer');
      if (seen) assert.ok(seen.notifications.some((n) => n.includes('Training BrokenTrainer did not start') && n.includes('Open Settings')), `notifications: ${seen.notifications.join(' | ')}`);
    } finally {
      await restore();
    }
  });

  test('shows every line of a plan the trainer refuses at start, and leads to the spec, not the settings', async function () {
    this.timeout(60_000);
    // A text env whose spec the checker cannot read without running it (exported under another
    // name): the checker passes the spec, and the trainer, once it loads the module, refuses
    // an mlp policy and PPO for text actions: two problems.
    fs.writeFileSync(
      path.join(workspaceDir(), 'talk_env.ts'),
      `const textSpec = { actions: 'text', max_turns: 2, max_observation: 6, max_action: 4, alphabet: 'abcdefghijklmnopqrstuvwxyz' };
export { textSpec as spec };
export default class Talk {
  reset(_seed: number) { return { observation: 'go', info: {} }; }
  step(text: string) { return { observation: text.slice(0, 6), reward: text === 'ab' ? 1 : 0, done: true, info: {} }; }
}
`,
    );
    const uri = writeSpec('refused.rlx', tinySpec('Refused').replace('env Pole = CartPole { max_steps: 200 }', 'env Pole = module("./talk_env.ts")'));
    await open(uri);
    const lens = await waitFor('the Train lens of Refused', async () => (await codeLenses(uri)).find((l) => l.command?.command === 'rlx.train'));
    assert.deepEqual(vscode.languages.getDiagnostics(uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error), [], 'the checker passes it');
    await vscode.commands.executeCommand('notifications.clearAll');
    const outcome = await vscode.commands.executeCommand<TrainOutcome>(lens.command!.command, ...(lens.command!.arguments ?? []));
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
    const [result] = await outcome.batch.done;
    assert.equal(result.state, 'failed');
    assert.equal(result.cause, 'refused');
    assert.deepEqual(result.runDirs, []);
    const notice = await waitFor('the failure notification', () => (/Refused/.test(api.lastTrainingNotice()?.message ?? '') ? api.lastTrainingNotice() : undefined));
    assert.equal(
      notice.message,
      'Training Refused did not start: the plan cannot run here: policy Small (mlp) cannot write text: env Pole (module "talk_env.ts") needs a transformer or pretrained policy; PPO does not train on text actions (env Pole (module "talk_env.ts"))',
    );
    assert.deepEqual(notice.actions, ['Open Spec', 'Open Log']);
    const seen = await screenshot('failed-start-refused-plan');
    if (seen) {
      const toast = seen.notifications.find((n) => n.includes('Training Refused did not start'));
      assert.ok(toast, `notifications: ${seen.notifications.join(' | ')}`);
      assert.match(toast, /PPO does not train on text actions/);
      assert.match(toast, /Open Spec/);
      assert.doesNotMatch(toast, /Open Settings/);
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
