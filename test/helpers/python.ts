// The Python the Gymnasium bridge tests run: python3 (or RLX_PYTHON) with numpy, and the
// Gymnasium 0.29.0 the project vendors for its benches (bench/peers/vendor, with shims for its
// small dependencies), test/fixtures/python (envs that misbehave on purpose) and examples/python
// (the examples' envs) on PYTHONPATH.
// Nothing is copied or installed. CI installs python3-numpy (.ci/run); without it the tests skip.
import { spawnSync } from 'node:child_process';
import { after, before } from 'node:test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from './repo.js';

export interface TestPython {
  readonly python: string;
  /** The environment for the worker processes. */
  readonly env: NodeJS.ProcessEnv;
}

let found: TestPython | null | undefined;

/** The test Python, or null (with the reason on stderr) when there is none with numpy. */
export function testPython(): TestPython | null {
  if (found !== undefined) return found;
  const root = repoRoot();
  const python = process.env.RLX_PYTHON ?? 'python3';
  const paths = [path.join(root, 'bench/peers/vendor'), path.join(root, 'bench/peers/shims'), path.join(root, 'test/fixtures/python'), path.join(root, 'examples/python')];
  const env = { ...process.env, PYTHONPATH: paths.join(path.delimiter) };
  const probe = spawnSync(python, ['-c', 'import numpy, gymnasium'], { env, encoding: 'utf8', timeout: 60_000 });
  if (probe.status !== 0) {
    process.stderr.write(`skipping the Python env tests: ${python} with numpy and the vendored gymnasium is not available (${(probe.stderr ?? String(probe.error)).trim().split('\n').pop()})\n`);
    found = null;
  } else {
    found = { python, env };
  }
  return found;
}

/**
 * Runs `body` with the test Python as the one the trainer starts (RLX_PYTHON, PYTHONPATH in this
 * process's environment, which training reads and rlx child processes inherit), then puts them back.
 */
export async function withTestPython<T>(body: () => Promise<T>): Promise<T> {
  const restore = setTestPython('withTestPython');
  try {
    return await body();
  } finally {
    restore();
  }
}

/** withTestPython for a whole suite: the test Python set before its tests run and put back after. */
export function useTestPythonInSuite(): void {
  let restore: (() => void) | undefined;
  before(() => {
    restore = setTestPython('useTestPythonInSuite');
  });
  after(() => restore?.());
}

/** Sets RLX_PYTHON and PYTHONPATH to the test Python's; returns what puts the old values back. */
function setTestPython(caller: string): () => void {
  const python = testPython();
  if (python === null) throw new Error(`${caller}: no test Python (skip the test where testPython() is null)`);
  const previous = { PYTHONPATH: process.env.PYTHONPATH, RLX_PYTHON: process.env.RLX_PYTHON };
  process.env.PYTHONPATH = python.env.PYTHONPATH;
  process.env.RLX_PYTHON = python.python;
  return () => {
    for (const [key, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
}

/** The pids of the running worker.py processes that are children of this process. */
export function pythonWorkers(): number[] {
  return fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name)).filter((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return parent === process.pid && !/\) [ZX] /.test(stat) && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('worker.py');
    } catch {
      return false;
    }
  }).map(Number);
}
