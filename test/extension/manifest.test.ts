// package.json's VS Code manifest against the code: every command contributed is registered and
// every one registered is contributed, every file named exists, activation stays narrow, and
// the settings the code reads are declared.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/repo.js';
import { EXTENSION_ENTRY } from '../../tools/bundle.js';

interface Manifest {
  main: string;
  engines: { vscode: string };
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: string; description: string; restrictedConfigurations: string[] } };
  contributes: {
    languages: { id: string; extensions: string[]; configuration: string; icon: { light: string; dark: string } }[];
    grammars: { path: string; scopeName: string }[];
    snippets?: { path: string }[];
    commands: { command: string; title: string }[];
    menus: Record<string, { command: string }[]>;
    configuration: { properties: Record<string, { default: unknown; enum?: string[] }> };
    viewsContainers: { activitybar: { id: string; icon: string }[] };
    viewsWelcome: { view: string; contents: string }[];
    views: Record<string, { id: string }[]>;
  };
  icon: string;
}

const root = repoRoot();
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;

function sources(dir: string): string {
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => fs.readFileSync(path.join(root, dir, f), 'utf8'))
    .join('\n');
}

test('main is the CommonJS extension bundle, and VS Code 1.100 satisfies engines.vscode', () => {
  assert.equal(manifest.main, './dist/extension.cjs');
  assert.equal(EXTENSION_ENTRY, 'extension/main.ts');
  const m = /^\^1\.(\d+)\.0$/.exec(manifest.engines.vscode);
  assert.ok(m && Number(m[1]) <= 100, `engines.vscode ${manifest.engines.vscode}`);
});

test('activation: the language, the view and restored panels only (commands activate by themselves)', () => {
  for (const event of manifest.activationEvents) assert.match(event, /^(onLanguage:rlx|onView:rlx\.runs|onWebviewPanel:rlx\.(dashboard|compare|rollouts))$/);
  const code = sources('extension');
  for (const viewType of ['rlx.dashboard', 'rlx.compare', 'rlx.rollouts']) {
    assert.ok(manifest.activationEvents.includes(`onWebviewPanel:${viewType}`));
    assert.ok(code.includes(`viewType = '${viewType}'`), `a panel class for ${viewType}`);
  }
  assert.equal((code.match(/registerWebviewPanelSerializer\(/g) ?? []).length, 3);
});

test('commands: contributed = registered, menus name contributed commands', () => {
  const code = sources('extension');
  const registered = new Set([...code.matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1]));
  const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
  const internal = new Set(['rlx.showServerLog']); // the status item's tooltip link
  assert.deepEqual([...contributed].filter((c) => !registered.has(c)), [], 'contributed but never registered');
  assert.deepEqual([...registered].filter((c) => !contributed.has(c) && !internal.has(c)), [], 'registered but not contributed');
  for (const [menu, items] of Object.entries(manifest.contributes.menus)) {
    for (const item of items) assert.ok(contributed.has(item.command), `${menu}: ${item.command}`);
  }
  const builtins = [...code.matchAll(/executeCommand\('((?!rlx\.)[^']+)'/g)].map((m) => m[1]);
  assert.ok(builtins.every((c) => /^(workbench\.|revealInExplorer|revealFileInOS)/.test(c)), `built-in commands used: ${builtins.join(', ')}`);
});

test('every file the manifest names exists and parses', () => {
  const files = [
    manifest.icon,
    ...manifest.contributes.languages.flatMap((l) => [l.configuration, l.icon.light, l.icon.dark]),
    ...manifest.contributes.grammars.map((g) => g.path),
    ...manifest.contributes.viewsContainers.activitybar.map((c) => c.icon),
  ];
  for (const file of files) {
    const full = path.join(root, file);
    assert.ok(fs.existsSync(full), file);
    if (/\.(json|code-snippets)$/.test(file)) JSON.parse(fs.readFileSync(full, 'utf8'));
  }
  assert.deepEqual(manifest.contributes.languages[0].extensions, ['.rlx']);
  assert.equal(manifest.contributes.views.rlx[0].id, 'rlx.runs');
});

test('the settings the code reads are declared, with their defaults', () => {
  const props = manifest.contributes.configuration.properties;
  assert.equal(props['rlx.trainer.path'].default, '');
  assert.equal(props['rlx.runs.folder'].default, 'runs');
  assert.deepEqual(props['rlx.train.device'].enum, ['auto', 'cpu', 'cuda', 'webgpu']);
  assert.equal(props['rlx.train.maxParallel'].default, 2);
  assert.equal(props['rlx.inlayHints.defaults'].default, true);
  assert.deepEqual(props['rlx.openDashboardOnTrain'].enum, ['open', 'notify', 'never']);
  assert.equal(props['rlx.openDashboardOnTrain'].default, 'open');
  const code = sources('extension') + sources('server');
  for (const key of Object.keys(props).filter((k) => k !== 'rlx.trace.server')) {
    const tail = key.replace(/^rlx\./, '');
    assert.ok(code.includes(`'${tail}'`) || code.includes(`'${key}'`) || code.includes(`'${tail.split('.').at(-1)}'`), `${key} is read somewhere`);
  }
});

test('welcome texts: VS Code draws only links and line breaks in them, so no backticks or other markdown', () => {
  for (const welcome of manifest.contributes.viewsWelcome) {
    const text = welcome.contents.replace(/\[[^\]]+\]\(command:[\w.]+\)/g, '');
    assert.doesNotMatch(text, /[`*_]/, `${welcome.view}: ${welcome.contents}`);
  }
});

test('Workspace Trust: limited, with a reason, and the trainer path is not taken from an untrusted workspace', () => {
  const trust = manifest.capabilities.untrustedWorkspaces;
  assert.equal(trust.supported, 'limited');
  assert.match(trust.description, /module\("\.\/file\.ts"\)/);
  assert.deepEqual(trust.restrictedConfigurations, ['rlx.trainer.path']);
});

test('no static snippets: VS Code would offer them everywhere (declaration templates inside an algorithm body); the server offers its templates where they fit', () => {
  assert.equal(manifest.contributes.snippets, undefined);
});
