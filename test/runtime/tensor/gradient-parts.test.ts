// A loss in parts over disjoint parameters: the parts' gradients are the whole loss's, and
// the numbers do not depend on whether the parts ran on worker threads.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GradientParts } from '../../../runtime/tensor/gradient-parts.js';
import { GradientSession } from '../../../runtime/tensor/gradient-session.js';
import { Graph } from '../../../runtime/tensor/graph.js';
import { WeightStore } from '../../../runtime/tensor/weights.js';
import { seededRandom } from '../../helpers/random.js';

/** Two small networks on one input: a 'policy' and a 'value' loss, each over its own weights. */
function twoNetworks() {
  const random = seededRandom(3);
  const store = new WeightStore();
  for (const net of ['a', 'b']) {
    store.add(`${net}.w`, [3, 4], (n) => Array.from({ length: n }, () => random() - 0.5));
    store.add(`${net}.u`, [4, 2], (n) => Array.from({ length: n }, () => random() - 0.5));
  }
  const g = new Graph();
  const p = store.declare(g);
  const x = g.input('x', 'float32', ['B', 3]);
  const target = g.input('target', 'float32', ['B', 2]);
  const net = (name: string) => g.matmul(g.tanh(g.matmul(x, p[`${name}.w`]!)), p[`${name}.u`]!);
  const lossA = g.mean(g.square(g.sub(net('a'), target)));
  const lossB = g.mean(g.mul(g.tanh(net('b')), target));
  const feeds = { x: Float32Array.from({ length: 15 }, () => random() - 0.5), target: Float32Array.from({ length: 10 }, () => random()) };
  return { g, store, lossA, lossB, feeds };
}

/** The two networks' losses as two parts, once with the second on a worker thread and once all on this one. */
async function threadedAndSerial() {
  const { g, store, lossA, lossB, feeds } = twoNetworks();
  const definition = [
    { loss: lossA, weights: ['a.w', 'a.u'] },
    { loss: lossB, weights: ['b.w', 'b.u'] },
  ];
  const threaded = await GradientParts.create(g, definition, { weights: store, threads: true, dimLimits: { B: 5 } });
  const serial = await GradientParts.create(g, definition, { weights: store, threads: false });
  return { store, feeds, threaded, serial };
}

