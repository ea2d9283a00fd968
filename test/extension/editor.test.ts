// The extension in a real VS Code 1.100: the mocha suites of suite/ run in the extension host of
// code-server (offline), once with the workspace trusted and once in Restricted Mode, and through
// @vscode/test-electron where a VS Code binary is given. Installs nothing: .ci/run installs
// code-server into .tmp/code-server and Debian's chromium; without them this test fails under CI
// and is skipped elsewhere, saying what is missing.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test, type TestContext } from 'node:test';
import { testPython } from '../helpers/python.js';
import { repoRoot } from '../helpers/repo.js';
import { buildExtension, buildSuites } from './harness/build.js';
import { chromiumPath, CODE_SERVER_VERSION, codeServerPath, runInCodeServer, type CodeServerRun } from './harness/code-server.js';
import { runInElectron, vscodeExecutable } from './harness/electron.js';
import { makeTestDirs, pruneOldRuns, stopLeftoverTrainers } from './harness/workspace.js';
import { PREREQUISITES, withPrerequisites } from './prerequisites.js';

const EXPECTED = [
  'language opens an example as rlx and checks it clean',
  'language reports diagnostics from the language server',
  'language completes property names',
  'language hovers a built-in with its documentation',
  'language offers Train on clean experiments, Sweep on sweeps, and the errors on broken ones',
  'language restarts the language server, which answers again',
  'language shows the defaults as inlay hints, off with rlx.inlayHints.defaults',
  'training trains a tiny experiment from its Train lens',
  'training the Plan lens opens the resolved plan read-only, not as an untitled buffer to save',
  'training writes the run directory under the runs folder',
  "training exports the run's metrics as CSV: a column per scalar metric, a row per logged step",
  'training shows the run in the Runs view',
  'training shows the result and the server in the status bar',
  'training opens the dashboard, rollouts and comparison panels of the run',
  'training trains from "rlx: Train Experiment…" through its quick pick',
  "training opens a run's plan, and deletes a run when confirmed",
  'training "Train with seed…" offers a seed no run of the experiment used',
  'stop and resume stops a run cleanly and resumes it from the Runs view',
  'stop and resume queues runs beyond rlx.train.maxParallel',
  'stop and resume shows runs started from a terminal, through the file watcher',
  'sweeps groups a sweep\'s runs under "sweep NAME", each labelled by the values it varies, and compares the whole sweep',
  'reattach starts a long run from its Train lens, then reloads the window while it trains',
  'reattach after the reload: the status bar, the progress and the lens follow the run again, and Stop stops it without asking which',
  'problems refuses a spec with errors: fix the 2 errors first',
  'problems refuses a runs folder that cannot be written',
  'problems reports a trainer that is not there',
  'problems reports a trainer that breaks before training, with its error',
  'problems shows every line of a plan the trainer refuses at start, and leads to the spec, not the settings',
  'problems reports a run that fails while training, with the run error',
  'python envs probes gymnasium envs once trusted: obs. completes x0..x3, obs.x9 and DQN on Pendulum are errors',
  'python envs trains a gymnasium env that renders, and the rollout inspector shows its frame of each step',
  'trust trains user code in a trusted workspace',
  'screenshot shows a spec with its diagnostics and the Runs view',
];

const EXPECTED_RESTRICTED = [
  'python envs runs no Python in Restricted Mode, and refuses to train a gymnasium env until trusted',
  'trust keeps editing features in Restricted Mode',
  'trust refuses to train a spec that loads user code in Restricted Mode, and says why',
  'trust trains built-in environments in Restricted Mode',
];

/**
 * For local use only: RLX_EDITOR_GREP='^training ' runs just the matching tests of the trusted
 * code-server run (a mocha grep over full titles) and skips the other runs; the default, unset,
 * runs everything. `RLX_EDITOR_GREP='^sweeps ' npm run test:editor` reproduces one suite in a minute.
 * A picked test that uses what an earlier one made runs with it (prerequisites.ts), said in a line.
 */
