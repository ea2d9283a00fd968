// The source snapshot keeps every file a plan came from, also imports from sibling folders.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { RunDirectory, snapshotPath } from '../../../runtime/run/run-dir.js';
import type { Plan } from '../../../dsl/compile/plan.js';

test('snapshot paths stay inside source/, with .. written as _up', () => {
  assert.equal(snapshotPath('main.rlx'), 'main.rlx');
  assert.equal(snapshotPath('./lib/parts.rlx'), 'lib/parts.rlx');
  assert.equal(snapshotPath('../shared/envs.rlx'), '_up/shared/envs.rlx');
  assert.equal(snapshotPath('../../a.rlx'), '_up/_up/a.rlx');
});

test('a run directory snapshots an import from outside the entry folder', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-run-dir-'));
  try {
    const plan = { experiment: 'E', sweep: null } as unknown as Plan;
    const run = RunDirectory.create(root, plan, 1, [{ path: 'main.rlx', text: 'a' }, { path: '../common/envs.rlx', text: 'b' }]);
    assert.equal(fs.readFileSync(path.join(run.dir, 'source', '_up', 'common', 'envs.rlx'), 'utf8'), 'b');
    assert.equal(fs.readFileSync(path.join(run.dir, 'source', 'main.rlx'), 'utf8'), 'a');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
