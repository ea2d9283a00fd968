// Rollouts cut and joined by whole groups (dynamic sampling's batches): every per-row field
// follows the rows kept, in group order; what was sampled (steps, episodes, counts) adds up.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { concatRollouts, mergeMetrics, selectGroups } from '../../../../runtime/algorithms/text/rollout-groups.js';
import type { Rollouts } from '../../../../runtime/text/text-env.js';

/** `groups` groups of 2 rows, `width` wide; row r's tokens, mask and reward carry r + first (so rows can be told apart). */
function rollouts(groups: number, width: number, first = 0, feeds = false): Rollouts {
  const rows = groups * 2;
  const ids = (r: number) => r + first;
  const tokens = BigInt64Array.from({ length: rows * width }, (_, i) => BigInt(ids(Math.floor(i / width))));
  const perRow = Int32Array.from({ length: rows }, (_, r) => 1 + (ids(r) % 2));
  const mask = Float32Array.from({ length: rows * width }, (_, i) => (i % width < perRow[Math.floor(i / width)]! ? 1 : 0));
  return {
    rows, width, tokens, targets: tokens.map((t) => t + 100n), mask, perRow,
    tokenCount: perRow.reduce((a, b) => a + b, 0),
    rewards: Float64Array.from({ length: rows }, (_, r) => ids(r)),
    samples: Array.from({ length: rows }, (_, r) => ({ start: `p${Math.floor(ids(r) / 2)}`, text: `s${ids(r)}`, reward: ids(r) })),
    steps: rows,
    metrics: { 'train/accuracy': first === 0 ? 0 : 1, 'charts/completions': rows },
    episodes: [],
    completions: { lengths: Int32Array.from({ length: rows }, (_, r) => ids(r)), truncated: Uint8Array.from({ length: rows }, (_, r) => ids(r) % 3 === 0 ? 1 : 0), max: 4 },
    ...(feeds ? { modelFeeds: { positions: { data: BigInt64Array.from({ length: rows * width }, (_, i) => BigInt(ids(Math.floor(i / width)))), dims: [rows, width] } }, starts: Int32Array.from({ length: rows }, (_, r) => ids(r)) } : {}),
  } as Rollouts;
}

const rowIds = (b: Rollouts) => Array.from({ length: b.rows }, (_, r) => Number(b.tokens[r * b.width]));

test('selectGroups keeps whole groups, in the order asked, with every per-row field', () => {
  const batch = rollouts(3, 3, 0, true);
  const kept = selectGroups(batch, 2, [2, 0]);
  assert.deepEqual(rowIds(kept), [4, 5, 0, 1]);
  assert.deepEqual([...kept.rewards], [4, 5, 0, 1]);
  assert.deepEqual(kept.samples.map((s) => s.text), ['s4', 's5', 's0', 's1']);
  assert.deepEqual([...kept.perRow], [1, 2, 1, 2]);
  assert.equal(kept.tokenCount, 6);
  assert.deepEqual([...kept.mask], [1, 0, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0]);
  assert.deepEqual([...kept.targets].slice(0, 3), [104n, 104n, 104n]);
  assert.deepEqual([...kept.completions!.lengths], [4, 5, 0, 1]);
  assert.deepEqual([...kept.completions!.truncated], [0, 0, 1, 0]);
  const positions = kept.modelFeeds!.positions as { data: BigInt64Array; dims: number[] };
  assert.deepEqual(positions.dims, [4, 3]);
  assert.deepEqual([...positions.data].filter((_, i) => i % 3 === 0), [4n, 5n, 0n, 1n]);
  assert.deepEqual([...(kept as unknown as { starts: Int32Array }).starts], [4, 5, 0, 1]);
  // What was sampled is not what was kept: the budget counts every sample.
  assert.equal(kept.steps, 6);
  assert.deepEqual(selectGroups(batch, 2, []).rows, 0);
});

test('concatRollouts joins batches row after row; steps and counts add up, means are over all rows', () => {
  const joined = concatRollouts([selectGroups(rollouts(2, 3), 2, [1]), rollouts(1, 3, 10)]);
  assert.deepEqual(rowIds(joined), [2, 3, 10, 11]);
  assert.deepEqual([...joined.rewards], [2, 3, 10, 11]);
  assert.equal(joined.tokenCount, [...joined.perRow].reduce((a, b) => a + b, 0));
  assert.deepEqual([...joined.completions!.truncated], [0, 1, 0, 0]);
  assert.equal(joined.steps, 4 + 2);
  assert.deepEqual(mergeMetrics([{ rows: 4, metrics: { 'train/accuracy': 0, 'charts/completions': 4 } }, { rows: 2, metrics: { 'train/accuracy': 1, 'charts/completions': 2 } }]),
    { 'train/accuracy': 1 / 3, 'charts/completions': 6 });
});

