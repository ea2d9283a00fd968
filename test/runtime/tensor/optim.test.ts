// Optimisers against hand-computed updates; Adam's SIMD kernel (resident or streamed) against its JS fallback.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../helpers/random.js';
import { Adam, SGD, clipGradNorm, gradNorm } from '../../../runtime/tensor/optim.js';
import { WeightStore } from '../../../runtime/tensor/weights.js';
import { StreamingAdam, WINDOW } from '../../../runtime/tensor/streaming-adam.js';

/** Adam's two implementations: every Adam test runs on both. */
const BACKENDS = [
  { name: 'SIMD kernel', simd: true, streamed: false },
  { name: 'JS fallback', simd: false, streamed: false },
  // As models past 4 GiB of kernel memory run it (streaming-adam.ts).
  { name: 'SIMD kernel streamed through windows', simd: true, streamed: true },
] as const;

const close = (actual: number, expected: number, tol = 1e-6) =>
  assert.ok(Math.abs(actual - expected) <= tol * Math.max(1, Math.abs(expected)), `${actual} vs ${expected}`);

// Reference: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; p -= lr (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps),
// worked out in float64 for f(p) = 0.5 (p-3)^2 from p = 0 with lr 0.1 (first column)
// and f(q) = (q+1)^2 from q = 1 with lr 0.05 (second column). Adam computes in float32 (as
// torch does); the 1e-6 tolerance is ~10x the float32 rounding of these values.
const ADAM_REFERENCE = [
  [0.09999999966666669, 0.950000000125],
  [0.19989729224944813, 0.9000369976658238],
  [0.2996184760421757, 0.8501369223611016],
];

for (const { name, simd, streamed } of BACKENDS) {
  test(`${name}: Adam follows the bias-corrected update on two quadratics`, () => {
    const p = new Float32Array([0]);
    const q = new Float32Array([1]);
    const adamP = new Adam([p], { lr: 0.1, simd, streamed });
    const adamQ = new Adam([q], { lr: 0.05, simd, streamed });
    for (const [pExpected, qExpected] of ADAM_REFERENCE) {
      adamP.step([new Float32Array([p[0]! - 3])]);
      adamQ.step([new Float32Array([2 * (q[0]! + 1)])]);
      close(p[0]!, pExpected!);
      close(q[0]!, qExpected!);
    }
    assert.equal(adamP.stepCount, 3);
  });

  test(`${name}: Adam eps: 1e-8 by default, 1e-5 (CleanRL PPO) when asked`, () => {
    // First step with g = 1e-5: the update is lr * g / (|g| + eps).
    const a = new Float32Array([0]);
    const b = new Float32Array([0]);
    new Adam([a], { lr: 0.1, simd, streamed }).step([new Float32Array([1e-5])]);
    new Adam([b], { lr: 0.1, eps: 1e-5, simd, streamed }).step([new Float32Array([1e-5])]);
    close(a[0]!, -0.09990009990009993);
    close(b[0]!, -0.05);
  });

  test(`${name}: Adam takes a per-step learning rate and keeps it`, () => {
    const p = new Float32Array([0]);
    const adam = new Adam([p], { lr: 1, simd, streamed });
    adam.step([new Float32Array([2])], 0.25);
    close(p[0]!, -0.25); // the first Adam step moves by lr * sign(g)
    assert.equal(adam.lr, 0.25);
  });

  test(`${name}: Adam state round-trips: a restored optimiser continues identically`, () => {
    const store = new WeightStore();
    store.add('w', [3], [1, -2, 0.5]);
    const adam = new Adam(store, { lr: 0.01, simd, streamed });
    const gradAt = (w: Float32Array) => [Float32Array.from(w, (x) => 2 * x - 1)];
    adam.step(gradAt(store.get('w').data));
    adam.step(gradAt(store.get('w').data));
    const saved = adam.state();
    const copy = store.clone();
    const restored = new Adam(copy, { lr: 0.01, simd, streamed });
    restored.load(saved);
    assert.equal(restored.stepCount, 2);
    adam.step(gradAt(store.get('w').data));
    restored.step(gradAt(copy.get('w').data));
    assert.deepEqual([...copy.get('w').data], [...store.get('w').data]);
    // state() is a copy: later steps do not change a saved checkpoint.
    assert.notDeepEqual([...saved.m[0]!], [...adam.state().m[0]!]);
  });

  test(`${name}: Adam.load rejects state of the wrong size`, () => {
    const adam = new Adam([new Float32Array(3)], { simd, streamed });
    assert.throws(() => adam.load({ step: 1, m: [new Float32Array(2)], v: [new Float32Array(2)] }), /state buffer 0 has 2 elements, expected 3/);
  });
}

