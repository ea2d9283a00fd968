// How many threads a training's large ops get: what `--threads 1` (sweeps running one member
// per core, Slurm jobs of one CPU) relies on to keep a training to one core.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import { opThreadsFor } from '../../../runtime/tensor/index.js';

test('threads off keeps every op on one thread', () => {
  assert.equal(opThreadsFor({ threads: false }, ['cpu']), 1);
});

test('a GPU provider splits nothing on the CPU', () => {
  assert.equal(opThreadsFor({}, ['webgpu']), 1);
  assert.equal(opThreadsFor({ threads: true }, ['cuda']), 1);
});

test('on the CPU, two threads where there are two cores, whatever the core count above that', () => {
  assert.equal(opThreadsFor({}, ['cpu']), os.availableParallelism() >= 2 ? 2 : 1);
  assert.equal(opThreadsFor({ threads: true }, ['cpu']), os.availableParallelism() >= 2 ? 2 : 1);
});
