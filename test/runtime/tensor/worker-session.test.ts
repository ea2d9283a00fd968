// Sessions on worker threads: the same answers as a Session on this thread, feeds checked
// here, failures on the worker reported as errors here, runs that overlap this thread's, and
// runs this thread takes back or drops when the worker is busy.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Graph } from '../../../runtime/tensor/graph.js';
import { buildModel } from '../../../runtime/tensor/onnx.js';
import { WeightStore } from '../../../runtime/tensor/weights.js';
import { Session } from '../../../runtime/tensor/session.js';
import { claimRun, CONTROL } from '../../../runtime/tensor/worker-protocol.js';
import { WorkerSession } from '../../../runtime/tensor/worker-session.js';

function layer() {
  const g = new Graph();
  const x = g.input('x', 'float32', ['B', 2]);
  const w = g.param('w', [2, 3]);
  const y = g.reduceSum(g.tanh(g.matmul(x, w)), { axes: [0] });
  const store = new WeightStore();
  store.add('w', [2, 3], [0.1, -0.2, 0.3, 0.4, 0.5, -0.6]);
  return { g, y, store, model: buildModel(g, { outputs: { y } }) };
}

/** A model slow enough at 8192 rows (~9 G multiply-adds: over 40 ms on any core, ~160 ms on ours) to keep the worker busy. */
function slowModel() {
  const g = new Graph();
  const x = g.input('x', 'float32', ['B', 256]);
  const w = g.param('w', [256, 256]);
  let h = x;
  for (let i = 0; i < 16; i++) h = g.tanh(g.matmul(h, w));
  const y = g.reduceSum(h, { axes: [0] });
  const store = new WeightStore();
  store.add('w', [256, 256], (n) => Array.from({ length: n }, (_, i) => Math.sin(i) / 16));
  return { g, y, store, model: buildModel(g, { outputs: { y } }) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('claimRun', () => {
  it('gives each run to one claimer, and never a run older than one claimed', () => {
    const control = new Int32Array(64);
    assert.equal(claimRun(control, 1), true);
    assert.equal(claimRun(control, 1), false, 'claimed already');
    assert.equal(claimRun(control, 3), true, 'a later run, the one between skipped');
    assert.equal(claimRun(control, 2), false, 'older than the latest claim');
  });
});

describe('WorkerSession', () => {
  it('answers as a Session on this thread does, for any batch size up to its limit', async () => {
    const { g, y, store, model } = layer();
    const local = await Session.create(g, { y }, { weights: store });
    const remote = await WorkerSession.create(model, { weights: store, dimLimits: { B: 8 } });
    try {
      for (const rows of [1, 3, 8]) {
        const x = Float32Array.from({ length: rows * 2 }, (_, i) => Math.sin(i + rows));
        remote.start({ x });
        const theirs = await remote.finish();
        const mine = await local.run({ x });
        assert.deepEqual([...theirs.y!], [...mine.y!], `${rows} rows`);
      }
    } finally {
      await remote.release();
      await local.release();
    }
  });

  it('takes a worker booted ahead by warmUp(), which then answers as any other', async () => {
    const { g, y, store, model } = layer();
    WorkerSession.warmUp();
    WorkerSession.warmUp(); // a second call while one waits boots no other
    const local = await Session.create(g, { y }, { weights: store });
    // The first create() takes the warmed-up worker, the second starts its own.
    const remotes = [await WorkerSession.create(model, { weights: store, dimLimits: { B: 4 } }), await WorkerSession.create(model, { weights: store, dimLimits: { B: 4 } })];
    try {
      const x = Float32Array.from({ length: 6 }, (_, i) => Math.cos(i));
      const mine = await local.run({ x });
      for (const remote of remotes) {
        remote.start({ x });
        assert.deepEqual([...(await remote.finish()).y!], [...mine.y!]);
      }
    } finally {
      await Promise.all(remotes.map((r) => r.release()));
      await local.release();
    }
  });

  it('reads the parameters at each start, so in-place optimiser updates reach the worker', async () => {
    const { store, model } = layer();
    const remote = await WorkerSession.create(model, { weights: store, dimLimits: { B: 4 } });
    try {
      const x = new Float32Array([1, 0]);
      remote.start({ x });
      const before = [...(await remote.finish()).y!];
      store.get('w').data.fill(0);
      remote.start({ x });
      assert.deepEqual([...(await remote.finish()).y!], [0, 0, 0]);
      assert.notDeepEqual(before, [0, 0, 0]);
    } finally {
      await remote.release();
    }
  });

  it('checks feeds before starting: size against the limit, dims, presence', async () => {
    const { store, model } = layer();
    const remote = await WorkerSession.create(model, { weights: store, dimLimits: { B: 2 } });
    try {
      assert.throws(() => remote.start({ x: new Float32Array(6) }), /input 'x' has 6 elements, more than the 4 its dimLimits allow/);
      assert.throws(() => remote.start({ x: { data: new Float32Array(4), dims: [1, 4] } }), /dim 1 must be 2/);
      assert.throws(() => remote.start({}), /missing input 'x'/);
      assert.rejects(remote.finish(), /finish\(\) without start\(\)/);
      remote.start({ x: new Float32Array(2) });
      assert.throws(() => remote.start({ x: new Float32Array(2) }), /start\(\) called twice/);
      await remote.finish();
    } finally {
      await remote.release();
    }
  });

  it('needs a limit for each symbolic dim, and outputs with static shapes', async () => {
    const { store, model } = layer();
    await assert.rejects(WorkerSession.create(model, { weights: store }), /dim 'B' with no limit; pass dimLimits: \{ B: <largest size> \}/);
    const g = new Graph();
    const x = g.input('x', 'float32', ['B']);
    await assert.rejects(WorkerSession.create(buildModel(g, { outputs: { y: g.mul(x, 2) } }), { dimLimits: { B: 4 } }), /output 'y' must be float32 with a static shape/);
  });

  it("reports onnxruntime's error from the worker, and keeps working after it", async () => {
    const g = new Graph();
    const x = g.input('x', 'float32', ['B']);
    // Reshaping to [2, 2] only works for 4 elements: onnxruntime refuses other sizes at run time.
    const y = g.reduceSum(g.reshape(x, [2, 2]), { axes: [1] });
    const remote = await WorkerSession.create(buildModel(g, { outputs: { y } }), { dimLimits: { B: 8 } });
    try {
      remote.start({ x: new Float32Array(6) });
      await assert.rejects(remote.finish(), /onnxruntime failed on the worker thread: .*[Rr]eshape/);
      remote.start({ x: new Float32Array([1, 2, 3, 4]) });
      assert.deepEqual([...(await remote.finish()).y!], [3, 7]);
    } finally {
      await remote.release();
    }
  });

  it('hands a run back to this thread while the worker is busy, and never answers with a dropped run', async () => {
    const { g, y, store, model } = slowModel();
    const local = await Session.create(g, { y }, { weights: store });
    const remote = await WorkerSession.create(model, { weights: store, dimLimits: { B: 8192 } });
    const rows = (n: number, phase: number) => ({ data: Float32Array.from({ length: n * 256 }, (_, i) => Math.cos(i + phase)), dims: [n, 256] });
    try {
      assert.throws(() => remote.takeBack(), /takeBack\(\) without start\(\)/);
      remote.start({ x: rows(8192, 0) });
      await workerClaims(remote); // the worker has begun the slow run
      assert.equal(remote.takeBack(), false, 'the worker has begun it');
      assert.equal(await remote.finishWithin(0), null, 'still computing: dropped');
      // The worker is busy with the dropped run: this one is taken back, for this thread.
      remote.start({ x: rows(2, 1) });
      assert.equal(remote.takeBack(), true);
      // The next answer is this run's own, not the dropped run's late one.
      const x = rows(3, 2);
      remote.start({ x });
      assert.deepEqual([...(await remote.finish()).y!], [...(await local.run({ x })).y!]);
      assert.ok(remote.lastComputeMicros > 0);
    } finally {
      await remote.release();
      await local.release();
    }
  });

  it('answers after wake() as before, whether it slept or not', async () => {
    const { g, y, store, model } = layer();
    const local = await Session.create(g, { y }, { weights: store });
    const remote = await WorkerSession.create(model, { weights: store, dimLimits: { B: 4 }, spinMicros: 0 });
    try {
      const x = new Float32Array([0.25, 0.75]);
      const expected = [...(await local.run({ x })).y!];
      for (let i = 0; i < 3; i++) {
        await sleep(2);
        remote.wake();
        remote.wake();
        remote.start({ x });
        assert.deepEqual([...(await remote.finish()).y!], expected);
      }
    } finally {
      await remote.release();
      await local.release();
    }
  });

  it('runs while this thread works, and a released session refuses to start', async () => {
    const { store, model } = layer();
    const remote = await WorkerSession.create(model, { weights: store, dimLimits: { B: 4 }, spinMicros: 0 });
    const x = new Float32Array([0.5, -0.5]);
    remote.start({ x });
    // This thread is free meanwhile: a timer fires before the answer is collected.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const out = await remote.finish();
    assert.equal(out.y!.length, 3);
    await remote.release();
    assert.throws(() => remote.start({ x }), /released/);
  });
});

/**
 * Waits until the worker has claimed the run start() began (at most 10 s). A fixed sleep was
 * not enough: on a loaded machine the worker thread may not get a core for tens of ms.
 */
async function workerClaims(remote: WorkerSession): Promise<void> {
  const inside = remote as unknown as { control: Int32Array; run: number };
  for (const deadline = Date.now() + 10_000; Atomics.load(inside.control, CONTROL.claim) < inside.run && Date.now() < deadline; ) await sleep(1);
}
