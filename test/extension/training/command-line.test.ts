// The trainer's command line: the bundled CLI by default, a script or an executable by setting.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { requestLabel, trainArgs, trainerCommand, trainerFile, nextUnusedSeed } from '../../../extension/training/command-line.js';

const node = '/opt/node/bin/node';
const cli = '/ext/dist/rlx.mjs';
const folder = path.resolve('/virtual/project');

test('an empty setting runs the bundled CLI with the editor Node', () => {
  const t = trainerCommand('  ', cli, node, folder);
  assert.deepEqual(t, { command: node, prefix: [cli], display: cli, bundled: true });
  assert.equal(trainerFile(t), cli);
});

test('a .js/.mjs setting runs with the editor Node, relative to the workspace folder', () => {
  const t = trainerCommand('node_modules/rlx/bin/rlx.js', cli, node, folder);
  assert.equal(t.command, node);
  assert.deepEqual(t.prefix, [path.join(folder, 'node_modules/rlx/bin/rlx.js')]);
  assert.equal(t.bundled, false);
  assert.equal(trainerCommand('tools/rlx.mjs', cli, node, folder).prefix[0], path.join(folder, 'tools/rlx.mjs'));
});

test('an executable runs directly; a bare name is looked up on PATH', () => {
  const exe = trainerCommand('/usr/local/bin/rlx', cli, node, folder);
  assert.deepEqual([exe.command, exe.prefix], ['/usr/local/bin/rlx', []]);
  assert.equal(trainerFile(exe), '/usr/local/bin/rlx');
  const bare = trainerCommand('rlx', cli, node, folder);
  assert.deepEqual([bare.command, bare.prefix], ['rlx', []]);
  assert.equal(trainerFile(bare), undefined);
  assert.equal(trainerCommand('./bin/rlx', cli, node, folder).command, path.join(folder, 'bin/rlx'));
});

test('train arguments: file, experiment, optional seed, runs folder, device unless auto', () => {
  assert.deepEqual(trainArgs({ kind: 'train', file: '/p/a.rlx', experiment: 'Balance' }, '/p/runs', 'auto'), ['train', '/p/a.rlx', '--experiment', 'Balance', '--out', '/p/runs']);
  assert.deepEqual(trainArgs({ kind: 'train', file: '/p/a.rlx', experiment: 'Balance', seed: 0 }, '/p/runs', 'cpu'), [
    'train', '/p/a.rlx', '--experiment', 'Balance', '--seed', '0', '--out', '/p/runs', '--device', 'cpu',
  ]);
});

test("a sweep runs as `rlx sweep`, the same command as on the command line (members as parallel processes)", () => {
  assert.deepEqual(trainArgs({ kind: 'sweep', file: '/p/a.rlx', sweep: 'LrScan', experiment: 'Balance' }, '/p/runs', 'auto'), ['sweep', '/p/a.rlx', '--sweep', 'LrScan', '--out', '/p/runs']);
  assert.deepEqual(trainArgs({ kind: 'sweep', file: '/p/a.rlx', sweep: 'LrScan', experiment: 'Balance' }, '/p/runs', 'cpu'), ['sweep', '/p/a.rlx', '--sweep', 'LrScan', '--out', '/p/runs', '--device', 'cpu']);
  assert.equal(requestLabel({ kind: 'sweep', file: 'a.rlx', sweep: 'LrScan', experiment: 'Balance' }), 'sweep LrScan');
});

test('resume arguments: the run directory only (its plan, seed and folder are its own)', () => {
  assert.deepEqual(trainArgs({ kind: 'resume', runDir: '/p/runs/Balance/x' }, '/p/runs', 'auto'), ['train', '--resume', '/p/runs/Balance/x']);
  assert.deepEqual(trainArgs({ kind: 'resume', runDir: '/p/runs/Balance/x' }, '/p/runs', 'webgpu'), ['train', '--resume', '/p/runs/Balance/x', '--device', 'webgpu']);
  // rlx.train.tensorboard: new runs and sweeps write TensorBoard files; a resume keeps what the run did.
  assert.deepEqual(trainArgs({ kind: 'train', file: '/p/a.rlx', experiment: 'Balance' }, '/p/runs', 'auto', true), ['train', '/p/a.rlx', '--experiment', 'Balance', '--out', '/p/runs', '--tensorboard']);
  assert.deepEqual(trainArgs({ kind: 'sweep', file: '/p/a.rlx', sweep: 'LrScan', experiment: 'Balance' }, '/p/runs', 'auto', true), ['sweep', '/p/a.rlx', '--sweep', 'LrScan', '--out', '/p/runs', '--tensorboard']);
  assert.deepEqual(trainArgs({ kind: 'resume', runDir: '/p/runs/Balance/x' }, '/p/runs', 'auto', true), ['train', '--resume', '/p/runs/Balance/x']);
});

test('labels name the experiment and seed, or the resumed run', () => {
  assert.equal(requestLabel({ kind: 'train', file: 'a.rlx', experiment: 'Balance' }), 'Balance');
  assert.equal(requestLabel({ kind: 'train', file: 'a.rlx', experiment: 'Balance', seed: 3 }), 'Balance seed 3');
  assert.equal(requestLabel({ kind: 'resume', runDir: path.join('runs', 'Balance', '20261121-101010-seed1') }), 'Balance/20261121-101010-seed1');
});

test('"Train with seed…" offers a seed no run used yet', () => {
  assert.equal(nextUnusedSeed([]), 1);
  assert.equal(nextUnusedSeed([1, 2, 4, undefined]), 3);
  assert.equal(nextUnusedSeed([1, 2, 3]), 4);
});