test('concatRollouts right-pads narrower rows (masked) and rebuilds the model\'s feeds from each row\'s start', () => {
  const seen: { starts: number[]; width: number }[] = [];
  const refeed = (starts: Int32Array, width: number) => {
    seen.push({ starts: [...starts], width });
    return { positions: { data: new BigInt64Array(starts.length * width), dims: [starts.length, width] } };
  };
  const joined = concatRollouts([rollouts(1, 2, 0, true), rollouts(1, 4, 6, true)], refeed);
  assert.equal(joined.width, 4);
  assert.deepEqual([...joined.mask].slice(0, 8), [1, 0, 0, 0, 1, 1, 0, 0], 'the padding is never learned');
  assert.deepEqual([...joined.tokens].slice(0, 4), [0n, 0n, 0n, 0n]);
  assert.deepEqual(seen, [{ starts: [0, 1, 6, 7], width: 4 }]);
  assert.throws(() => concatRollouts([rollouts(1, 2, 0, true), rollouts(1, 4, 6, true)]), /different widths/);
});

test('an empty selection joins as nothing but its steps: it does not widen the rows', () => {
  const joined = concatRollouts([selectGroups(rollouts(1, 5), 2, []), rollouts(1, 3, 10)]);
  assert.equal(joined.width, 3);
  assert.deepEqual(rowIds(joined), [10, 11]);
  assert.equal(joined.steps, 4);
});

test('dialogues\' per-turn rewards follow the groups kept and joined; padded positions belong to no turn', () => {
  /** `rollouts` with turn rewards: K = 2 turns, row r's turn k rewarded 10 r + k, each token in turn (position % 2). */
  const withTurns = (groups: number, width: number, first = 0): Rollouts => {
    const batch = rollouts(groups, width, first);
    const rows = batch.rows;
    return {
      ...batch,
      turnRewards: {
        maxTurns: 2,
        rewards: Float64Array.from({ length: rows * 2 }, (_, i) => 10 * (Math.floor(i / 2) + first) + (i % 2)),
        taken: Int32Array.from({ length: rows }, (_, r) => 1 + ((r + first) % 2)),
        tokenTurn: Int32Array.from({ length: rows * width }, (_, i) => i % 2),
      },
    };
  };
  const kept = selectGroups(withTurns(3, 2), 2, [2]);
  assert.deepEqual([...kept.turnRewards!.rewards], [40, 41, 50, 51]);
  assert.deepEqual([...kept.turnRewards!.taken], [1, 2]);
  assert.equal(kept.turnRewards!.tokenTurn.length, kept.rows * kept.width);
  // A narrower batch joined to a wider one: its rows' padding is in no turn (-1).
  const joined = concatRollouts([kept, withTurns(1, 3, 10)]);
  assert.equal(joined.width, 3);
  assert.deepEqual([...joined.turnRewards!.rewards], [40, 41, 50, 51, 100, 101, 110, 111]);
  assert.deepEqual([...joined.turnRewards!.tokenTurn], [0, 1, -1, 0, 1, -1, 0, 1, 0, 1, 0, 1]);
});

test('the tokens\' sampling entropies follow the groups kept and joined (entropy_top_fraction with dynamic sampling)', () => {
  const withEntropy = (groups: number, width: number, first = 0): Rollouts => {
    const batch = rollouts(groups, width, first);
    return { ...batch, tokenEntropy: Float32Array.from({ length: batch.rows * width }, (_, i) => Math.floor(i / width) + first + (i % width) / 10) };
  };
  const kept = selectGroups(withEntropy(2, 2), 2, [1]);
  assert.deepEqual([...kept.tokenEntropy!].map((x) => Math.round(x * 10) / 10), [2, 2.1, 3, 3.1]);
  const joined = concatRollouts([kept, withEntropy(1, 2, 10)]);
  assert.deepEqual([...joined.tokenEntropy!].map((x) => Math.round(x * 10) / 10), [2, 2.1, 3, 3.1, 10, 10.1, 11, 11.1]);
});
