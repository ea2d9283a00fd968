// End to end: loss + all gradients in one run per minibatch, Adam in JS.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GradientSession } from '../../../runtime/tensor/gradient-session.js';
import { Graph } from '../../../runtime/tensor/graph.js';
import { linearDefault } from '../../../runtime/tensor/init.js';
import { seededRandom } from '../../helpers/random.js';
import * as nn from '../../../runtime/tensor/nn.js';
import { Adam, clipGradNorm } from '../../../runtime/tensor/optim.js';
import { WeightStore } from '../../../runtime/tensor/weights.js';

function mlp(random: () => number) {
  const store = new WeightStore();
  store.add('w1', [2, 32], (n) => linearDefault(random, n, 2));
  store.add('b1', [32], (n) => linearDefault(random, n, 2));
  store.add('w2', [32, 1], (n) => linearDefault(random, n, 32));
  store.add('b2', [1], (n) => linearDefault(random, n, 32));
  const g = new Graph();
  const p = store.declare(g);
  const x = g.input('x', 'float32', ['B', 2]);
  const y = g.input('y', 'float32', ['B', 1]);
  const h = g.tanh(g.linear(x, p.w1!, p.b1!));
  const pred = g.linear(h, p.w2!, p.b2!);
  return { store, g, loss: nn.mse(pred, y), pred };
}

/** y = sin(2 x0) + 0.5 x1^2 on [-1, 1]^2. */
function batch(random: () => number, size: number) {
  const x = new Float32Array(2 * size);
  const y = new Float32Array(size);
  for (let i = 0; i < size; i++) {
    x[2 * i] = 2 * random() - 1;
    x[2 * i + 1] = 2 * random() - 1;
    y[i] = Math.sin(2 * x[2 * i]!) + 0.5 * x[2 * i + 1]! ** 2;
  }
  return { x, y };
}

test('a 2-layer MLP regression trained for 200 Adam steps cuts its loss by more than 10x', async () => {
  const random = seededRandom(42);
  const { store, g, loss, pred } = mlp(random);
  const step = await GradientSession.create(g, { loss, weights: store, extras: { meanPred: g.mean(pred) } });
  assert.deepEqual(step.names, ['w1', 'b1', 'w2', 'b2']);
  const adam = new Adam(store, { lr: 1e-2 });
  const evalSet = batch(random, 512);
  const initial = (await step.run(evalSet)).loss;
  for (let i = 0; i < 200; i++) {
    const mb = batch(random, 128);
    const { loss: l, grads, extras } = await step.run(mb);
    assert.ok(Number.isFinite(l));
    assert.equal(extras.meanPred!.length, 1);
    assert.deepEqual(grads.map((gr) => gr.length), [64, 32, 32, 1]);
    clipGradNorm(grads, 5);
    adam.step(grads);
  }
  const final = (await step.run(evalSet)).loss;
  assert.ok(final < 0.1 * initial, `loss went from ${initial} to ${final}`);
  await step.release();
});

test('GradientSession gradients equal finite differences of its own loss (float32, loose)', async () => {
  const random = seededRandom(3);
  const { store, g, loss } = mlp(random);
  const step = await GradientSession.create(g, { loss, weights: store, wrt: ['b2', 'w1'] });
  const mb = batch(random, 64);
  const { grads } = await step.run(mb);
  const b2 = store.get('b2').data;
  const h = 1e-2; // float32: a large step, loose tolerance
  const b0 = b2[0]!;
  b2[0] = b0 + h;
  const up = (await step.run(mb)).loss;
  b2[0] = b0 - h;
  const down = (await step.run(mb)).loss;
  b2[0] = b0;
  const numeric = (up - down) / (2 * h);
  assert.ok(Math.abs(grads[0]![0]! - numeric) < 1e-3 * Math.max(1, Math.abs(numeric)), `${grads[0]![0]} vs ${numeric}`);
  assert.equal(grads[1]!.length, 64);
});

test('GradientSession names parameters the graph lacks or shapes that differ', async () => {
  const { store, g, loss } = mlp(seededRandom(1));
  store.add('extra', [3]);
  await assert.rejects(GradientSession.create(g, { loss, weights: store }), /the graph declares no parameter 'extra'/);
  const other = new WeightStore();
  other.add('w1', [3, 32]);
  await assert.rejects(GradientSession.create(g, { loss, weights: other, wrt: ['w1'] }), /'w1' is \[2, 32\] in the graph but \[3, 32\] in the store/);
  await assert.rejects(GradientSession.create(g, { loss, weights: store, wrt: ['w1'], extras: { loss } }), /extra output name 'loss' is reserved/);
});
