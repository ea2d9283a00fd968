// `task: dataset("./file.jsonl")` from the command line (issue 30, "checks clean means it
// trains" item 1 and security items 3, 4 and 6): what `rlx train` refuses, `rlx check` reports
// at the path first; a path out of the spec's folder is refused without a byte of the file in
// any message; special files are refused at once; a dataset with bytes that are not UTF-8 gets
// one warning; a full disk while the dataset is copied leaves no half-made run folder.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { repoRoot } from '../helpers/repo.js';
import { scratch } from './scratch.js';

const { work, rlx, write } = scratch('rlx-datasets-');

const spec = (file: string) => `env Sums = TextTask { task: dataset("${file}") }
policy Tiny = transformer { layers: 1, width: 16, heads: 2 }
experiment Learn { env: Sums, policy: Tiny, algorithm: GRPO, budget: 64 }
`;
const COLUMN = 'env Sums = TextTask { task: dataset('.length + 1;
const rows = (n: number, from = 0) => Array.from({ length: n }, (_, i) => JSON.stringify({ prompt: `${from + i}+${from + i}=`, target: String(2 * (from + i)) })).join('\n') + '\n';

/** A plan of a spec on a good dataset, in `dir`, whose dataset path is then `file` (the trainer's own checks, without the checker's). */
function planWithDataset(dir: string, file: string): string {
  write(`${dir}/good.jsonl`, rows(20));
  const r = rlx('plan', write(`${dir}/spec.rlx`, spec('./good.jsonl')));
  assert.equal(r.code, 0, r.stderr);
  const plan = JSON.parse(r.stdout) as { env: { params: { task: { path: string } } } };
  assert.equal(plan.env.params.task.path, './good.jsonl', 'the plan holds the path as written');
  plan.env.params.task.path = file;
  return write(`${dir}/plan.json`, JSON.stringify(plan));
}

describe('rlx check reports a dataset rlx train would refuse, at its path', () => {
  const cases: [name: string, prepare: (dir: string) => void, code: string, message: RegExp][] = [
    ['a missing file', () => {}, 'dataset-not-found', /cannot read '\.\/data\.jsonl': no such file/],
    ['a folder', (dir) => fs.mkdirSync(path.join(work, dir, 'data.jsonl'), { recursive: true }), 'dataset-not-found', /cannot read '\.\/data\.jsonl': it is a folder, not a file/],
    ['a FIFO', (dir) => spawnSync('mkfifo', [path.join(work, dir, 'data.jsonl')]), 'dataset-not-found', /it is not a regular file \(a device, pipe or socket\)/],
    ['a link to /dev/zero', (dir) => fs.symlinkSync('/dev/zero', path.join(work, dir, 'data.jsonl')), 'dataset-not-found', /it is not a regular file/],
    ['a line without the field the task needs', (dir) => write(`${dir}/data.jsonl`, rows(3) + '{"prompt": "9+9="}\n'), 'invalid-dataset', /\.\/data\.jsonl line 4: no "target" field; each line must be/],
    ['a line of another shape', (dir) => write(`${dir}/data.jsonl`, '[1, 2]\n'), 'invalid-dataset', /line 1: expected an object with "prompt" and "target", got a list/],
    ['an empty file', (dir) => write(`${dir}/data.jsonl`, ''), 'invalid-dataset', /\.\/data\.jsonl: no examples \(the file is empty or blank\)/],
  ];
  for (const [name, prepare, code, message] of cases) {
    test(name, () => {
      const dir = `check-${name.replace(/\W+/g, '-')}`;
      fs.mkdirSync(path.join(work, dir), { recursive: true });
      prepare(dir);
      const file = write(`${dir}/spec.rlx`, spec('./data.jsonl'));
      const check = rlx('check', file);
      assert.equal(check.code, 1, check.stderr);
      const line = check.stdout.split('\n').find((l) => l.includes(` error ${code}: `));
      assert.ok(line?.startsWith(`${file}:1:${COLUMN}: error ${code}: `), check.stdout);
      assert.match(line!, message);
      const started = Date.now();
      const train = rlx('train', file);
      assert.equal(train.code, 2, train.stderr);
      assert.match(train.stderr, message);
      assert.doesNotMatch(train.stderr, /internal error/);
      assert.ok(Date.now() - started < 30_000, 'refused at once');
    });
  }
});

describe('rlx train refuses a dataset the checker did not see (a plan file)', () => {
  test('a FIFO, /dev/zero, a folder: at once, exit 2', () => {
    spawnSync('mkfifo', [path.join(work, 'fifo.jsonl')]);
    fs.symlinkSync('/dev/zero', path.join(work, 'zero.jsonl'));
    fs.mkdirSync(path.join(work, 'folder.jsonl'));
    for (const file of ['./fifo.jsonl', './zero.jsonl', './folder.jsonl']) {
      const plan = planWithDataset('.', file);
      const started = Date.now();
      const r = rlx('train', '--plan', plan, '--out', 'runs-special');
      assert.equal(r.code, 2, `${file}: ${r.stderr}`);
      assert.match(r.stderr, /is not a regular file|is a folder, not a file/);
      assert.ok(Date.now() - started < 30_000, `${file}: refused at once`);
    }
    assert.equal(fs.existsSync(path.join(work, 'runs-special')), false, 'no run folder');
  });
});