describe('GradientParts', () => {
  it('gives the gradients of the whole loss, in the store order, and each part its extras', async () => {
    const { g, store, lossA, lossB, feeds } = twoNetworks();
    const parts = await GradientParts.create(
      g,
      [
        { loss: lossA, weights: ['a.w', 'a.u'], extras: { a_loss: g.unsqueeze(lossA, [0]) } },
        { loss: lossB, weights: ['b.w', 'b.u'], extras: { b_loss: g.unsqueeze(lossB, [0]) } },
      ],
      { weights: store, threads: false },
    );
    const whole = await GradientSession.create(g, { loss: g.add(lossA, lossB), weights: store });
    try {
      const ours = await parts.run(feeds);
      const reference = await whole.run(feeds);
      assert.equal(ours.grads.length, 4);
      store.names.forEach((name, k) => {
        const expected = reference.grads[k]!;
        assert.equal(ours.grads[k]!.length, expected.length, name);
        expected.forEach((v, i) => assert.ok(Math.abs(ours.grads[k]![i]! - v) <= 1e-6, `d loss / d ${name}[${i}]: ${ours.grads[k]![i]} vs ${v}`));
      });
      assert.ok(Math.abs(ours.extras.a_loss![0]! + ours.extras.b_loss![0]! - reference.loss) < 1e-6);
    } finally {
      await parts.release();
      await whole.release();
    }
  });

  it('computes the same numbers with the second part on a worker thread as in turn on this one', async () => {
    const { store, feeds, threaded, serial } = await threadedAndSerial();
    try {
      assert.equal(threaded.threaded, true);
      assert.equal(serial.threaded, false);
      for (let step = 0; step < 3; step++) {
        const a = await threaded.run(feeds);
        const b = await serial.run(feeds);
        store.names.forEach((name, k) => assert.deepEqual([...a.grads[k]!], [...b.grads[k]!], `${name}, step ${step}`));
        // Move the parameters as an optimiser would: the worker must see the new values.
        for (const [k, p] of store.values.entries()) for (let i = 0; i < p.length; i++) p[i] = p[i]! - 0.1 * b.grads[k]![i]!;
      }
    } finally {
      await threaded.release();
      await serial.release();
    }
  });

  it('can be released before its first run, while the worker is still starting', async () => {
    const { g, store, lossA, lossB } = twoNetworks();
    const parts = await GradientParts.create(
      g,
      [
        { loss: lossA, weights: ['a.w', 'a.u'] },
        { loss: lossB, weights: ['b.w', 'b.u'] },
      ],
      { weights: store, threads: true, dimLimits: { B: 5 } },
    );
    await parts.release();
  });

  it("reports a worker's part that onnxruntime cannot compile when the parts are created", async () => {
    const { g, store, lossA, lossB } = twoNetworks();
    // onnxruntime knows no such op, so only the worker's model (and its standby here) fails to compile.
    const broken = g.custom('NoSuchOp', [lossB], { dtype: 'float32', shape: [] });
    const create = GradientParts.create(
      g,
      [
        { loss: lossA, weights: ['a.w', 'a.u'] },
        { loss: lossB, weights: ['b.w', 'b.u'], extras: { broken: g.unsqueeze(broken, [0]) } },
      ],
      { weights: store, threads: true, dimLimits: { B: 5 } },
    );
    await assert.rejects(create, /onnxruntime rejected the model .*NoSuchOp/);
  });

  it('gives the same numbers however each run of the worker part went: on the worker, taken back, or rescued', async () => {
    const { store, feeds, threaded, serial } = await threadedAndSerial();
    try {
      const expected = (await serial.run(feeds)).grads.map((a) => [...a]);
      // Runs back to back, and after pauses in which the worker goes to sleep (woken or not).
      for (let step = 0; step < 60; step++) {
        if (step % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
        if (step % 20 === 0) threaded.wake();
        const a = await threaded.run(feeds);
        store.names.forEach((name, k) => assert.deepEqual([...a.grads[k]!], expected[k], `${name}, step ${step}`));
      }
      const stats = threaded.threadStats;
      assert.equal(stats.asked, 60);
      assert.ok(stats.takenBack + stats.rescued <= stats.asked);
    } finally {
      await threaded.release();
      await serial.release();
    }
  });

  it('refuses parts that overlap or leave a parameter out', async () => {
    const { g, store, lossA, lossB } = twoNetworks();
    await assert.rejects(
      GradientParts.create(g, [{ loss: lossA, weights: ['a.w', 'a.u', 'b.w'] }, { loss: lossB, weights: ['b.w', 'b.u'] }], { weights: store }),
      /parameter 'b.w' is in parts 0 and 1; the parts must be disjoint/,
    );
    await assert.rejects(GradientParts.create(g, [{ loss: lossA, weights: ['a.w', 'a.u'] }], { weights: store }), /parameter\(s\) b.w, b.u are in no part/);
    await assert.rejects(GradientParts.create(g, [{ loss: lossA, weights: ['a.w', 'nope'] }], { weights: store }), /differentiates 'nope', which the WeightStore does not hold/);
  });

  it('leaves frozen weights out: their gradient is zero, the others are the loss\'s own', async () => {
    const { g, store, lossA, feeds } = twoNetworks();
    const parts = await GradientParts.create(g, [{ loss: lossA, weights: ['a.w', 'a.u'] }], { weights: store, threads: false, frozen: ['b.w', 'b.u'] });
    const whole = await GradientSession.create(g, { loss: g.add(lossA, g.mul(g.add(g.reduceSum(g.byName('b.w')!), g.reduceSum(g.byName('b.u')!)), 0)), weights: store });
    try {
      const ours = await parts.run(feeds);
      const reference = await whole.run(feeds);
      store.names.forEach((name, k) => {
        if (name.startsWith('b.')) assert.ok(ours.grads[k]!.length === store.get(name).data.length && ours.grads[k]!.every((v) => v === 0), `${name} is frozen`);
        else reference.grads[k]!.forEach((v, i) => assert.ok(Math.abs(ours.grads[k]![i]! - v) <= 1e-6, `d loss / d ${name}[${i}]`));
      });
    } finally {
      await parts.release();
      await whole.release();
    }
    await assert.rejects(GradientParts.create(g, [{ loss: lossA, weights: ['a.w', 'a.u'] }], { weights: store, frozen: ['b.w', 'b.u', 'a.u'] }), /weight 'a.u' is both frozen and in part 0/);
    await assert.rejects(GradientParts.create(g, [{ loss: lossA, weights: ['a.w', 'a.u'] }], { weights: store, frozen: ['b.w'] }), /parameter\(s\) b.u are in no part/);
  });
});
