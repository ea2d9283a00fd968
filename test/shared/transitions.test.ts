import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { isInputError } from '../../shared/input-error.js';
import { bytesSource, fileSource, npzChunks, readNpz, type ByteSource } from '../../shared/transitions/npz.js';
import { loadTransitions, readTransitionsHeader, transitionsNpz, verifyTransitions, type TransitionsToWrite } from '../../shared/transitions/transitions.js';
import { repoRoot } from '../helpers/repo.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-transitions-'));
const join = (chunks: Uint8Array[]) => new Uint8Array(Buffer.concat(chunks));

/** Two episodes of 3-number observations and 2-number actions: rows 0-2 end by a time limit, rows 3-5 terminate. */
function sample(): TransitionsToWrite {
  const rows = 6;
  const observations = Float32Array.from({ length: rows * 3 }, (_, i) => i / 4);
  const nextObservations = new Float32Array(rows * 3);
  for (let r = 0; r < rows; r++) for (let k = 0; k < 3; k++) nextObservations[r * 3 + k] = r === 2 || r === 5 ? 100 + k : observations[(r + 1) * 3 + k]!;
  return {
    rows, obsShape: [3], actionShape: [2], observations, nextObservations,
    actions: Float32Array.from({ length: rows * 2 }, (_, i) => -1 + i / 6),
    rewards: Float32Array.from([1, 2, 3, 4, 5, 6]),
    terminals: Uint8Array.from([0, 0, 0, 0, 0, 1]),
    timeouts: Uint8Array.from([0, 0, 1, 0, 0, 0]),
  };
}

test('what rlx writes reads back exactly, its arrays under D4RL\'s keys', () => {
  const t = sample();
  const file = path.join(dir, 'round-trip.npz');
  fs.writeFileSync(file, join(transitionsNpz(t)));
  const back = loadTransitions(bytesSource('round-trip.npz', fs.readFileSync(file)));
  assert.equal(back.size, 6);
  assert.deepEqual([back.obsDim, back.actionDim, back.hasNextObservations, back.hasTimeouts], [3, 2, true, true]);
  assert.deepEqual(back.observations, t.observations);
  assert.deepEqual(back.nextObservations, t.nextObservations);
  assert.deepEqual(back.actions, t.actions);
  assert.deepEqual(back.rewards, t.rewards);
  assert.deepEqual(Array.from(back.terminals), [0, 0, 0, 0, 0, 1]);
  assert.deepEqual(Array.from(back.episodeEnds), [0, 0, 1, 0, 0, 1]);
});

test('D4RL-style files saved by np.savez and np.savez_compressed (float64, bools, no next_observations) read as qlearning_dataset reads them', () => {
  for (const name of ['d4rl-style.npz', 'd4rl-style-compressed.npz']) {
    const file = path.join(repoRoot(), 'test/fixtures/transitions', name);
    const t = loadTransitions(bytesSource(name, fs.readFileSync(file)));
    // 7 rows: row 2 ends its episode by the time limit and has no next observation, so it is left out; row 6 terminates.
    assert.equal(t.size, 6, name);
    assert.deepEqual(Array.from(t.rewards), [1, 2, 4, 5, 6, 7], name);
    assert.deepEqual(Array.from(t.terminals), [0, 0, 0, 0, 0, 1], name);
    // The time-limited episode still ends at its last kept row.
    assert.deepEqual(Array.from(t.episodeEnds), [0, 1, 0, 0, 0, 1], name);
    // next of row 0 is row 1's observation: 0.3, 0.4, 0.5.
    assert.deepEqual(Array.from(t.nextObservations.subarray(0, 3)), [0.3, 0.4, 0.5].map(Math.fround), name);
  }
});

/** A source that records the largest read it was asked for. */
function counting(source: ByteSource): ByteSource & { largest: number; total: number } {
  const counted = {
    name: source.name, size: source.size, largest: 0, total: 0,
    read(offset: number, length: number) {
      counted.largest = Math.max(counted.largest, length);
      counted.total += length;
      return source.read(offset, length);
    },
  };
  return counted;
}

