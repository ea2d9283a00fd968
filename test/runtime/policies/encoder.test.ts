// The encoder seam (runtime/policies/encoder.ts): a policy's spaces carry the observation's
// shape, and the networks' encoders are chosen by name from ENCODERS.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encoderFor, ENCODERS, policySpaces } from '../../../runtime/policies/index.js';
import { Graph, WeightStore } from '../../../runtime/tensor/index.js';
import { Rng } from '../../../shared/random.js';

const DISCRETE = { kind: 'discrete', n: 2 } as const;

describe('policy spaces', () => {
  it('keep a Box observation\'s shape and count its numbers', () => {
    const spaces = policySpaces({ kind: 'box', shape: [3, 2, 2], low: Array(12).fill(0), high: Array(12).fill(1) }, DISCRETE);
    assert.deepEqual(spaces.obsShape, [3, 2, 2]);
    assert.equal(spaces.obsDim, 12);
  });

  it('make a discrete observation one number and n bits n numbers', () => {
    assert.deepEqual(policySpaces({ kind: 'discrete', n: 16 }, DISCRETE).obsShape, [1]);
    assert.deepEqual(policySpaces({ kind: 'multibinary', n: 5 }, DISCRETE), { obsShape: [5], obsDim: 5, actionSpace: DISCRETE });
  });
});

describe('observation encoders', () => {
  const spaces = policySpaces({ kind: 'box', shape: [2, 3], low: Array(6).fill(-1), high: Array(6).fill(1) }, DISCRETE);

  it('flatten hands the rows on as they are, with no weights', () => {
    const store = new WeightStore();
    const encoder = encoderFor(spaces, store, 'actor.encoder', new Rng(1));
    assert.equal(encoder.features, 6);
    assert.equal(store.names.length, 0);
    const rows = new Float32Array(12).map((_, i) => i);
    assert.equal(encoder.encodeRows(rows, 2), rows);
    const g = new Graph();
    const obs = g.input('obs', 'float32', ['B', 6]);
    assert.equal(encoder.encode(g, obs), obs);
  });

  it('refuses an encoder this runtime does not have, naming those it has', () => {
    assert.deepEqual(ENCODERS.map((e) => e.name), ['flatten']);
    assert.throws(() => encoderFor(spaces, new WeightStore(), 'q.encoder', new Rng(1), 'cnn'), /observation encoder "cnn" is not implemented in this runtime; implemented: flatten/);
  });
});