const PICKED = process.env.RLX_EDITOR_GREP ? withPrerequisites(process.env.RLX_EDITOR_GREP, EXPECTED) : undefined;
const GREP = PICKED?.grep;
// A renamed test would leave its dependants running without it.
for (const { needs } of PREREQUISITES) assert.ok(EXPECTED.includes(needs), `prerequisites.ts names '${needs}', which is not an editor test`);

/** The tests that reload the window: only the code-server harness carries a session over a reload. */
const RELOADS = /^reattach /;

/**
 * The screenshots a person looks at after a run (git-ignored): workbench.png, dashboard.png, and
 * those of the suites (lens-training-*, sweep-compare-*, reattach-after-reload, failed-start-*).
 */
export const SCREENSHOTS = path.join(repoRoot(), '.tmp', 'screenshots');
const SCREENSHOT = path.join(SCREENSHOTS, 'workbench.png');

function tools(t: TestContext): { codeServer: string; chromium: string } | undefined {
  const codeServer = codeServerPath(repoRoot());
  const chromium = chromiumPath();
  const missing = [
    codeServer ? '' : `code-server ${CODE_SERVER_VERSION} (install it with: bash tools/code-server-offline.sh .tmp/code-server, as .ci/run does)`,
    chromium ? '' : 'chromium (apt-get install chromium)',
  ].filter(Boolean);
  if (missing.length === 0) return { codeServer: codeServer!, chromium: chromium! };
  const message = `editor tests need ${missing.join(' and ')}`;
  if (process.env.CI) assert.fail(message);
  t.skip(message);
  return undefined;
}

function report(run: CodeServerRun): string {
  const r = run.results;
  const lines = [`code-server run: exit ${run.exitCode} in ${run.seconds.toFixed(1)} s`];
  if (r) {
    lines.push(`passed ${r.passed.length}, failed ${r.failed.length}, skipped ${r.pending.length}`);
    for (const f of r.failed) lines.push(`FAILED ${f.title}\n${f.error}`);
  }
  return lines.join('\n');
}

function assertPassed(run: CodeServerRun, expected: string[]): void {
  const summary = report(run);
  assert.ok(run.results, `no results from the extension host\n${summary}\n--- log ---\n${run.log.slice(-6000)}`);
  assert.deepEqual(run.results.failed.map((f) => f.title), [], summary);
  for (const title of expected) assert.ok(run.results.passed.includes(title), `'${title}' did not pass\n${summary}`);
  assert.equal(run.exitCode, 0, summary);
}

/** The suites of Gymnasium envs need the test Python; without it they skip, and are not expected. */
const PYTHON_SUITE = /^python envs /;

/** What code-server passes on to the extension host: the test Python, and whether there is one. */
function pythonEnv(t: TestContext): Record<string, string> {
  const python = testPython();
  if (!python) {
    t.diagnostic('the python envs tests skip: no python3 with numpy and the vendored gymnasium (test/helpers/python.ts)');
    return { RLX_TEST_PYTHON: '' };
  }
  return { RLX_TEST_PYTHON: '1', RLX_PYTHON: python.python, PYTHONPATH: python.env.PYTHONPATH! };
}

function withoutPythonSuite(expected: string[], env: Record<string, string>): string[] {
  return env.RLX_TEST_PYTHON === '1' ? expected : expected.filter((title) => !PYTHON_SUITE.test(title));
}

let built: Promise<{ tests: string; note: string | undefined }> | undefined;
/** Builds dist/ and the suites once for all runs of this file. */
async function build(t: TestContext): Promise<string> {
  built ??= (async () => {
    const note = await buildExtension();
    return { tests: await buildSuites(), note };
  })();
  const { tests, note } = await built;
  if (note) t.diagnostic(note);
  return tests;
}

