// The esbuild bundle of the command line runs on its own (what the extension will ship).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { bundle } from '../../tools/bundle.js';
import { testPython } from '../helpers/python.js';
import { examplesDir, repoRoot } from '../helpers/repo.js';

test('the bundled rlx checks the examples and reports errors like the compiled one', async () => {
  // Inside the repository (ignored by git), so the bundle resolves its external native module
  // onnxruntime-node from node_modules, as it will inside the packaged extension.
  fs.mkdirSync(path.join(repoRoot(), '.tmp'), { recursive: true });
  const out = fs.mkdtempSync(path.join(repoRoot(), '.tmp', 'bundle-'));
  try {
    await bundle(out);
    // The trainer runs gymnasium(...) envs with the Python worker it finds next to rlx.mjs.
    assert.equal(fs.readFileSync(path.join(out, 'python-env-worker.py'), 'utf8'), fs.readFileSync(path.join(repoRoot(), 'runtime/envs/python/worker.py'), 'utf8'));
    const cli = path.join(out, 'rlx.mjs');
    // rlx check probes gymnasium(...) examples with the same worker: with the test Python (its
    // vendored gymnasium) they probe clean; without one, --no-probe (a failed probe is a warning).
    const python = testPython();
    const env = { ...(python?.env ?? process.env), RLX_PROBE_CACHE: path.join(out, 'probe-cache'), ...(python ? { RLX_PYTHON: python.python } : {}) };
    const clean = spawnSync(process.execPath, [cli, 'check', ...(python ? [] : ['--no-probe']), examplesDir()], { encoding: 'utf8', env });
    assert.equal(clean.status, 0, clean.stderr);
    assert.match(clean.stderr, /0 errors, \d+ warnings? in \d+ files/);
    // The only warnings: examples of what the trainer does not run yet.
    for (const line of clean.stdout.split('\n').filter(Boolean)) assert.match(line, /: warning not-implemented: /);
    if (python) assert.ok(fs.readdirSync(path.join(out, 'probe-cache')).length > 0, 'the bundled rlx probed the gymnasium examples');
    const bad = path.join(out, 'bad.rlx');
    fs.writeFileSync(bad, 'env Pole = CartPole { gravity: -1 }\n');
    const broken = spawnSync(process.execPath, [cli, 'check', bad], { encoding: 'utf8' });
    assert.equal(broken.status, 1);
    assert.match(broken.stdout, /bad\.rlx:1:32: error out-of-range: gravity must be > 0/);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
