// User env modules at the edges of what the worker channel holds (issue 30, security item 4): a
// text module whose reset() returns 100 MB, and env params over 16 KiB of JSON. Each run ends
// with a message (exit 2), the run (if it started) marked failed, and no temporary folder of
// the module left behind; long params reach every copy whole.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { repoRoot } from '../helpers/repo.js';
import { scratch } from './scratch.js';

const { work, write } = scratch('rlx-module-limits-');

/** rlx in the scratch folder with its own temporary folder, to see which of the modules' folders (rlx-env-*) it leaves there. */
function rlx(...args: string[]): { code: number; stderr: string; stdout: string; leftInTmp: string[] } {
  const tmp = fs.mkdtempSync(path.join(work, 'tmp-'));
  const r = spawnSync(process.execPath, [path.join(repoRoot(), 'bin', 'rlx.js'), ...args], { cwd: work, encoding: 'utf8', timeout: 180_000, env: { ...process.env, TMPDIR: tmp } });
  return { code: r.status ?? -1, stderr: r.stderr, stdout: r.stdout, leftInTmp: fs.readdirSync(tmp).filter((name) => name.startsWith('rlx-env-')) };
}

/** A text module whose reset() returns 100 MB from its `after`-th call on (each copy counts its own). */
const hugeReset = (after: number) => `export const spec = { actions: 'text', max_turns: 1, max_observation: 8, max_action: 2, alphabet: 'ab' };
let calls = 0;
export default class {
  reset() {
    calls++;
    return { observation: calls > ${after} ? 'a'.repeat(100_000_000) : 'ab', info: {} };
  }
  step() {
    return { observation: '', reward: 1, done: true, info: { success: true } };
  }
}
`;
const textSpec = (module: string) => `env Talk = module("./${module}")
policy Tiny = transformer { layers: 1, width: 16, heads: 2 }
experiment Chat { env: Talk, policy: Tiny, algorithm: REINFORCE, budget: 256 }
`;

describe('a text module whose reset() returns 100 MB', () => {
  test('on its first call: refused before training, with the length, exit 2; no temporary folder left', () => {
    write('huge-first.mjs', hugeReset(0));
    const r = rlx('train', write('huge-first.rlx', textSpec('huge-first.mjs')), '--out', 'runs-first');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /reset\(\) returned "a{80}"\.\.\., 95\.4 M UTF-16 units, but spec\.max_observation is 8; raise max_observation or write less/);
    assert.doesNotMatch(r.stderr, /internal error|heap/);
    assert.deepEqual(r.leftInTmp, []);
    assert.equal(fs.existsSync(path.join(work, 'runs-first')), false, 'no run folder');
  });

  test('during training: the run fails cleanly (status failed), exit 2; no temporary folder left', () => {
    write('huge-later.mjs', hugeReset(3));
    const r = rlx('train', write('huge-later.rlx', textSpec('huge-later.mjs')), '--out', 'runs-later');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /training failed: .*reset\(\) returned "a{80}"\.\.\., 95\.4 M UTF-16 units, but spec\.max_observation is 8/);
    const runDir = r.stdout.trim();
    const status = JSON.parse(fs.readFileSync(path.join(work, runDir, 'status.json'), 'utf8')) as { status: string; error?: string };
    assert.equal(status.status, 'failed');
    assert.equal(fs.existsSync(path.join(work, runDir, 'run.lock')), false, 'the lock is released');
    assert.deepEqual(r.leftInTmp, []);
  });
});

describe('env params over 16 KiB of JSON', () => {
  test('reach every copy whole (they were cut after the first copy)', () => {
    const blob = 'x'.repeat(40_000);
    write('blob.mjs', `export const spec = { observations: ['x'], actions: 'discrete' };
export default class {
  constructor(params) {
    if (params.blob?.length !== ${blob.length}) throw new Error('blob of ' + params.blob?.length + ' characters');
    this.observationSpace = { kind: 'box', shape: [1], low: [0], high: [1] };
    this.actionSpace = { kind: 'discrete', n: 2 };
  }
  reset() { return { obs: [0], info: {} }; }
  step() { return { obs: [0], reward: 1, terminated: true, truncated: false, info: {} }; }
}
`);
    const spec = `env Blob = module("./blob.mjs") { blob: "${blob}" }
policy Actor = mlp { hidden: [8] }
experiment Many { env: Blob, envs: 4, policy: Actor, algorithm: PPO, budget: 512 }
`;
    const r = rlx('train', write('blob.rlx', spec), '--out', 'runs-blob');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /finished at step/);
    assert.deepEqual(r.leftInTmp, []);
  });
});