test('SGD with momentum follows the torch update', () => {
  // f(p) = 0.5 (p-3)^2, lr 0.1, momentum 0.9: buf = g, then buf = 0.9 buf + g; p -= lr buf.
  const p = new Float32Array([0]);
  const sgd = new SGD([p], { lr: 0.1, momentum: 0.9 });
  for (const expected of [0.3, 0.84, 1.542]) {
    sgd.step([new Float32Array([p[0]! - 3])]);
    close(p[0]!, expected);
  }
  const plain = new Float32Array([0]);
  new SGD([plain], { lr: 0.1 }).step([new Float32Array([-3])]);
  close(plain[0]!, 0.3);
});

test('SGD state round-trips', () => {
  const p = new Float32Array([0]);
  const sgd = new SGD([p], { lr: 0.1, momentum: 0.9 });
  sgd.step([new Float32Array([-3])]);
  const q = p.slice();
  const other = new SGD([q], { lr: 0.1, momentum: 0.9 });
  other.load(sgd.state());
  sgd.step([new Float32Array([1])]);
  other.step([new Float32Array([1])]);
  assert.deepEqual([...q], [...p]);
});

test('clipGradNorm scales all gradients to the max norm and returns the norm before', () => {
  const grads = [new Float32Array([3, 4]), new Float32Array([12])];
  const before = clipGradNorm(grads, 6.5);
  close(before, 13);
  close(gradNorm(grads), 6.5, 1e-6);
  close(grads[0]![0]!, 1.5);
  close(grads[0]![1]!, 2);
  close(grads[1]![0]!, 6);
});

test('clipGradNorm leaves gradients below the max norm alone', () => {
  const grads = [new Float32Array([0.3, 0.4])];
  close(clipGradNorm(grads, 1), 0.5);
  assert.deepEqual([...grads[0]!], [...new Float32Array([0.3, 0.4])]);
});

test('optimisers check gradient counts and sizes', () => {
  const adam = new Adam([new Float32Array(2)]);
  assert.throws(() => adam.step([]), /0 gradients for 1 parameters/);
  assert.throws(() => adam.step([new Float32Array(3)]), /gradient 0 has 3 elements, parameter has 2/);
});

// ---- the SIMD kernel against the JS fallback ----

const LENGTHS = [1, 3, 5, 64, 4097];

/** Seeded values in +-[lo, hi], in parameter-shaped arrays. */
function randomArrays(seed: number, lengths: readonly number[], lo = 1e-3, hi = 1): Float32Array[] {
  const random = seededRandom(seed);
  return lengths.map((n) => Float32Array.from({ length: n }, () => (random() < 0.5 ? -1 : 1) * (lo + (hi - lo) * random())));
}

/** Equal within `ulps` float32 units in the last place of the larger value (0: the same bits). */
function assertSameArrays(actual: readonly Float32Array[], expected: readonly Float32Array[], what: string, ulps = 0): void {
  assert.equal(actual.length, expected.length);
  actual.forEach((a, k) => {
    const i = a.findIndex((x, j) => {
      const y = expected[k]![j]!;
      return ulps === 0 ? !Object.is(x, y) : !(Math.abs(x - y) <= ulps * 2 ** -23 * Math.max(Math.abs(x), Math.abs(y)));
    });
    assert.equal(i, -1, `${what} ${k}[${i}]: ${a[i]} vs ${expected[k]![i]}`);
  });
}

const closeRel = (actual: number, expected: number, tol: number, what = '') =>
  assert.ok(Math.abs(actual - expected) <= tol * Math.abs(expected), `${what}${actual} vs ${expected}`);

test('Adam runs the WebAssembly SIMD kernel on Node, and the JS loop when asked', () => {
  assert.equal(new Adam([new Float32Array(3)]).simd, true);
  assert.equal(new Adam([new Float32Array(3)], { simd: false }).simd, false);
});

