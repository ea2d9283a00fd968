// npm run package: the .vsix holds what the installed extension runs and nothing else, and the
// trainer inside it trains on its own, outside this repository (its native modules included).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { packageVsix } from '../../tools/package-vsix.js';
import { repoRoot } from '../helpers/repo.js';
import { extractZip, listZip } from './harness/zip.js';

const NEEDED = [
  'extension/package.json',
  'extension/readme.md',
  'extension/dist/extension.cjs',
  'extension/dist/server.mjs',
  'extension/dist/rlx.mjs',
  'extension/dist/session-worker.mjs',
  'extension/dist/module-worker.mjs',
  'extension/dist/optim-worker.mjs',
  'extension/syntaxes/rlx.tmLanguage.json',
  'extension/language-configuration.json',
  'extension/icons/rlx.png',
  'extension/icons/activity.svg',
  'extension/dist/node_modules/onnxruntime-node/package.json',
  'extension/dist/node_modules/onnxruntime-node/dist/index.js',
  'extension/dist/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/onnxruntime_binding.node',
  'extension/dist/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1',
  'extension/dist/node_modules/onnxruntime-common/dist/cjs/index.js',
  'extension/dist/node_modules/esbuild/lib/main.js',
  'extension/dist/node_modules/@esbuild/linux-x64/bin/esbuild',
];

test('the .vsix: bundles, pages, language files and linux-x64 natives only; its trainer trains', { timeout: 300_000 }, async () => {
  const out = path.join(repoRoot(), '.tmp', 'vsix-test');
  fs.rmSync(out, { recursive: true, force: true });
  const { file, bytes } = await packageVsix(path.join(out, 'rlx.vsix'));
  const entries = listZip(file);
  const names = entries.map((e) => e.name);
  for (const needed of NEEDED) assert.ok(names.includes(needed), `${needed} is in the .vsix`);
  for (const page of ['dashboard', 'compare', 'rollouts']) {
    if (fs.existsSync(path.join(repoRoot(), 'webview', page))) assert.ok(names.includes(`extension/dist/webview/${page}.js`), `the ${page} page`);
  }
  const unwanted = names.filter(
    (n) =>
      /^(test|out|src|bench|examples|tools|dsl|runtime|server|extension|webview|docs)\//.test(n.replace(/^extension\//, '')) ||
      /\.(ts|map)$/.test(n) ||
      /darwin|win32|arm64/.test(n) ||
      (n.includes('node_modules/') && !n.startsWith('extension/dist/node_modules/')) ||
      /\.tmp\/|\.vsix$|package-lock\.json$|\.npmrc$/.test(n),
  );
  assert.deepEqual(unwanted, [], 'nothing the extension does not need');
  assert.ok(bytes < 40 * 1024 * 1024, `${(bytes / 1024 / 1024).toFixed(1)} MiB`);
  const esbuildBinary = entries.find((e) => e.name.endsWith('@esbuild/linux-x64/bin/esbuild'))!;
  assert.ok(esbuildBinary.mode & 0o100, 'esbuild stays executable');

  // Installed elsewhere: nothing of this repository's node_modules is reachable from there.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-vsix-'));
  try {
    extractZip(file, home);
    assert.match(fs.readFileSync(path.join(home, 'extension.vsixmanifest'), 'utf8'), /TargetPlatform="linux-x64"/, 'a linux-x64 package');
    const cli = path.join(home, 'extension', 'dist', 'rlx.mjs');
    fs.writeFileSync(
      path.join(home, 'coin_env.ts'),
      "export default class Coin {\n  observationSpace = { kind: 'box', shape: [1], low: [0], high: [1] } as const;\n  actionSpace = { kind: 'discrete', n: 2 } as const;\n  maxSteps = 10;\n  reset() { return { obs: [0], info: {} }; }\n  step(a: number) { return { obs: [a], reward: a, terminated: false, truncated: false, info: {} }; }\n}\n",
    );
    fs.writeFileSync(
      path.join(home, 'tiny.rlx'),
      'env Coin = module("./coin_env.ts")\npolicy P = mlp { hidden: [8] }\nalgorithm A = PPO { rollout_steps: 32 }\nexperiment Tiny {\n  env: Coin\n  envs: 2\n  policy: P\n  algorithm: A\n  budget: 256\n  seed: 1\n}\n',
    );
    const run = spawnSync(process.execPath, [cli, 'train', 'tiny.rlx', '--out', 'runs', '--device', 'cpu'], { cwd: home, encoding: 'utf8', env: { ...process.env, NODE_PATH: '' } });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /finished at step \d+/);
    const [id] = fs.readdirSync(path.join(home, 'runs', 'Tiny'));
    assert.equal(JSON.parse(fs.readFileSync(path.join(home, 'runs', 'Tiny', id, 'status.json'), 'utf8')).status, 'finished');
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});
