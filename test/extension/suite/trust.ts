// Workspace Trust. The harness runs this suite a second time in a code-server started without
// --disable-workspace-trust (RLX_TEST_GREP=trust), where the workspace opens in Restricted Mode;
// in a trusted workspace it checks only that user modules are not refused there.
/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { TrainOutcome } from '../../../extension/training/launcher.js';
import { open, rlxApi, tinySpec, waitForDiagnostics, workspaceDir, writeSpec } from './helpers.js';

const ENV_MODULE = `export default class Coin {
  observationSpace = { kind: 'box', shape: [1], low: [0], high: [1] };
  actionSpace = { kind: 'discrete', n: 2 };
  maxSteps = 10;
  constructor(_params: Record<string, unknown>) {}
  reset(_seed?: number) { return { obs: [0], info: {} }; }
  step(action: number) { return { obs: [action], reward: action, terminated: false, truncated: false, info: {} }; }
}
`;

suite('trust', () => {
  suiteSetup(async () => {
    await rlxApi();
    fs.writeFileSync(path.join(workspaceDir(), 'coin_env.ts'), ENV_MODULE);
  });

  test('keeps editing features in Restricted Mode', async function () {
    if (vscode.workspace.isTrusted) this.skip();
    const uri = writeSpec('restricted.rlx', 'env Pole = CartPole { gravity: -1 }\n');
    await open(uri);
    const diagnostics = await waitForDiagnostics(uri, (d) => d.length > 0);
    assert.match(diagnostics[0].message, /gravity must be > 0/);
  });

  test('refuses to train a spec that loads user code in Restricted Mode, and says why', async function () {
    if (vscode.workspace.isTrusted) this.skip();
    const uri = writeSpec('coin.rlx', tinySpec('Coin').replace('env Pole = CartPole { max_steps: 200 }', 'env Pole = module("./coin_env.ts")'));
    const outcome = await vscode.commands.executeCommand<TrainOutcome>('rlx.train', uri, 'Coin');
    assert.equal(outcome.ok, false);
    assert.equal(
      outcome.ok ? '' : outcome.reason,
      'Cannot train Coin in Restricted Mode: it loads user code (coin_env.ts), which would run with your permissions. Trust this workspace to train it.',
    );
  });

  test('trains built-in environments in Restricted Mode', async function () {
    if (vscode.workspace.isTrusted) this.skip();
    this.timeout(60_000);
    const uri = writeSpec('restricted-tiny.rlx', tinySpec('RestrictedTiny', '1k'));
    const outcome = await vscode.commands.executeCommand<TrainOutcome>('rlx.train', uri, 'RestrictedTiny');
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
    const [result] = await outcome.batch.done;
    assert.equal(result.state, 'finished', result.error);
  });

  test('trains user code in a trusted workspace', async function () {
    if (!vscode.workspace.isTrusted) this.skip();
    this.timeout(60_000);
    const uri = writeSpec('coin.rlx', tinySpec('Coin', '1k').replace('env Pole = CartPole { max_steps: 200 }', 'env Pole = module("./coin_env.ts")'));
    const outcome = await vscode.commands.executeCommand<TrainOutcome>('rlx.train', uri, 'Coin');
    assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
    const [result] = await outcome.batch.done;
    assert.equal(result.state, 'finished', result.error);
  });
});