test('editor suites pass in VS Code 1.100 (code-server), with a screenshot', { timeout: 540_000 }, async (t) => {
  const found = tools(t);
  if (!found) return;
  pruneOldRuns();
  for (const line of PICKED?.added ?? []) t.diagnostic(`RLX_EDITOR_GREP: also runs ${line}`);
  const tests = await build(t);
  const dirs = makeTestDirs('trusted');
  fs.rmSync(SCREENSHOTS, { recursive: true, force: true });
  const env = pythonEnv(t);
  let run: CodeServerRun;
  try {
    run = await runInCodeServer({ ...found, extension: repoRoot(), tests, workspace: dirs.workspace, scratch: dirs.root, screenshots: SCREENSHOTS, timeoutMs: 420_000, grep: GREP, env });
  } finally {
    stopLeftoverTrainers(dirs.workspace);
  }
  t.diagnostic(report(run));
  if (GREP) {
    const only = new RegExp(GREP);
    assertPassed(run, withoutPythonSuite(EXPECTED, env).filter((title) => only.test(title)));
    t.diagnostic(`RLX_EDITOR_GREP=${GREP}: only the matching tests ran`);
    return;
  }
  assertPassed(run, withoutPythonSuite(EXPECTED, env));
  assert.ok(run.screenshots.includes(SCREENSHOT), `screenshots: ${run.screenshots.join(', ')}`);
  assert.ok(fs.statSync(SCREENSHOT).size > 10_000, 'the screenshot has content');
  // What the workbench drew, not only what the API says.
  const dom = run.dom!;
  assert.ok(dom.statusBar.some((s) => /rlx/.test(s)), `status bar: ${dom.statusBar.join(' | ')}`);
  assert.ok(dom.sideBarRows.some((s) => /Tiny/.test(s)), `side bar rows: ${dom.sideBarRows.join(' | ')}`);
  t.diagnostic(`screenshots: ${run.screenshots.map((f) => path.relative(repoRoot(), f)).join(', ')}`);
});

test('Workspace Trust: Restricted Mode keeps editing and refuses user code (code-server)', { timeout: 240_000 }, async (t) => {
  if (GREP) return t.skip(`RLX_EDITOR_GREP=${GREP}: only the trusted run`);
  const found = tools(t);
  if (!found) return;
  const tests = await build(t);
  const dirs = makeTestDirs('restricted');
  const env = pythonEnv(t);
  let run: CodeServerRun;
  try {
    run = await runInCodeServer({ ...found, extension: repoRoot(), tests, workspace: dirs.workspace, scratch: dirs.root, trust: true, grep: '^(trust|python envs) ', env, screenshots: SCREENSHOTS });
  } finally {
    stopLeftoverTrainers(dirs.workspace);
  }
  t.diagnostic(report(run));
  assertPassed(run, withoutPythonSuite(EXPECTED_RESTRICTED, env));
});

test('editor suites pass through @vscode/test-electron', { timeout: 420_000 }, async (t) => {
  if (GREP) return t.skip(`RLX_EDITOR_GREP=${GREP}: only the trusted code-server run`);
  const executable = vscodeExecutable();
  if (!executable) {
    t.skip('@vscode/test-electron needs a VS Code binary: set VSCODE_EXECUTABLE_PATH (it cannot download one offline)');
    return;
  }
  const tests = await build(t);
  const dirs = makeTestDirs('electron');
  const { exitCode, results } = await runInElectron({ executable, extension: repoRoot(), tests, workspace: dirs.workspace, scratch: dirs.root });
  stopLeftoverTrainers(dirs.workspace);
  assert.ok(results, 'no results from the extension host');
  assert.deepEqual(results.failed.map((f) => f.title), []);
  // This runner passes no test Python on: the python envs tests skip there.
  for (const title of EXPECTED.filter((e) => !e.startsWith('screenshot') && !RELOADS.test(e) && !PYTHON_SUITE.test(e))) assert.ok(results.passed.includes(title), `'${title}' did not pass`);
  assert.equal(exitCode, 0);
});
