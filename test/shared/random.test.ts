// Tests of shared/random.ts (the envs are its first users, the browser's maze drawing
// another). Determinism is pinned with golden values: a change to the
// generator or its seeding changes every recorded run, so it must be a
// deliberate one.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Rng } from '../../shared/random.js';

function draws(rng: Rng, count: number): number[] {
  return Array.from({ length: count }, () => rng.uint32());
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

function variance(values: readonly number[]): number {
  const m = mean(values);
  return values.reduce((sum, value) => sum + (value - m) ** 2, 0) / values.length;
}

describe('Rng', () => {
  it('implements xoshiro128** (reference outputs for the state 1, 2, 3, 4)', () => {
    const rng = new Rng(0);
    rng.setState([1, 2, 3, 4, 0, 0, 0, 0]);
    assert.deepEqual(draws(rng, 10), [11520, 0, 5927040, 70819200, 2031721883, 1637235492, 1287239034, 3734860849, 3729100597, 4258142804]);
  });

  it('gives the same sequence for a seed on every run and machine (golden values)', () => {
    assert.deepEqual(draws(new Rng(42), 4), [389320222, 3644652717, 1187042343, 1482672179]);
    assert.deepEqual(draws(new Rng(42).fork(3), 2), [788788813, 384284525]);
    assert.deepEqual(draws(new Rng(42).fork('reset'), 2), [2758304338, 1280566210]);
    const rng = new Rng(7);
    assert.equal(rng.uniform(), 0.8631720521336058);
    assert.equal(rng.normal(), -0.5419825382769707);
    assert.equal(rng.int(10), 8);
  });

  it('gives different sequences for different seeds, including large and negative ones', () => {
    const seeds = [0, 1, 2, -1, 2 ** 32, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER];
    const firsts = seeds.map((seed) => draws(new Rng(seed), 2).join(','));
    assert.equal(new Set(firsts).size, seeds.length);
  });

  it('rejects seeds that are not safe integers', () => {
    assert.throws(() => new Rng(1.5), /seed must be a safe integer, got 1.5/);
    assert.throws(() => new Rng(Number.NaN), /seed must be a safe integer/);
    assert.throws(() => new Rng(2 ** 60), /seed must be a safe integer/);
  });

  it('forks streams that depend only on the seed and the stream id, not on earlier draws', () => {
    const parent = new Rng(5);
    const before = draws(parent.fork(1), 5);
    draws(parent, 100);
    assert.deepEqual(draws(parent.fork(1), 5), before);
    assert.notDeepEqual(draws(parent.fork(2), 5), before);
    assert.notDeepEqual(draws(parent.fork('1'), 5), before);
    assert.notDeepEqual(draws(new Rng(5), 5), before, 'a fork differs from its parent');
    assert.notDeepEqual(draws(parent.fork(1).fork(1), 5), before, 'nested forks differ');
    assert.notDeepEqual(draws(parent.fork(2 ** 32 + 1), 5), before, 'stream ids above 2^32 stay distinct');
  });

  it('gives uncorrelated neighbouring streams', () => {
    const n = 20000;
    const a = new Rng(9).fork(0);
    const b = new Rng(9).fork(1);
    const xs = Array.from({ length: n }, () => a.uniform() - 0.5);
    const ys = Array.from({ length: n }, () => b.uniform() - 0.5);
    const correlation = xs.reduce((sum, x, i) => sum + x * ys[i], 0) / n / (1 / 12);
    assert.ok(Math.abs(correlation) < 0.03, `correlation ${correlation}`);
  });

  it('rejects bad stream ids', () => {
    assert.throws(() => new Rng(1).fork(-1), /stream id must be a non-negative integer or a string, got -1/);
    assert.throws(() => new Rng(1).fork(0.5), /stream id/);
  });

  it('draws uniform numbers in [0, 1) with mean 1/2 and variance 1/12', () => {
    const rng = new Rng(11);
    const values = Array.from({ length: 100000 }, () => rng.uniform());
    assert.ok(values.every((value) => value >= 0 && value < 1));
    assert.ok(Math.abs(mean(values) - 0.5) < 0.005, `mean ${mean(values)}`);
    assert.ok(Math.abs(variance(values) - 1 / 12) < 0.002, `variance ${variance(values)}`);
    // 53 random bits: values are not all multiples of 2^-32.
    assert.ok(values.some((value) => (value * 2 ** 32) % 1 !== 0));
  });

  it('draws uniformRange within its bounds', () => {
    const rng = new Rng(12);
    const values = Array.from({ length: 10000 }, () => rng.uniformRange(-0.05, 0.05));
    assert.ok(values.every((value) => value >= -0.05 && value < 0.05));
    assert.ok(Math.abs(mean(values)) < 0.002);
  });

  it('draws every integer of [0, n) about equally often', () => {
    const rng = new Rng(13);
    const n = 7;
    const trials = 70000;
    const counts = new Array<number>(n).fill(0);
    for (let i = 0; i < trials; i++) counts[rng.int(n)]++;
    const expected = trials / n;
    const chiSquare = counts.reduce((sum, count) => sum + (count - expected) ** 2 / expected, 0);
    // 6 degrees of freedom: P(chi^2 > 22.5) < 0.001.
    assert.ok(chiSquare < 22.5, `chi-square ${chiSquare} for counts ${counts.join(', ')}`);
    assert.equal(new Rng(1).int(1), 0);
    assert.ok(new Rng(1).int(2 ** 32) < 2 ** 32);
  });

  it('rejects int(n) outside [1, 2^32]', () => {
    for (const n of [0, -3, 2.5, 2 ** 32 + 1]) assert.throws(() => new Rng(1).int(n), /n must be an integer in \[1, 2\^32\]/);
  });

  it('draws standard normals: mean 0, variance 1, about 95% within 1.96', () => {
    const rng = new Rng(14);
    const values = Array.from({ length: 100000 }, () => rng.normal());
    assert.ok(values.every(Number.isFinite));
    assert.ok(Math.abs(mean(values)) < 0.015, `mean ${mean(values)}`);
    assert.ok(Math.abs(variance(values) - 1) < 0.02, `variance ${variance(values)}`);
    const inside = values.filter((value) => Math.abs(value) < 1.96).length / values.length;
    assert.ok(Math.abs(inside - 0.95) < 0.005, `fraction within 1.96: ${inside}`);
  });

  it('shuffles in place into a permutation, deterministically', () => {
    const items = Array.from({ length: 20 }, (_, i) => i);
    const shuffled = new Rng(3).shuffle(items.slice());
    assert.deepEqual(shuffled.slice().sort((a, b) => a - b), items);
    assert.notDeepEqual(shuffled, items);
    assert.deepEqual(new Rng(3).shuffle(items.slice()), shuffled);
  });

  it('continues the exact sequence after getState/setState, including a pending normal', () => {
    const rng = new Rng(21);
    rng.normal(); // leaves the second value of the pair pending
    const saved = rng.getState();
    const expected = [rng.normal(), rng.uniform(), rng.uint32(), rng.normal()];
    const restored = new Rng(0);
    restored.setState(saved);
    assert.deepEqual([restored.normal(), restored.uniform(), restored.uint32(), restored.normal()], expected);
    // The key travels too, so forks of the restored generator match.
    assert.deepEqual(draws(restored.fork(4), 3), draws(rng.fork(4), 3));
    assert.throws(() => restored.setState([1, 2, 3]), /expected the 8 numbers getState\(\) returns/);
  });
});
