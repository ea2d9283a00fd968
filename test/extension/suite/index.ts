// The mocha entry that VS Code's extension host runs (extensionTestsPath): the same suites under
// code-server (test/extension/harness/code-server.ts) and @vscode/test-electron. esbuild bundles
// this file and the suites into one CommonJS file (harness/build.ts), because the extension host
// loads tests with require() and provides `vscode` only to require().
/// <reference types="mocha" />
import * as fs from 'node:fs';
import Mocha from 'mocha';
import { results, takeCarriedResults } from './session.js';

export interface SuiteResults {
  passed: string[];
  failed: { title: string; error: string }[];
  pending: string[];
}

export async function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', timeout: 60_000, color: false, reporter: 'spec' });
  const grep = process.env.RLX_TEST_GREP;
  if (grep) mocha.grep(grep);
  // The suites call the tdd globals (suite, test, suiteSetup) when they load.
  mocha.suite.emit('pre-require', globalThis, 'rlx-suites', mocha);
  // Order matters: the last suite leaves the workbench as the screenshot shows it.
  await import('./language.js');
  await import('./training.js');
  await import('./stop-resume.js');
  await import('./sweeps.js');
  // Reloads the window (session.ts): the suites after it run in the new extension host.
  await import('./reattach.js');
  await import('./problems.js');
  await import('./python-envs.js');
  await import('./trust.js');
  await import('./screenshot.js');

  // After a reload a test asked for: its results so far, and only the tests not run yet.
  const carried = takeCarriedResults();
  if (carried) {
    Object.assign(results, carried);
    const done = new Set([...carried.passed, ...carried.failed.map((f) => f.title), ...carried.pending]);
    dropTests(mocha.suite, (t) => done.has(t.fullTitle()));
  }
  const failures = await new Promise<number>((resolve) => {
    const runner = mocha.run(resolve);
    runner.on('pass', (t) => results.passed.push(t.fullTitle()));
    runner.on('fail', (t, err: Error) => results.failed.push({ title: t.fullTitle(), error: err.stack ?? err.message }));
    runner.on('pending', (t) => results.pending.push(t.fullTitle()));
  });
  const file = process.env.RLX_TEST_RESULTS;
  if (file) fs.writeFileSync(file, JSON.stringify(results, null, 2));
  if (failures > 0 || results.failed.length > 0) throw new Error(`${results.failed.length} editor test(s) failed`);
}

/** Removes the tests `drop` picks from a suite and its children (a suite left empty runs no hooks). */
function dropTests(suite: Mocha.Suite, drop: (t: Mocha.Test) => boolean): void {
  suite.tests = suite.tests.filter((t) => !drop(t));
  for (const child of suite.suites) dropTests(child, drop);
}