test('a large file is checked a chunk at a time: no read is larger than a chunk of the widest array', () => {
  const rows = 50_000;
  const obs = new Float32Array(rows * 8);
  for (let i = 0; i < obs.length; i++) obs[i] = Math.sin(i);
  const t: TransitionsToWrite = {
    rows, obsShape: [8], actionShape: [2], observations: obs, nextObservations: obs.map((x) => x + 1),
    actions: new Float32Array(rows * 2), rewards: new Float32Array(rows), terminals: new Uint8Array(rows).fill(1), timeouts: new Uint8Array(rows),
  };
  const file = path.join(dir, 'large.npz');
  fs.writeFileSync(file, join(transitionsNpz(t)));
  const source = fileSource('large.npz', file);
  try {
    const counted = counting(source);
    const checked = verifyTransitions(counted, { chunkRows: 1000 });
    assert.equal(checked.size, rows);
    assert.equal(checked.episodes, rows);
    // A chunk of observations: 1000 rows x 8 float32s (the zip directory at the end is read first, 64 KiB at most).
    assert.ok(counted.largest <= Math.max(1000 * 8 * 4, 22 + 0xffff), `largest read ${counted.largest}`);
    assert.ok(counted.total >= fs.statSync(file).size * 0.9, 'every array was read');
  } finally {
    source.close();
  }
});

/** `sample()` with one change, as a file's bytes. */
function broken(change: (t: TransitionsToWrite & Record<string, unknown>) => void, drop?: string): ByteSource {
  const t = sample() as TransitionsToWrite & Record<string, unknown>;
  change(t);
  const bytes = join(transitionsNpz(t));
  if (drop === undefined) return bytesSource('broken.npz', bytes);
  // Rewrite without one array.
  const arrays = readNpz(bytesSource('x', bytes));
  const kept = [...arrays.values()].filter((a) => a.key !== drop).map((a) => ({ key: a.key, shape: a.shape, data: Float32Array.from(a.readRows(0, a.rows)) }));
  return bytesSource('broken.npz', join(npzChunks(kept)));
}

test('every problem is an input error naming the file, the array and the row', () => {
  const cases: [ByteSource, RegExp][] = [
    [broken((t) => ((t.observations as Float32Array)[7] = NaN)), /^broken\.npz: observations\[2, 1\] is NaN; a dataset holds finite numbers only/],
    [broken((t) => ((t.rewards as Float32Array)[4] = Infinity)), /^broken\.npz: rewards\[4\] is Infinity/],
    [broken((t) => ((t.actions as Float32Array)[11] = -Infinity)), /^broken\.npz: actions\[5, 1\] is -Infinity/],
    [broken((t) => ((t.nextObservations as Float32Array)[0] = NaN)), /next_observations\[0, 0\] is NaN/],
    [broken((t) => ((t.timeouts as Uint8Array)[2] = 0)), /^broken\.npz: next_observations\[2\] is not observations\[3\], yet neither terminals\[2\] nor timeouts\[2\] ends an episode there/],
    [broken(() => {}, 'terminals'), /^broken\.npz has no terminals array; a dataset of transitions holds observations, actions, rewards, terminals/],
    [broken(() => {}, 'timeouts'), /^broken\.npz: next_observations\[2\] is not observations\[3\], yet neither terminals\[2\] nor a timeouts array ends/],
    [bytesSource('notzip.npz', new TextEncoder().encode('{"a": 1}')), /^notzip\.npz is not an \.npz file/],
  ];
  for (const [source, pattern] of cases) {
    assert.throws(() => loadTransitions(source), (err: Error) => isInputError(err) && pattern.test(err.message), String(pattern));
  }
  // 0/1 flags: a float 0.5 in terminals.
  const t = sample();
  const arrays = [...readNpz(bytesSource('x', join(transitionsNpz(t)))).values()].map((a) => ({ key: a.key, shape: a.shape, data: Float32Array.from(a.readRows(0, a.rows)) }));
  arrays.find((a) => a.key === 'terminals')!.data[3] = 0.5;
  assert.throws(() => verifyTransitions(bytesSource('flags.npz', join(npzChunks(arrays)))), (err: Error) => /^flags\.npz: terminals\[3\] is 0\.5; terminals holds 0 or 1/.test(err.message));
  // Arrays of different lengths.
  arrays[arrays.findIndex((a) => a.key === 'rewards')] = { key: 'rewards', shape: [5], data: new Float32Array(5) };
  assert.throws(() => readTransitionsHeader(bytesSource('rows.npz', join(npzChunks(arrays)))), (err: Error) => /^rows\.npz: rewards has shape \(5\), observations 6 rows/.test(err.message));
});

test('the header alone gives the shapes the checker compares with the env', () => {
  const header = readTransitionsHeader(bytesSource('h.npz', join(transitionsNpz(sample()))));
  assert.deepEqual([header.rows, header.obsShape, header.actionShape], [6, [3], [2]]);
});