test('the SIMD kernel and the JS fallback agree within float32 rounding over several steps, odd lengths included', () => {
  // Same float32 operations in the same order, each correctly rounded in both: the same bits,
  // except that the two norms differ in the ninth digit (the kernel adds squares in float32
  // runs), so a clipping factor can round to a neighbouring float32 and move values by an ulp.
  const wasmParams = randomArrays(1, LENGTHS);
  const jsParams = wasmParams.map((p) => p.slice());
  const wasmAdam = new Adam(wasmParams, { lr: 3e-3, eps: 1e-5 });
  const jsAdam = new Adam(jsParams, { lr: 3e-3, eps: 1e-5, simd: false });
  // Clipping off, clipping inactive (max above the norm), clipping active, and a new rate.
  const steps: { lr?: number; maxGradNorm?: number }[] = [{}, { maxGradNorm: 1e6 }, { maxGradNorm: 0.5 }, {}, { lr: 1e-3, maxGradNorm: 2 }, {}];
  steps.forEach(({ lr, maxGradNorm }, t) => {
    const grads = randomArrays(100 + t, LENGTHS);
    const options = maxGradNorm === undefined ? {} : { maxGradNorm };
    const wasmNorm = wasmAdam.step(grads, lr, options);
    const jsNorm = jsAdam.step(grads, lr, options);
    closeRel(wasmNorm, jsNorm, 1e-6, `step ${t} norm: `); // the kernel adds squares in float32 runs of 16
    assertSameArrays(wasmParams, jsParams, `step ${t} parameter`, 4);
  });
  const [wasmState, jsState] = [wasmAdam.state(), jsAdam.state()];
  assertSameArrays(wasmState.m, jsState.m, 'm', 4);
  assertSameArrays(wasmState.v, jsState.v, 'v', 4);
  assert.equal(wasmState.step, steps.length);
});

for (const { name, simd, streamed } of BACKENDS) {
  test(`${name}: the step's gradient norm matches the float64 gradNorm on 10k gradients`, () => {
    const grads = randomArrays(7, [4097, 5000, 903]);
    const expected = gradNorm(grads);
    const adam = new Adam(grads.map((g) => new Float32Array(g.length)), { simd, streamed });
    closeRel(adam.step(grads), expected, 1e-5);
    closeRel(adam.step(grads, undefined, { maxGradNorm: 1 }), expected, 1e-5);
  });

  test(`${name}: fused clipping returns clipGradNorm's norm and steps as clipGradNorm then step`, () => {
    for (const maxGradNorm of [0.5, 1e6]) {
      const fusedParams = randomArrays(3, LENGTHS);
      const plainParams = fusedParams.map((p) => p.slice());
      const fused = new Adam(fusedParams, { lr: 1e-2, simd, streamed });
      const plain = new Adam(plainParams, { lr: 1e-2, simd, streamed });
      for (let t = 0; t < 3; t++) {
        const grads = randomArrays(200 + t, LENGTHS);
        const before = grads.map((g) => g.slice());
        const norm = fused.step(grads, undefined, { maxGradNorm });
        assertSameArrays(grads, before, 'the fused step left gradient'); // the caller's arrays stay as they were
        const clipped = grads.map((g) => g.slice());
        closeRel(norm, clipGradNorm(clipped, maxGradNorm), 1e-6, 'norm: ');
        plain.step(clipped);
        // clipGradNorm scales by a float64 factor, the fused step by its float32 rounding: the
        // clipped gradients differ by up to an ulp, and so the parameters by float32 rounding.
        fusedParams.forEach((p, k) => p.forEach((x, i) => close(x, plainParams[k]![i]!, 1e-6)));
      }
    }
  });
}

for (const streamed of [true, 'moments too'] as const) {
test(`the kernel streamed through windows (${streamed === true ? 'moments resident' : 'moments streamed'}) gives the JS loop bits across window edges, and its state moves`, () => {
  // Tensors longer than a window, ending mid-window and mid-block: each element's update is
  // independent, so the same bits without clipping; with clipping active, an ulp (the norm).
  const lengths = [WINDOW + 17, 3, 2 * WINDOW, 1000];
  const streamedParams = randomArrays(11, lengths);
  const jsParams = streamedParams.map((p) => p.slice());
  const streamedAdam = new Adam(streamedParams, { lr: 3e-3, streamed });
  const jsAdam = new Adam(jsParams, { lr: 3e-3, simd: false });
  assert.equal(streamedAdam.simd, true);
  assert.equal(StreamingAdam.create(lengths, { residentMoments: streamed === true })?.residentMoments, streamed === true, 'the layout under test');
  [{}, { maxGradNorm: 1e6 }, {}].forEach((options, t) => {
    const grads = randomArrays(500 + t, lengths);
    closeRel(streamedAdam.step(grads, undefined, options), jsAdam.step(grads, undefined, options), 1e-6, `step ${t} norm: `);
    assertSameArrays(streamedParams, jsParams, `step ${t} parameter`);
  });
  const grads = randomArrays(600, lengths);
  streamedAdam.step(grads, undefined, { maxGradNorm: 1 });
  jsAdam.step(grads, undefined, { maxGradNorm: 1 });
  assertSameArrays(streamedParams, jsParams, 'clipped step parameter', 4);
  const resumed = new Adam(streamedParams.map((p) => p.slice()), { lr: 3e-3, streamed });
  resumed.load(jsAdam.state());
  assertSameArrays(resumed.state().v, streamedAdam.state().v, 'v after load', 4);
});
}

