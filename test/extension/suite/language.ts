// The language server through the editor: diagnostics, completion, hover and the Train lenses,
// asked for the way VS Code asks (vscode.execute...Provider commands).
/// <reference types="mocha" />
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { codeLenses, open, rlxApi, setSetting, waitFor, waitForDiagnostics, workspaceDir, writeSpec } from './helpers.js';

suite('language', () => {
  suiteSetup(async () => {
    await rlxApi();
  });

  test('opens an example as rlx and checks it clean', async () => {
    const uri = vscode.Uri.file(path.join(workspaceDir(), 'examples', 'cartpole.rlx'));
    const editor = await open(uri);
    assert.equal(editor.document.languageId, 'rlx');
    // The server publishes (empty) diagnostics for a clean file; its lenses prove it answered.
    const lenses = await waitFor('Train lenses on cartpole.rlx', async () => {
      const l = await codeLenses(uri);
      return l.some((x) => x.command?.title.includes('Train')) ? l : undefined;
    });
    assert.deepEqual(vscode.languages.getDiagnostics(uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error), []);
    assert.ok(lenses.length >= 3, `lenses: ${lenses.map((l) => l.command?.title).join(', ')}`);
  });

  test('reports diagnostics from the language server', async () => {
    const uri = writeSpec('broken.rlx', 'env Pole = CartPole { gravity: -1 }\n\nalgorithm Fast = PPO { learning_rat: 1e-3 }\n');
    await open(uri);
    const diagnostics = await waitForDiagnostics(uri, (d) => d.length >= 2);
    const messages = diagnostics.map((d) => d.message).join('\n');
    assert.match(messages, /gravity must be > 0/);
    assert.match(messages, /learning_rat/);
    const range = diagnostics.find((d) => /gravity/.test(d.message))!.range;
    assert.equal(range.start.line, 0);
    assert.equal(range.start.character, 31);
  });

  test('completes property names', async () => {
    const uri = writeSpec('complete.rlx', 'algorithm Tuned = PPO {\n  \n}\n');
    await open(uri);
    const list = await waitFor('completions', async () => {
      const l = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', uri, new vscode.Position(1, 2));
      return l && l.items.length > 0 ? l : undefined;
    });
    const labels = list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    assert.ok(labels.includes('learning_rate'), `completions: ${labels.slice(0, 20).join(', ')}`);
    assert.ok(labels.includes('clip'));
    // Only what fits a body: no declaration templates (static snippets used to be offered everywhere).
    const snippets = list.items.filter((i) => i.kind === vscode.CompletionItemKind.Snippet).map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    assert.deepEqual(snippets, []);
    // An accepted property comes with its value to type over.
    const clip = list.items.find((i) => (typeof i.label === 'string' ? i.label : i.label.label) === 'clip')!;
    const text = clip.insertText instanceof vscode.SnippetString ? clip.insertText.value : typeof clip.insertText === 'string' ? clip.insertText : '';
    assert.match(text, /^clip: \$\{1:0\.2\}$/);
  });

  test('a pretrained("...") spec: folder completion, hover with the model and its memory, a Train lens per experiment', async () => {
    // examples/models/addition-sft is a Hugging Face folder (the exported stage 1 of the round trip).
    const uri = vscode.Uri.file(path.join(workspaceDir(), 'examples', 'addition-pretrained-grpo.rlx'));
    const editor = await open(uri);
    const lenses = await waitFor('Train lenses on addition-pretrained-grpo.rlx', async () => {
      const l = await codeLenses(uri);
      return l.filter((x) => x.command?.command === 'rlx.train').length >= 2 ? l : undefined;
    });
    assert.ok(lenses.length >= 2);
    assert.deepEqual(vscode.languages.getDiagnostics(uri).map((d) => d.message), []);
    const line = editor.document.getText().split('\n').findIndex((l) => l.startsWith('policy Sft = pretrained('));
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(line, 8));
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /Architecture: Qwen2/);
    assert.match(text, /Parameters: 112K/);
    assert.match(text, /Memory in experiment SumsGrpo: weights \(float32\)/);

    const spec = writeSpec('pretrained-complete.rlx', 'policy P = pretrained("./examples/models/")\n');
    await open(spec);
    const list = await waitFor('model folder completions', async () => {
      const l = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', spec, new vscode.Position(0, 41));
      return l && l.items.length > 0 ? l : undefined;
    });
    const labels = list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    assert.ok(labels.some((l) => l.includes('addition-sft')), `completions: ${labels.join(', ')}`);
  });

  // The "Cannot train yet" lens (issue 17) has no trigger left in the language: every built-in and
  // stage pairing trains. Its wording is tested in test/extension/messages.test.ts and the server's
  // refusals in test/server/features/experiments.test.ts; here, what replaced the last refusal.
  test('stages on a numeric env get Train; stages whose networks cannot pass are an error at the stage', async () => {
    const uri = writeSpec('staged.rlx', 'env Pole = CartPole\npolicy P = mlp\nexperiment Staged {\n  env: Pole\n  policy: P\n  stage warm = PPO { budget: 1k }\n  stage main = PPO { budget: 1k }\n}\n');
    await open(uri);
    const lenses = await waitFor('the Train lens', async () => {
      const l = await codeLenses(uri);
      return l.some((x) => x.command?.command === 'rlx.train') ? l : undefined;
    });
    assert.ok(!lenses.some((l) => /Cannot train yet/.test(l.command?.title ?? '')));
    assert.deepEqual(vscode.languages.getDiagnostics(uri).map((d) => d.message), []);

    const mixed = writeSpec('staged-mixed.rlx', 'env Pole = CartPole\npolicy P = mlp\nexperiment Mixed {\n  env: Pole\n  policy: P\n  stage warm = PPO { budget: 1k }\n  stage main = DQN { budget: 1k }\n}\n');
    await open(mixed);
    // A code with a documentation link arrives as { value, target }.
    const isIncompatible = (d: vscode.Diagnostic) => (typeof d.code === 'object' ? d.code.value : d.code) === 'incompatible-stages';
    const diagnostics = await waitForDiagnostics(mixed, (ds) => ds.some(isIncompatible));
    const error = diagnostics.find(isIncompatible)!;
    assert.equal(error.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(error.range.start.line, 6, 'at the stage that cannot take the weights');
  });

  test('hovers a built-in with its documentation', async () => {
    const uri = writeSpec('hover.rlx', 'algorithm Tuned = PPO {\n  clip: 0.2\n}\n');
    await open(uri);
    const hovers = await waitFor('a hover over PPO', async () => {
      const h = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(0, 19));
      return h && h.length > 0 ? h : undefined;
    });
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /Proximal Policy Optimization/);
  });

  test('offers Train on clean experiments, Sweep on sweeps, and the errors on broken ones', async () => {
    const sweep = vscode.Uri.file(path.join(workspaceDir(), 'examples', 'cartpole-sweep.rlx'));
    await open(sweep);
    const sweepLenses = await waitFor('a Sweep lens', async () => {
      const l = await codeLenses(sweep);
      return l.some((x) => x.command?.command === 'rlx.trainSweep') ? l : undefined;
    });
    assert.ok(sweepLenses.some((l) => l.command?.title.includes('Sweep')));

    const uri = writeSpec('unclean.rlx', 'env Pole = CartPole { gravity: -1 }\npolicy P = mlp { }\nalgorithm A = PPO { }\nexperiment Bad {\n  env: Pole\n  policy: P\n  algorithm: A\n  budget: 1k\n}\n');
    await open(uri);
    const lenses = await waitFor('a fix-the-errors lens', async () => {
      const l = await codeLenses(uri);
      return l.some((x) => /fix 1 error/.test(x.command?.title ?? '')) ? l : undefined;
    });
    assert.ok(!lenses.some((l) => l.command?.command === 'rlx.train'), 'no Train lens on an experiment with errors');
  });

  test('restarts the language server, which answers again', async () => {
    const api = await rlxApi();
    await vscode.commands.executeCommand('rlx.restartServer');
    assert.equal(api.serverState(), 'running');
    assert.equal(api.statusBar().server, '$(check) rlx');
    const uri = vscode.Uri.file(path.join(workspaceDir(), 'examples', 'cartpole.rlx'));
    await waitFor('lenses from the restarted server', async () => (await codeLenses(uri)).some((l) => l.command?.command === 'rlx.train'));
  });

  test('shows the defaults as inlay hints, off with rlx.inlayHints.defaults', async () => {
    const uri = writeSpec('hints.rlx', 'algorithm Tuned = PPO {\n  clip: 0.2\n}\n');
    await open(uri);
    const range = new vscode.Range(0, 0, 3, 0);
    const hints = () => vscode.commands.executeCommand<vscode.InlayHint[]>('vscode.executeInlayHintProvider', uri, range);
    const shown = await waitFor('a defaults hint', async () => {
      const h = await hints();
      return h.length > 0 ? h : undefined;
    });
    const label = (h: vscode.InlayHint) => (typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join(''));
    assert.match(label(shown[0]), /^defaults: /);
    const restore = await setSetting('inlayHints.defaults', false);
    try {
      await waitFor('no hints once turned off', async () => (await hints()).length === 0, 10_000);
    } finally {
      await restore();
    }
  });
});
