// Which runs a panel shows again after a window reload.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { rememberPanel, restoreRunDirs } from '../../../extension/panels/restore-state.js';

function roots(): { a: string; b: string; run: string } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-restore-'));
  const a = path.join(base, 'one', 'runs');
  const b = path.join(base, 'two', 'runs');
  const run = path.join(b, 'Balance', '20261121-101010-seed1');
  fs.mkdirSync(run, { recursive: true });
  fs.mkdirSync(a, { recursive: true });
  return { a, b, run };
}

test('run ids from the page state are found in any runs folder', () => {
  const { a, b, run } = roots();
  assert.deepEqual(restoreRunDirs('rlx.dashboard', 't', { runs: ['Balance/20261121-101010-seed1'] }, [], [a, b]), [run]);
});

test('ids that leave the runs folder or do not exist are ignored', () => {
  const { a, b } = roots();
  assert.deepEqual(restoreRunDirs('rlx.dashboard', 't', { runs: ['../../etc', 'Balance/missing', 42] }, [], [a, b]), []);
});

test('without usable page state, the remembered panel of that type and title', () => {
  const { a, b, run } = roots();
  let remembered = rememberPanel([], 'rlx.dashboard', 'Balance/20261121-101010-seed1', [run]);
  remembered = rememberPanel(remembered, 'rlx.compare', 'Compare 2 runs', [run, '/gone']);
  assert.deepEqual(restoreRunDirs('rlx.dashboard', 'Balance/20261121-101010-seed1', { zoom: 2 }, remembered, [a, b]), [run]);
  assert.deepEqual(restoreRunDirs('rlx.compare', 'Compare 2 runs', undefined, remembered, [a, b]), [run], 'runs deleted since are left out');
  assert.deepEqual(restoreRunDirs('rlx.rollouts', 'Balance/20261121-101010-seed1', undefined, remembered, [a, b]), []);
  assert.deepEqual(rememberPanel(remembered, 'rlx.dashboard', 'Balance/20261121-101010-seed1', undefined).map((p) => p.viewType), ['rlx.compare']);
});
