// The run queue: at most `limit` at once, in order, a freed slot starts the next.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JobQueue } from '../../../extension/training/queue.js';

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setImmediate(r));

test('starts up to the limit and queues the rest in order', async () => {
  const started: string[] = [];
  const gates = new Map<string, ReturnType<typeof deferred>>();
  const queue = new JobQueue<string>(() => 2, (job) => {
    started.push(job);
    const gate = deferred();
    gates.set(job, gate);
    return gate.promise;
  });
  for (const job of ['a', 'b', 'c', 'd']) queue.add(job);
  assert.deepEqual(started, ['a', 'b']);
  assert.deepEqual(queue.queued, ['c', 'd']);
  gates.get('b')!.resolve();
  await tick();
  assert.deepEqual(started, ['a', 'b', 'c']);
  // A job that fails frees its slot as well.
  gates.get('a')!.reject(new Error('trainer crashed'));
  await tick();
  assert.deepEqual(started, ['a', 'b', 'c', 'd']);
  assert.deepEqual(queue.running, ['c', 'd']);
});

test('a removed job never starts; a raised limit starts waiting jobs on pump()', async () => {
  let limit = 1;
  const started: number[] = [];
  const queue = new JobQueue<number>(() => limit, (job) => {
    started.push(job);
    return new Promise(() => undefined);
  });
  [1, 2, 3].forEach((j) => queue.add(j));
  assert.equal(queue.remove(2), true);
  assert.equal(queue.remove(1), false, 'a running job is not in the queue');
  limit = 3;
  queue.pump();
  assert.deepEqual(started, [1, 3]);
});

test('a limit below one still runs one job at a time', () => {
  const started: number[] = [];
  const queue = new JobQueue<number>(() => 0, (job) => {
    started.push(job);
    return new Promise(() => undefined);
  });
  queue.add(1);
  queue.add(2);
  assert.deepEqual(started, [1]);
});

test('a start that throws synchronously frees its slot', async () => {
  const started: number[] = [];
  const queue = new JobQueue<number>(() => 1, (job) => {
    started.push(job);
    if (job === 1) throw new Error('spawn failed');
    return Promise.resolve();
  });
  queue.add(1);
  queue.add(2);
  await tick();
  assert.deepEqual(started, [1, 2]);
});
