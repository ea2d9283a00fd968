// Gymnasium envs in the editor (docs/python-envs.md#in-the-editor): in a trusted workspace the
// language server probes a gymnasium(...) env with the workspace's Python and checks the spec
// against its spaces; in Restricted Mode it runs no Python and Train refuses the env. The harness
// gives code-server the test Python (RLX_PYTHON, PYTHONPATH with the vendored Gymnasium) and sets
// RLX_TEST_PYTHON=1; without it these tests skip.
/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TrainOutcome } from '../../../extension/training/launcher.js';
import { codeLenses, open, rlxApi, screenshot, waitFor, waitForDiagnostics, workspaceDir, writeSpec } from './helpers.js';

/** A spec whose checks need the probe's answer: obs.x9 (CartPole observes x0..x3) and DQN on Pendulum. */
function gymSpec(python = ''): string {
  const setting = python ? ` { python: "${python}" }` : '';
  return `env Cart = gymnasium("CartPole-v1")${setting}
env Swing = gymnasium("Pendulum-v1")${setting}

policy Small = mlp { hidden: [16] }
algorithm Quick = PPO { }
algorithm Greedy = DQN { }

reward Centre {
  term centre = -abs(obs.x0) + obs.x9
}

experiment Balance { env: Cart, policy: Small, algorithm: Quick, budget: 1k, reward: Centre }
experiment Upswing { env: Swing, policy: Small, algorithm: Greedy, budget: 1k }
`;
}

function skipWithoutPython(context: Mocha.Context): void {
  if (process.env.RLX_TEST_PYTHON !== '1') context.skip();
}

suite('python envs', () => {
  suiteSetup(async () => {
    await rlxApi();
  });

  test('probes gymnasium envs once trusted: obs. completes x0..x3, obs.x9 and DQN on Pendulum are errors', async function () {
    if (!vscode.workspace.isTrusted) this.skip();
    skipWithoutPython(this);
    this.timeout(90_000);
    const uri = writeSpec('gym.rlx', gymSpec());
    const editor = await open(uri);
    // The probe starts Python and imports Gymnasium: a few seconds, then the file is checked again.
    const shown = () => vscode.languages.getDiagnostics(uri).map((d) => `${d.range.start.line + 1}: ${d.message}`);
    const diagnostics = await waitForDiagnostics(uri, (d) => d.length >= 2, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}; the file shows: ${shown().join(' | ') || 'no diagnostics'}`);
    });
    const messages = shown();
    assert.ok(messages.some((m) => /^9: .*has no observation field 'x9'; its fields are: x0, x1, x2, x3/.test(m)), messages.join('\n'));
    assert.ok(messages.some((m) => /^13: DQN cannot train on Swing \(gymnasium\("Pendulum-v1"\)\): it needs discrete actions/.test(m)), messages.join('\n'));
    assert.ok(diagnostics.every((d) => d.severity === vscode.DiagnosticSeverity.Error), messages.join('\n'));

    const line = editor.document.lineAt(8).text;
    const afterDot = new vscode.Position(8, line.indexOf('obs.') + 'obs.'.length);
    const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', uri, afterDot);
    const labels = list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    assert.deepEqual(labels.filter((l) => /^x\d$/.test(l)).sort(), ['x0', 'x1', 'x2', 'x3'], labels.join(', '));

    // What a person sees: the squiggles, and the suggestions after `obs.`.
    editor.selection = new vscode.Selection(afterDot, afterDot);
    await vscode.commands.executeCommand('editor.action.triggerSuggest');
    await screenshot('python-env-probed');
    await vscode.commands.executeCommand('hideSuggestWidget');
  });

  test('trains a gymnasium env that renders, and the rollout inspector shows its frame of each step', async function () {
    if (!vscode.workspace.isTrusted) this.skip();
    skipWithoutPython(this);
    this.timeout(120_000);
    // test/fixtures/python/rlx_render_envs.py draws with numpy (CartPole's renderer needs pygame).
    const uri = writeSpec('paint.rlx', `env Paint = gymnasium("RlxPaint-v0") {
  imports: ["rlx_render_envs"]
  kwargs { render_mode: "rgb_array" }
}
policy Small = mlp { hidden: [16] }
algorithm Quick = PPO { rollout_steps: 64 }
experiment Painted { env: Paint, envs: 2, policy: Small, algorithm: Quick, budget: 1k, seeds: [1] }
`);
    await open(uri);
    const outcome = await vscode.commands.executeCommand<TrainOutcome>('rlx.train', uri, 'Painted');
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
    const [result] = await outcome.batch.done;
    assert.equal(result.state, 'finished', result.error);
    const runDir = result.runDirs[0]!;
    const frames = fs.readdirSync(path.join(runDir, 'rollouts')).filter((f) => f.endsWith('.frames'));
    assert.ok(frames.length > 0, `frames recorded: ${fs.readdirSync(path.join(runDir, 'rollouts')).join(', ')}`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('rlx.openRollouts', runDir);
    // For the person who looks: the host sends the first frame a second or so after the page asks.
    if (process.env.RLX_TEST_SCREENSHOT_DIR) await new Promise((r) => setTimeout(r, 3000));
    const seen = await screenshot('python-env-frames');
    if (seen) assert.ok(seen.webviews.some((w) => /Recorded episodes/.test(w)), `the inspector's page in the picture (${seen.webviewWait})`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('runs no Python in Restricted Mode, and refuses to train a gymnasium env until trusted', async function () {
    if (vscode.workspace.isTrusted) this.skip();
    skipWithoutPython(this);
    this.timeout(60_000);
    // An interpreter that leaves a mark when anything starts it.
    const mark = path.join(workspaceDir(), 'python-ran');
    const spy = path.join(workspaceDir(), 'spy-python.sh');
    fs.writeFileSync(spy, `#!/bin/sh\ntouch '${mark}'\nexec python3 "$@"\n`, { mode: 0o755 });
    const uri = writeSpec('gym-restricted.rlx', gymSpec(spy));
    await open(uri);
    // The server has checked the file once it offers its lenses; a probe would follow within seconds.
    await waitFor('the Train lenses', async () => (await codeLenses(uri)).length > 0, 30_000);
    await new Promise((r) => setTimeout(r, 5000));
    assert.equal(fs.existsSync(mark), false, 'the language server started Python in Restricted Mode');
    const probed = vscode.languages.getDiagnostics(uri).filter((d) => /x9|DQN/.test(d.message));
    assert.deepEqual(probed.map((d) => d.message), [], 'what only a probe can find is not reported');

    const outcome = await vscode.commands.executeCommand<TrainOutcome>('rlx.train', uri, 'Balance');
    assert.equal(outcome.ok, false);
    assert.equal(
      outcome.ok ? '' : outcome.reason,
      'Cannot train Balance in Restricted Mode: it runs the workspace\'s Python (gymnasium("CartPole-v1")), which would run with your permissions. Trust this workspace to train it.',
    );
    await screenshot('python-env-restricted');
    assert.equal(fs.existsSync(mark), false, 'Train started Python in Restricted Mode');
  });
});
