// Adam on worker threads (parallel-adam.ts): the single-threaded kernel's bits for any thread
// count, the same checkpoints, and threads that never keep the process alive.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { seededRandom } from '../../helpers/random.js';
import { Adam, type AdamState } from '../../../runtime/tensor/optim.js';
import { WeightStore } from '../../../runtime/tensor/weights.js';
import { optimizerThreadsFor, MAX_OPTIMIZER_THREADS, MIN_PARAMS_FOR_OPTIMIZER_THREADS } from '../../../runtime/tensor/optimizer-threads.js';

/** Odd lengths: slices (whole chunks of 1024 floats) begin and end inside tensors, and the last is short. */
const LENGTHS = [1, 7, 1023, 4099, 30001, 5];

function arrays(lengths: readonly number[], seed: number, scale = 1): Float32Array[] {
  const random = seededRandom(seed);
  return lengths.map((n) => Float32Array.from({ length: n }, () => (random() - 0.5) * scale));
}

/** Bit patterns, so that -0 and NaN payloads count. */
const bits = (xs: readonly Float32Array[]): Uint32Array[] => xs.map((x) => new Uint32Array(x.slice().buffer));

interface Run {
  params: Float32Array[];
  norms: number[];
  state: AdamState;
}

/** Four steps of Adam with `options` from the same start and gradients (some large enough to clip with maxGradNorm 1). */
function train(options: { simd?: boolean; threads?: number }, maxGradNorm?: number): Run {
  const params = arrays(LENGTHS, 1);
  const adam = new Adam(params, { lr: 1e-2, ...options });
  const norms: number[] = [];
  try {
    assert.equal(adam.threads, options.threads ?? 1, 'the thread count asked for');
    for (let s = 0; s < 4; s++) norms.push(adam.step(arrays(LENGTHS, 10 + s, s % 2 === 0 ? 0.002 : 3), 1e-2, { maxGradNorm }));
    return { params, norms, state: adam.state() };
  } finally {
    adam.release();
  }
}

test('Adam on 2, 3 and 4 threads gives the JS loop\'s parameters and moments bit for bit', () => {
  const js = train({ simd: false });
  for (const threads of [2, 3, 4]) {
    const run = train({ threads });
    assert.deepEqual(bits(run.params), bits(js.params), `${threads} threads: parameters`);
    assert.deepEqual(bits(run.state.m as Float32Array[]), bits(js.state.m as Float32Array[]), `${threads} threads: first moments`);
    assert.deepEqual(bits(run.state.v as Float32Array[]), bits(js.state.v as Float32Array[]), `${threads} threads: second moments`);
  }
});

test('with clipping, Adam on 2, 3 and 4 threads gives the single-threaded kernel\'s norms and parameters bit for bit', () => {
  const one = train({ threads: 1 }, 1);
  assert.ok(one.norms.some((n) => n > 1) && one.norms.some((n) => n < 1), 'some steps clip and some do not');
  for (const threads of [2, 3, 4]) {
    const run = train({ threads }, 1);
    assert.deepEqual(run.norms, one.norms, `${threads} threads: gradient norms`);
    assert.deepEqual(bits(run.params), bits(one.params), `${threads} threads: parameters`);
    assert.deepEqual(bits(run.state.v as Float32Array[]), bits(one.state.v as Float32Array[]), `${threads} threads: second moments`);
  }
});

test('checkpoints move between one thread and several: the state is the same, and a restored optimiser continues identically', () => {
  const params = arrays(LENGTHS, 1);
  const single = new Adam(params, { threads: 1 });
  single.step(arrays(LENGTHS, 2));
  const saved = single.state();
  const copy = params.map((p) => p.slice());
  const threaded = new Adam(copy, { threads: 3 });
  try {
    assert.equal(threaded.threads, 3);
    threaded.load(saved);
    assert.equal(threaded.stepCount, 1);
    assert.deepEqual(bits(threaded.state().m as Float32Array[]), bits(saved.m as Float32Array[]));
    const grads = arrays(LENGTHS, 3);
    single.step(grads);
    threaded.step(grads);
    assert.deepEqual(bits(copy), bits(params));
    assert.deepEqual(bits(single.state().v as Float32Array[]), bits(threaded.state().v as Float32Array[]));
  } finally {
    threaded.release();
  }
});

