// Checks before a trainer starts.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { trainerCommand } from '../../../extension/training/command-line.js';
import { checkRunsFolder, checkTrainer } from '../../../extension/training/preflight.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-preflight-'));

test('a runs folder is created when missing, and must be writable', () => {
  const dir = tmp();
  assert.equal(checkRunsFolder(path.join(dir, 'runs', 'nested')), undefined);
  assert.ok(fs.statSync(path.join(dir, 'runs', 'nested')).isDirectory());
  assert.deepEqual(fs.readdirSync(path.join(dir, 'runs', 'nested')), [], 'the write probe is removed');
  fs.writeFileSync(path.join(dir, 'file'), '');
  assert.equal(
    checkRunsFolder(path.join(dir, 'file', 'runs')),
    `Cannot write runs to ${path.join(dir, 'file', 'runs')} (a file is in the way). Choose another folder with the setting rlx.runs.folder.`,
  );
});

test('the trainer file must exist; a command on PATH is left to its start', () => {
  const dir = tmp();
  const cli = path.join(dir, 'rlx.mjs');
  assert.match(checkTrainer(trainerCommand('', cli, process.execPath, dir))!, /^The trainer bundled with the rlx extension is missing/);
  fs.writeFileSync(cli, '');
  assert.equal(checkTrainer(trainerCommand('', cli, process.execPath, dir)), undefined);
  assert.equal(
    checkTrainer(trainerCommand('./bin/rlx.js', cli, process.execPath, dir)),
    `The rlx trainer was not found at ${path.join(dir, 'bin', 'rlx.js')}. Fix the setting rlx.trainer.path, or clear it to use the trainer bundled with the extension.`,
  );
  assert.equal(checkTrainer(trainerCommand('rlx', cli, process.execPath, dir)), undefined);
  assert.match(checkTrainer(trainerCommand(dir, cli, process.execPath, dir))!, /not found/, 'a folder is not a trainer');
});
