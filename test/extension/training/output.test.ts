// The error a failed trainer printed, as cli/main.ts and train.ts print them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineSplitter, trainerError } from '../../../extension/training/output.js';

test('a refusal of rlx train is its message, without the prefix', () => {
  const lines = ['rlx train: Balance, seed 1', "rlx train: --device must be one of auto, cpu, cuda, webgpu, got 'tpu'"];
  assert.equal(trainerError(lines), "--device must be one of auto, cpu, cuda, webgpu, got 'tpu'");
});

test('a failed run keeps the lines that follow its message', () => {
  const lines = [
    'rlx train: Balance, seed 1',
    'rlx train 10.0k/500.0k steps  5000 steps/s  return 21.0  ETA 1m38s',
    'rlx train: training failed: the env broke',
    'the run directory runs/Balance/20261121-101010-seed1 is marked failed',
  ];
  assert.equal(trainerError(lines), 'training failed: the env broke\nthe run directory runs/Balance/20261121-101010-seed1 is marked failed');
});

test('an internal error is reported with its hint', () => {
  const lines = ['rlx train: internal error: boom', 'This is a bug in rlx; run again with RLX_DEBUG=1 for details and report it.'];
  assert.match(trainerError(lines)!, /^internal error: boom\nThis is a bug/);
});

test('a crash of the runtime (not an rlx message) gives its error line', () => {
  const lines = [
    'node:internal/modules/cjs/loader:1228',
    '  throw err;',
    "Error: Cannot find module 'onnxruntime-node'",
    'Require stack:',
    '- /ext/dist/rlx.mjs',
  ];
  assert.equal(trainerError(lines), "Error: Cannot find module 'onnxruntime-node'");
});

test('a crash right after a run started is the crash, not the start message', () => {
  const lines = ['rlx train: Balance, seed 1', 'rlx train: device auto: no GPU provider started; training on the cpu', 'Error: Cannot find module onnxruntime-node', '    at Module._resolveFilename'];
  assert.equal(trainerError(lines), 'Error: Cannot find module onnxruntime-node');
});

test('a clean stop or end is not an error', () => {
  assert.equal(trainerError(['rlx train: finished at step 2000: budget reached (2000 of 2000 steps)']), undefined);
  assert.equal(trainerError(['rlx train: SIGTERM; stopping after this update (final checkpoint; again to exit at once)']), undefined);
});

test('lines are split across chunks, a partial last line waits', () => {
  const s = new LineSplitter();
  assert.deepEqual(s.push('one\ntw'), ['one']);
  assert.deepEqual(s.push('o\r\nthree'), ['two']);
  assert.deepEqual(s.flush(), ['three']);
  assert.deepEqual(s.flush(), []);
});
