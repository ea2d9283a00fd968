// Sizes on the dashboard: read-outs as rlx check --memory writes them, and a bytes axis whose
// ticks fall on round binary sizes, labelled in one unit with the decimals they need.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatBytes as checkBytes } from '../../../hf/memory.js';
import { BYTE_INCREMENTS, byteTicks, formatBytes } from '../../../webview/shared/format.js';

const GiB = 2 ** 30;
const MiB = 2 ** 20;

test('a size reads in binary units, as rlx check --memory writes it', () => {
  assert.deepEqual([5.5 * GiB, 6.3 * GiB, 812 * MiB, 3.2 * 1024, 900].map(formatBytes), ['5.5 GiB', '6.3 GiB', '812.0 MiB', '3.2 KiB', '900 bytes']);
  for (const n of [5.5 * GiB, 812 * MiB]) assert.equal(formatBytes(n), checkBytes(n));
});

test('bytes axis ticks: one unit, the largest they are round in, with the decimals the spacing needs', () => {
  assert.deepEqual(byteTicks([5.4, 5.6, 5.8, 6, 6.2].map((g) => g * GiB)), ['5.4 GiB', '5.6 GiB', '5.8 GiB', '6.0 GiB', '6.2 GiB']);
  assert.deepEqual(byteTicks([5, 5.25, 5.5].map((g) => g * GiB)), ['5.00 GiB', '5.25 GiB', '5.50 GiB']);
  assert.deepEqual(byteTicks([0, 2, 4].map((g) => g * GiB)), ['0 GiB', '2 GiB', '4 GiB']);
  assert.deepEqual(byteTicks([3, 4, 5].map((t) => t * 0.1 * GiB)), ['0.3 GiB', '0.4 GiB', '0.5 GiB'], 'a unit above the ticks\' own, where they are round in it');
  assert.deepEqual(byteTicks([600, 605, 610].map((m) => m * MiB)), ['600 MiB', '605 MiB', '610 MiB']);
  assert.deepEqual(byteTicks([0, 512, 1024]), ['0.0 KiB', '0.5 KiB', '1.0 KiB']);
});

test('the spacings a bytes axis picks from are round in some unit, in increasing order', () => {
  assert.ok(BYTE_INCREMENTS.includes(0.1 * GiB) && BYTE_INCREMENTS.includes(0.25 * GiB) && BYTE_INCREMENTS.includes(5 * MiB));
  assert.ok(!BYTE_INCREMENTS.includes(100 * MiB) && !BYTE_INCREMENTS.includes(500 * MiB), 'a tenth or a half of a GiB instead');
  assert.deepEqual([...BYTE_INCREMENTS].sort((a, b) => a - b), [...BYTE_INCREMENTS]);
  assert.equal(new Set(BYTE_INCREMENTS).size, BYTE_INCREMENTS.length);
});
