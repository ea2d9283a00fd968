// WeightStore and initialisers.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Graph } from '../../../runtime/tensor/graph.js';
import { linearDefault, normal, orthogonal } from '../../../runtime/tensor/init.js';
import { seededRandom } from '../../helpers/random.js';
import { WeightStore } from '../../../runtime/tensor/weights.js';

test('WeightStore holds named float32 arrays in insertion order', () => {
  const store = new WeightStore();
  const w = store.add('w', [2, 3], [1, 2, 3, 4, 5, 6]);
  store.add('b', [3]);
  assert.deepEqual(store.names, ['w', 'b']);
  assert.equal(store.values[0], w);
  assert.deepEqual([...store.get('b').data], [0, 0, 0]);
  assert.equal(store.size, 9);
  assert.throws(() => store.add('w', [1]), /'w' already exists/);
  assert.throws(() => store.add('c', [2], [1]), /needs 2 values, got 1/);
  assert.throws(() => store.get('nope'), /no weight 'nope' \(have: w, b\)/);
});

test('declare() puts every parameter in a graph', () => {
  const store = new WeightStore();
  store.add('w', [2, 3]);
  const g = new Graph();
  const p = store.declare(g);
  assert.deepEqual(p.w!.shape, [2, 3]);
  assert.equal(g.byName('w'), p.w);
});

test('copyFrom, lerpFrom (target networks), clone, snapshot and load', () => {
  const online = new WeightStore();
  online.add('w', [2], [1, 2]);
  const target = online.clone();
  online.get('w').data.set([3, 6]);
  target.lerpFrom(online, 0.25);
  assert.deepEqual([...target.get('w').data], [1.5, 3]);
  target.copyFrom(online);
  assert.deepEqual([...target.get('w').data], [3, 6]);
  const snap = online.snapshot();
  online.get('w').data.fill(0);
  assert.deepEqual([...snap.w!.data], [3, 6]);
  const arrayBefore = online.get('w').data;
  online.load(snap);
  assert.equal(online.get('w').data, arrayBefore, 'load writes into the existing array');
  assert.deepEqual([...online.get('w').data], [3, 6]);
  assert.throws(() => online.load({ w: { shape: [3], data: new Float32Array(3) } }), /'w' is \[2\] here but \[3\] in the snapshot/);
});

test('initialisers are reproducible from a seed', () => {
  assert.deepEqual(normal(seededRandom(5), 7), normal(seededRandom(5), 7));
  assert.notDeepEqual(normal(seededRandom(5), 7), normal(seededRandom(6), 7));
  const u = linearDefault(seededRandom(1), 1000, 16);
  assert.ok(u.every((v) => Math.abs(v) <= 0.25));
});

test('orthogonal gives orthonormal columns (tall) or rows (wide), times the gain', () => {
  for (const [rows, cols] of [
    [6, 3],
    [3, 6],
    [4, 4],
  ] as const) {
    const m = orthogonal(seededRandom(rows * 10 + cols), rows, cols, 2);
    const tall = rows >= cols;
    const k = Math.min(rows, cols);
    const n = Math.max(rows, cols);
    const at = (v: number, i: number) => (tall ? m[i * cols + v]! : m[v * cols + i]!);
    for (let a = 0; a < k; a++) {
      for (let b = 0; b < k; b++) {
        let dot = 0;
        for (let i = 0; i < n; i++) dot += at(a, i) * at(b, i);
        assert.ok(Math.abs(dot - (a === b ? 4 : 0)) < 1e-5, `${rows}x${cols}: <${a}, ${b}> = ${dot}`);
      }
    }
  }
});