test('the step without clipping returns the same norm as gradNorm', () => {
  const grads = randomArrays(9, LENGTHS);
  const norm = new Adam(grads.map((g) => new Float32Array(g.length))).step(grads);
  closeRel(norm, gradNorm(grads), 1e-6);
});

test('Adam state moves between the SIMD kernel and the JS fallback and continues identically', () => {
  // No clipping here, so the two paths give the same bits (see above).
  const start = randomArrays(4, LENGTHS);
  const [a, b] = [start.map((p) => p.slice()), start.map((p) => p.slice())];
  const wasmAdam = new Adam(a, { lr: 1e-2 });
  for (let t = 0; t < 3; t++) wasmAdam.step(randomArrays(300 + t, LENGTHS));
  b.forEach((p, k) => p.set(a[k]!));
  const jsAdam = new Adam(b, { lr: 1e-2, simd: false });
  jsAdam.load(wasmAdam.state());
  const back = new Adam(a.map((p) => p.slice()), { lr: 1e-2 });
  back.load(jsAdam.state());
  assertSameArrays(back.state().m, wasmAdam.state().m, 'm');
  const grads = randomArrays(400, LENGTHS);
  wasmAdam.step(grads);
  jsAdam.step(grads);
  assertSameArrays(a, b, 'parameter');
  assert.equal(jsAdam.stepCount, 4);
});

test('Adam updates the very arrays it was given, from gradient views over a SharedArrayBuffer', () => {
  const store = new WeightStore();
  store.add('w', [5, 3], (n) => Array.from({ length: n }, (_, i) => i / 10));
  store.add('b', [3], [0, 0, 0]);
  const w = store.get('w').data;
  const flat = new Float32Array(new SharedArrayBuffer(4 * 18)).fill(0.5);
  const grads = [flat.subarray(0, 15), flat.subarray(15)];
  const adam = new Adam(store, { lr: 0.1 });
  close(adam.step(grads), Math.sqrt(18 * 0.25));
  assert.equal(store.get('w').data, w);
  close(w[0]!, -0.1); // the first step moves by lr * sign(g)
  close(store.get('b').data[2]!, -0.1);
});

test('Adam of more parameters than 32-bit WebAssembly memory holds (a 0.4B model in full) streams the kernel instead of failing, as the memory estimate counts', async () => {
  const { MAX_WASM_PAGES, wasmAdamPages, WasmAdam } = await import('../../../runtime/tensor/wasm-optim.js');
  const { ADAM_KERNEL_MEMORY_BYTES, adamBytes } = await import('../../../hf/memory.js');
  assert.equal(ADAM_KERNEL_MEMORY_BYTES, MAX_WASM_PAGES * 65536, 'hf/memory.ts counts the kernel memory this runtime has');
  assert.equal(adamBytes(2 ** 28), 16 * 2 ** 28, 'resident: the moments and copies of the parameters and gradients');
  assert.equal(adamBytes(387e6), 8 * 387e6, 'streamed: the moments alone');
  // Parameters, gradients and two moments in float32: 16 bytes a parameter, 4 GiB in all.
  assert.equal(wasmAdamPages(2 ** 28), MAX_WASM_PAGES);
  assert.ok(wasmAdamPages(387e6) > MAX_WASM_PAGES, 'the bench\'s 387M-parameter model does not fit');
  // create() says so by returning null (no 6 GiB is allocated to find out): Adam then streams the kernel (createKernel).
  assert.equal(WasmAdam.create([387e6]), null);
});