test('weights written between steps by a checkpoint load or a hard copy are the ones the next step updates, as in the JS loop', () => {
  // Threaded Adam keeps the parameters in its own memory between steps (parallel-adam.ts); a
  // write through the store (weight-writes.ts) must reach it, or it would step stale values.
  const run = (options: { simd?: boolean; threads?: number }): Float32Array[] => {
    const store = new WeightStore();
    LENGTHS.forEach((n, i) => store.add(`w${i}`, [n], arrays([n], 1 + i)[0]!));
    const other = new WeightStore();
    LENGTHS.forEach((n, i) => other.add(`w${i}`, [n], arrays([n], 50 + i)[0]!));
    const adam = new Adam(store, { lr: 1e-2, ...options });
    try {
      adam.step(arrays(LENGTHS, 10));
      store.load(other.snapshot());
      adam.step(arrays(LENGTHS, 11));
      other.load(Object.fromEntries(LENGTHS.map((n, i) => [`w${i}`, { shape: [n], data: arrays([n], 70 + i)[0]! }])));
      store.copyFrom(other);
      adam.step(arrays(LENGTHS, 12));
      store.lerpFrom(other, 0.5);
      adam.step(arrays(LENGTHS, 13));
      return store.values;
    } finally {
      adam.release();
    }
  };
  const js = run({ simd: false });
  for (const threads of [2, 3]) assert.deepEqual(bits(run({ threads })), bits(js), `${threads} threads`);
});

/** `grads` laid end to end in `count` whole buffers (the last tensor left out of them: a frozen weight's zeros), as a gradient step writes them. */
function inPieces(grads: readonly Float32Array[], count: number): { pieces: Float32Array[]; views: Float32Array[] } {
  const inside = grads.length - 1;
  const per = Math.ceil(inside / count);
  const pieces: Float32Array[] = [];
  const views: Float32Array[] = [];
  for (let k = 0; k < count; k++) {
    const group = grads.slice(k * per, Math.min(inside, (k + 1) * per));
    const piece = new Float32Array(group.reduce((n, g) => n + g.length, 0));
    let at = 0;
    for (const g of group) {
      piece.set(g, at);
      views.push(piece.subarray(at, (at += g.length)));
    }
    pieces.push(piece);
  }
  views.push(grads[inside]!.slice());
  return { pieces, views };
}

test('gradients handed over in pieces: the workers copy them in, the same bits as the JS loop, and every piece comes back with its values', () => {
  const js = train({ simd: false });
  for (const threads of [2, 3]) {
    const params = arrays(LENGTHS, 1);
    const adam = new Adam(params, { lr: 1e-2, threads });
    try {
      for (let s = 0; s < 4; s++) {
        const grads = arrays(LENGTHS, 10 + s, s % 2 === 0 ? 0.002 : 3);
        const { pieces, views } = inPieces(grads, 3);
        const before = pieces.map((p) => p.slice());
        let back: readonly Float32Array[] | null = null;
        adam.step(views, 1e-2, { handover: { pieces, giveBack: (returned) => (back = returned) } });
        assert.ok(back !== null, `${threads} threads, step ${s}: the pieces were given back`);
        const returned = back as readonly Float32Array[];
        assert.equal(returned.length, pieces.length);
        returned.forEach((piece, k) => assert.deepEqual(bits([piece]), bits([before[k]!]), `piece ${k} keeps its values`));
        // Piece k went to thread k mod threads: the calling thread's stayed, the others moved and came back.
        pieces.forEach((piece, k) => assert.equal(piece.length === 0, k % threads !== 0, `piece ${k} on ${threads} threads: detached ${piece.length === 0}`));
      }
      assert.deepEqual(bits(params), bits(js.params), `${threads} threads: parameters`);
      assert.deepEqual(bits(adam.state().v as Float32Array[]), bits(js.state.v as Float32Array[]), `${threads} threads: second moments`);
    } finally {
      adam.release();
    }
  }
});