describe('a dataset path stays inside the folder of the spec; no message quotes a file', () => {
  test('rlx check and rlx train refuse ../../../etc/passwd and an absolute path, and never echo the file', () => {
    for (const outside of ['../../../etc/passwd', '/etc/passwd']) {
      const file = write('outside/spec.rlx', spec(outside));
      const check = rlx('check', file);
      assert.equal(check.code, 1);
      assert.match(check.stdout, /error dataset-not-found: '.*passwd' is outside the folder of this file; dataset paths stay inside it/);
      const train = rlx('train', '--plan', planWithDataset('outside', outside));
      assert.equal(train.code, 2, train.stderr);
      assert.match(train.stderr, /is outside the folder of the \.rlx file .*; dataset paths stay inside it/);
      assert.doesNotMatch(train.stderr + check.stdout, /root:|nologin|\/bin\//, 'nothing of the file is shown');
    }
  });

  test('a line that is not JSON is named by its number, not quoted', () => {
    write('quoted/data.jsonl', 'root:x:0:0:root:/root:/bin/bash\n');
    const r = rlx('train', '--plan', planWithDataset('quoted', './data.jsonl'));
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /\.\/data\.jsonl line 1: not valid JSON; each line must be/);
    assert.doesNotMatch(r.stderr, /root:/);
  });
});

describe('bytes that are not UTF-8: one warning naming the file and the line', () => {
  test('rlx check warns at the path; rlx train says so once and trains', () => {
    write('latin1/data.jsonl', Buffer.concat([Buffer.from(rows(20)), Buffer.from('{"prompt": "caf'), Buffer.of(0xe9), Buffer.from('", "target": "1"}\n'), Buffer.from(rows(5, 30))]));
    const file = write('latin1/spec.rlx', spec('./data.jsonl'));
    const warning = './data.jsonl line 21: bytes that are not UTF-8 text, read as U+FFFD (\uFFFD); save the file as UTF-8';
    const check = rlx('check', file);
    assert.equal(check.code, 0, check.stdout);
    assert.ok(check.stdout.includes(`warning invalid-dataset: ${warning}`), check.stdout);
    const train = rlx('train', file, '--out', 'runs-latin1');
    assert.equal(train.code, 0, train.stderr);
    assert.equal(train.stderr.split(warning).length - 1, 1, `said once: ${train.stderr}`);
  });
});

describe('datasets over 512 MiB', () => {
  test('refused with the limit by rlx check and rlx train (a sparse file: no disk is used)', () => {
    fs.mkdirSync(path.join(work, 'large'), { recursive: true });
    fs.closeSync(fs.openSync(path.join(work, 'large/data.jsonl'), 'w'));
    fs.truncateSync(path.join(work, 'large/data.jsonl'), 600 * 2 ** 20);
    const check = rlx('check', write('large/spec.rlx', spec('./data.jsonl')));
    assert.equal(check.code, 1);
    assert.match(check.stdout, /error invalid-dataset: '\.\/data\.jsonl' is 600\.0 MiB, more than the 512 MiB rlx reads for a dataset; split it or keep a sample/);
    const train = rlx('train', '--plan', planWithDataset('large', './data.jsonl'));
    assert.equal(train.code, 2, train.stderr);
    assert.match(train.stderr, /is 600\.0 MiB, more than the 512\.0 MiB rlx reads for it/);
  });
});

describe('a write that fails while the dataset is copied into the run (a full disk)', () => {
  test('no run folder is left behind, without status.json or with a lock', () => {
    // A file-size limit makes the copy fail part way, as a full disk would (ENOSPC cannot be
    // made without a small file system); SIGXFSZ is ignored so that the write fails instead.
    write('full/data.jsonl', rows(4000));
    const file = write('full/spec.rlx', spec('./data.jsonl'));
    const bin = path.join(repoRoot(), 'bin', 'rlx.js');
    const r = spawnSync('bash', ['-c', `trap '' XFSZ; ulimit -f 64; exec "${process.execPath}" "${bin}" train ${file} --out runs-full`], { cwd: work, encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /larger than this process may write \(EFBIG\)/);
    const experiment = path.join(work, 'runs-full', 'Learn');
    assert.deepEqual(fs.existsSync(experiment) ? fs.readdirSync(experiment) : [], [], 'the run folder was removed');
  });

  test('nor when not a byte can be written (the run lock fails)', () => {
    write('full0/data.jsonl', rows(20));
    const file = write('full0/spec.rlx', spec('./data.jsonl'));
    const bin = path.join(repoRoot(), 'bin', 'rlx.js');
    const r = spawnSync('bash', ['-c', `trap '' XFSZ; ulimit -f 0; exec "${process.execPath}" "${bin}" train ${file} --out runs-full0`], { cwd: work, encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 2, r.stderr);
    const experiment = path.join(work, 'runs-full0', 'Learn');
    assert.deepEqual(fs.existsSync(experiment) ? fs.readdirSync(experiment) : [], [], 'the run folder was removed');
  });
});
