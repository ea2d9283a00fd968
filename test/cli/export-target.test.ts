// `rlx export --to DIR` where DIR cannot be written: a dangling link, a path under a file, a
// read-only file system, a full disk, no free inodes. Each is one line naming DIR and what to do
// (exit 2), and leaves nothing behind: the folder is written beside DIR under a temporary name
// and renamed once whole, so a retry after the failure writes as if it was the first try.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import type { Plan } from '../../dsl/compile/plan.js';
import { repoRoot } from '../helpers/repo.js';
import { scratch } from './scratch.js';

const s = scratch('rlx-export-target-');
const FAULTS = path.join(repoRoot(), 'out', 'test', 'helpers', 'fs-faults.js');

let runDir: string;
before(async () => {
  const [{ train }, { makePlan }] = await Promise.all([import('../../runtime/train.js'), import('../runtime/helpers.js')]);
  const base = path.join(s.work, 'base');
  fs.cpSync(path.join(repoRoot(), 'examples/models/addition-sft'), base, { recursive: true });
  const plan: Plan = makePlan({ env: 'TextTask', envParams: { task: { kind: 'addition', digits: 2, pad: true }, max_tokens: 8 }, algorithm: 'SFT', algorithmParams: { updates: 2, batch_size: 4, learning_rate: 1e-3 } });
  plan.stages[0]!.budget = null;
  plan.policy = { name: 'Sft', kind: 'pretrained', params: { model: base } as never };
  ({ runDir } = await train(plan, { out: path.join(s.work, 'runs') }));
});

/** rlx export of the run to `to`, with the file system failing as `fault` says (test/helpers/fs-faults.ts). */
function exportTo(to: string, fault?: Record<string, unknown>): { code: number; stdout: string; stderr: string } {
  const env = { ...process.env, RLX_TEST_FS_FAULT: fault ? JSON.stringify(fault) : '' };
  const r = spawnSync(process.execPath, ['--import', FAULTS, path.join(repoRoot(), 'bin', 'rlx.js'), 'export', runDir, '--to', to], { cwd: s.work, env, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function refused(r: { code: number; stderr: string }, says: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, says);
  assert.doesNotMatch(r.stderr, /internal error|    at /, 'one line, no stack');
}

/** A fresh folder for one case's target, and what is in it now. */
function place(name: string): { dir: string; entries: () => string[] } {
  const dir = path.join(s.work, name);
  fs.mkdirSync(dir);
  return { dir, entries: () => fs.readdirSync(dir).sort() };
}

describe('rlx export --to a place that cannot be written (issue 43, item 10)', () => {
  test('a dangling link: refused, naming it; nothing is made where it points', () => {
    const { dir } = place('dangling');
    fs.symlinkSync(path.join(dir, 'gone'), path.join(dir, 'model'));
    refused(exportTo(path.join(dir, 'model')), /--to .*dangling\/model is a symbolic link \(to .*dangling\/gone, which names nothing\); rlx export writes a folder of its own and never through a link: name a new folder/);
    assert.equal(fs.existsSync(path.join(dir, 'gone')), false);
  });

  test('a path under a file: refused, saying a part of the path is a file', () => {
    const { dir } = place('under-file');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'mine\n');
    refused(exportTo(path.join(dir, 'notes.txt', 'model')), /cannot export to .*under-file\/notes\.txt\/model: a part of the path is a file, not a folder; .* \(ENOTDIR\)/);
    assert.equal(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8'), 'mine\n');
  });

  const faults: [string, Record<string, unknown>, RegExp][] = [
    ['a read-only file system', { code: 'EROFS', kind: 'create', after: 0 }, /the file system is read-only; export elsewhere with --to DIR \(EROFS\); nothing was left there/],
    ['no free inodes (some files written, then none)', { code: 'ENOSPC', kind: 'create', after: 3 }, /no space left on the device \(or no free inodes\); free some space, or export elsewhere with --to DIR \(ENOSPC\)/],
    ['a disk that fills up mid-file', { code: 'ENOSPC', kind: 'write', after: 50_000 }, /no space left on the device \(or no free inodes\).*\(ENOSPC\)/],
  ];
  for (const [name, fault, says] of faults) {
    test(`${name}: one line, nothing left behind, and a retry writes the folder`, () => {
      const { dir, entries } = place(`fault-${fault.code}-${fault.kind}-${fault.after}`);
      const to = path.join(dir, 'model');
      refused(exportTo(to, { under: dir, ...fault }), says);
      assert.deepEqual(entries(), [], 'no half-written folder, no temporary one');
      const retry = exportTo(to);
      assert.equal(retry.code, 0, retry.stderr);
      const listed = retry.stdout.trim().split('\n');
      assert.ok(listed.some((f) => f.endsWith('model.safetensors')), retry.stdout);
      for (const file of listed) assert.ok(fs.statSync(path.resolve(s.work, file)).size > 0, file);
      assert.deepEqual(entries(), ['model']);
    });
  }
});