test('a float16 step that overflows skips with its gradients handed over, and still gives the pieces back', () => {
  const params = arrays(LENGTHS, 1);
  const start = params.map((p) => p.slice());
  const adam = new Adam(params, { threads: 2 });
  try {
    const grads = arrays(LENGTHS, 3);
    grads[2]![5] = Infinity;
    const { pieces, views } = inPieces(grads, 2);
    const before = pieces.map((p) => p.slice());
    let back: readonly Float32Array[] = [];
    const norm = adam.step(views, 1e-3, { gradScale: 1024, handover: { pieces, giveBack: (returned) => (back = returned) } });
    assert.ok(!Number.isFinite(norm));
    assert.equal(pieces[1]!.length, 0, 'the second piece went to the worker');
    assert.deepEqual(bits(back as Float32Array[]), bits(before), 'both pieces came back with their values');
    assert.deepEqual(bits(params), bits(start), 'the skipped step left the weights');
    assert.equal(adam.stepCount, 0);
  } finally {
    adam.release();
  }
});

test('after release() Adam steps on the calling thread alone, with the same results', () => {
  const js = train({ simd: false });
  const params = arrays(LENGTHS, 1);
  const adam = new Adam(params, { lr: 1e-2, threads: 2 });
  adam.step(arrays(LENGTHS, 10, 0.002));
  adam.release();
  adam.release(); // twice is harmless
  for (let s = 1; s < 4; s++) adam.step(arrays(LENGTHS, 10 + s, s % 2 === 0 ? 0.002 : 3));
  assert.deepEqual(bits(params), bits(js.params));
});

/** Runs `body` (an ES module's text, with `Adam` imported) in a fresh node; returns its exit status, or null if it hung past 20 s. */
function runChild(body: string): { status: number | null; stderr: string } {
  const optim = pathToFileURL(new URL('../../../runtime/tensor/optim.js', import.meta.url).pathname).href;
  const source = `import { Adam } from '${optim}';\n${body}`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', source], { timeout: 20_000, encoding: 'utf8' });
  return { status: child.status, stderr: child.stderr };
}

test('idle optimiser threads never keep the process alive, released or not', () => {
  const step = `const p = [new Float32Array(50000)]; const g = [new Float32Array(50000).fill(0.5)];`;
  const kept = runChild(`${step} const a = new Adam(p, { threads: 3 }); a.step(g); a.step(g); if (a.threads !== 3) process.exit(2);`);
  assert.equal(kept.status, 0, `the process exits with its workers idle: ${kept.stderr}`);
  const released = runChild(`${step} const a = new Adam(p, { threads: 3 }); a.step(g); a.release(); a.step(g);`);
  assert.equal(released.status, 0, `the process exits after release(): ${released.stderr}`);
  const immediate = runChild(`${step} new Adam(p, { threads: 4 });`);
  assert.equal(immediate.status, 0, `the process exits while its workers may still be booting: ${immediate.stderr}`);
});

test('Adam picks threads by size and cores: one below the threshold, where threads are off or on one core', () => {
  assert.equal(optimizerThreadsFor(MIN_PARAMS_FOR_OPTIMIZER_THREADS - 1, true, 16), 1);
  assert.equal(optimizerThreadsFor(85e6, false, 16), 1);
  assert.equal(optimizerThreadsFor(85e6, true, 1), 1);
  assert.equal(optimizerThreadsFor(85e6, true, 4), 4);
  assert.equal(optimizerThreadsFor(85e6, true, 16), MAX_OPTIMIZER_THREADS, 'the copies, not the cores, bound a step');
  assert.ok(optimizerThreadsFor(MIN_PARAMS_FOR_OPTIMIZER_THREADS, true, 16) < MAX_OPTIMIZER_THREADS, 'a few threads for a model just past the threshold');
  assert.equal(new Adam([new Float32Array(10)]).threads, 1, 'a small model keeps the single-threaded kernel');
});

test('Adam refuses a thread count that is not a whole number of at least 1', () => {
  assert.throws(() => new Adam([new Float32Array(4)], { threads: 0 }), /threads must be a whole number of at least 1, got 0/);
  assert.throws(() => new Adam([new Float32Array(4)], { threads: 2.5 }), /got 2.5/);
});

test('the trainer\'s threads: false keeps Adam on one thread, as it keeps the gradient parts', async () => {
  const { warmUpCompute } = await import('../../../runtime/tensor/compute.js');
  try {
    warmUpCompute({ threads: false });
    assert.equal(optimizerThreadsFor(85e6, undefined, 16), 1);
  } finally {
    warmUpCompute({ threads: true });
  }
  assert.equal(optimizerThreadsFor(85e6, undefined, 16), MAX_OPTIMIZER_THREADS);
});
