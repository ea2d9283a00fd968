// A checkpoint's policy file and side file are read back as the state recorded them: a file cut
// short or changed in place makes the checkpoint damaged, naming the file and how it differs.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { loadCheckpoint, saveCheckpoint, STATE_FORMAT, STATE_VERSION, type CheckpointState } from '../../../runtime/run/checkpoint.js';
import { tempDir } from '../helpers.js';

function saved(): { dir: string; state: string } {
  const dir = tempDir();
  const trainer = { elapsed: 0, nextEval: 0, evalCount: 0, nextCheckpoint: 0, recentReturns: [], recentLengths: [], recentSuccesses: [], latestEval: {} };
  // A droppable object's arrays go to the side file (state-8.bin).
  const algorithmState = { buffer: { droppable: true, obs: new Float32Array([1, 2, 3, 4]) } };
  const state: CheckpointState = { format: STATE_FORMAT, version: STATE_VERSION, step: 8, seed: 1, algorithm: 'DQN', trainer, algorithmState };
  return { dir, state: saveCheckpoint(dir, state, new Uint8Array([9, 8, 7, 6]), false).state };
}

test('a checkpoint with its files as written loads, side-file arrays included', () => {
  const { state } = saved();
  const loaded = loadCheckpoint(state).algorithmState as { buffer: { obs: Float32Array } };
  assert.deepEqual([...loaded.buffer.obs], [1, 2, 3, 4]);
});

test('a policy file or side file cut short, or changed in place, is named with how it differs', () => {
  for (const [name, damage, says] of [
    ['policy-8.onnx', Buffer.from([9, 8]), 'its policy file policy-8.onnx has 2 bytes, not 4'],
    ['policy-8.onnx', Buffer.from([9, 8, 7, 0]), 'its policy file policy-8.onnx has 4 bytes that differ from those written'],
    ['state-8.bin', Buffer.alloc(3), 'its side file state-8.bin has 3 bytes, not 16'],
    ['state-8.bin', Buffer.alloc(16), 'its side file state-8.bin has 16 bytes that differ from those written'],
  ] as const) {
    const { dir, state } = saved();
    fs.writeFileSync(path.join(dir, name), damage);
    assert.throws(() => loadCheckpoint(state), { message: `${state} is damaged: ${says}` }, name);
  }
});
