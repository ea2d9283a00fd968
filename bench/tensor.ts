// Micro-benchmarks of the tensor layer. Run: npm run bench -- tensor, or node out/bench/tensor.js [batch] [steps]
// - a training step: one session.run for loss + all gradients of a small MLP, then Adam;
//   STATIC=1 fixes the batch dim in the model instead of leaving it symbolic (made no
//   measurable difference on our machines);
// - Adam alone on PPO's CartPole networks, the WebAssembly SIMD kernel against the JS fallback;
// - an embedding's gradient (gradients.ts, Gather) as ScatterND against a one-hot MatMul.

import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GradientSession } from '../runtime/tensor/gradient-session.js';
import { Graph } from '../runtime/tensor/graph.js';
import { Session } from '../runtime/tensor/session.js';
import { linearDefault } from '../runtime/tensor/init.js';
import { seededRandom } from '../test/helpers/random.js';
import * as nn from '../runtime/tensor/nn.js';
import { Adam } from '../runtime/tensor/optim.js';
import { WeightStore } from '../runtime/tensor/weights.js';
import { bestMicros, report } from './stats.js';

const [inputs, hidden] = [8, 64];

/** The MLP's loss + gradients and Adam, per step at `batch` rows. */
async function mlpStep(batch: number, steps: number): Promise<void> {
  const random = seededRandom(0);
  const store = new WeightStore();
  store.add('w1', [inputs, hidden], (n) => linearDefault(random, n, inputs));
  store.add('b1', [hidden], (n) => linearDefault(random, n, inputs));
  store.add('w2', [hidden, hidden], (n) => linearDefault(random, n, hidden));
  store.add('b2', [hidden], (n) => linearDefault(random, n, hidden));
  store.add('w3', [hidden, 1], (n) => linearDefault(random, n, hidden));
  store.add('b3', [1], (n) => linearDefault(random, n, hidden));

  const g = new Graph();
  const p = store.declare(g);
  const B: number | string = process.env.STATIC ? batch : 'B';

  const x = g.input('x', 'float32', [B, inputs]);
  const y = g.input('y', 'float32', [B, 1]);
  const h1 = g.tanh(g.linear(x, p.w1!, p.b1!));
  const h2 = g.tanh(g.linear(h1, p.w2!, p.b2!));
  const loss = nn.mse(g.linear(h2, p.w3!, p.b3!), y);

  const step = await GradientSession.create(g, { loss, weights: store });
  const adam = new Adam(store, { lr: 3e-4, eps: 1e-5 });
  const feeds = {
    x: Float32Array.from({ length: batch * inputs }, () => random() * 2 - 1),
    y: Float32Array.from({ length: batch }, () => random()),
  };

  for (let i = 0; i < 50; i++) adam.step((await step.run(feeds)).grads); // warm up
  let runMs = 0;
  let adamMs = 0;
  for (let i = 0; i < steps; i++) {
    const t0 = performance.now();
    const { grads } = await step.run(feeds);
    const t1 = performance.now();
    adam.step(grads);
    runMs += t1 - t0;
    adamMs += performance.now() - t1;
  }
  const total = (runMs + adamMs) / steps;
  console.log(
    `MLP ${inputs}-${hidden}-${hidden}-1, batch ${batch}, ${store.size} params: ` +
      `${total.toFixed(3)} ms/step (loss+grads run ${(runMs / steps).toFixed(3)} ms, Adam ${(adamMs / steps).toFixed(3)} ms)`,
  );
  await step.release();
}

// Adam alone, as PPO calls it: actor 4-64-64-2 and critic 4-64-64-1 (9,155 parameters), the
// gradients views of one flat buffer, clipping to 0.5 fused in. Best of several blocks: the
// figure is a few microseconds and our VMs are noisy.
async function adamMicros(simd: boolean): Promise<{ us: number; params: number }> {
  const shapes = [[4, 64], [64], [64, 64], [64], [64, 2], [2], [4, 64], [64], [64, 64], [64], [64, 1], [1]];
  const sizes = shapes.map((s) => s.reduce((a, b) => a * b, 1));
  const total = sizes.reduce((a, b) => a + b, 0);
  const rand = seededRandom(1);
  const params = sizes.map((n) => Float32Array.from({ length: n }, () => rand() - 0.5));
  const flat = Float32Array.from({ length: total }, () => (rand() - 0.5) * 0.1);
  let offset = 0;
  const grads = sizes.map((n) => flat.subarray(offset, (offset += n)));
  const opt = new Adam(params, { lr: 2.5e-4, eps: 1e-5, simd });
  if (opt.simd !== simd) throw new Error(`Adam: asked for simd ${simd}, got ${opt.simd}`);
  const us = await bestMicros(() => opt.step(grads, undefined, { maxGradNorm: 0.5 }), simd ? 2000 : 200, 10);
  return { us, params: total };
}

async function adamStep(): Promise<void> {
  const wasmAdam = await adamMicros(true);
  const jsAdam = await adamMicros(false);
  console.log(
    `Adam step (clip + update), ${wasmAdam.params} params: WebAssembly SIMD ${wasmAdam.us.toFixed(1)} us, ` +
      `JS fallback ${jsAdam.us.toFixed(1)} us (${(jsAdam.us / wasmAdam.us).toFixed(1)}x); best of 10 blocks`,
  );
}

/**
 * The gradient of a [vocab, width] embedding table from the gradient of `rows` looked-up
 * rows: scattered back with ScatterND (what gradients.ts does), or as onehot(index)^T @ dy.
 */
async function embeddingGradient(): Promise<void> {
  const rows: [string, string][] = [];
  const rand = seededRandom(2);
  for (const vocab of [16, 64]) {
    for (const width of [64, 128]) {
      for (const lookups of [256, 2048]) {
        const feeds = {
          dy: { data: Float32Array.from({ length: lookups * width }, () => rand() - 0.5), dims: [lookups, width] },
          index: { data: BigInt64Array.from({ length: lookups }, () => BigInt(Math.floor(rand() * vocab))), dims: [lookups] },
        };
        const micros: Record<string, number> = {};
        for (const kind of ['scatter', 'one-hot'] as const) {
          const g = new Graph();
          const dy = g.input('dy', 'float32', ['N', width]);
          const index = g.input('index', 'int64', ['N']);
          const table = g.param('table', [vocab, width]);
          const oneHotT = () => g.cast(g.equal(g.const([...Array(vocab).keys()], { dtype: 'int64', shape: [vocab, 1] }), g.unsqueeze(index, [0])), 'float32');
          const out = kind === 'scatter' ? g.scatterAddRows(g.zerosLike(table), index, dy) : g.matmul(oneHotT(), dy);
          const session = await Session.create(g, { out }, { weights: tableStore(vocab, width) });
          micros[kind] = await bestMicros(() => session.run(feeds), 200, 10);
          await session.release();
        }
        rows.push([
          `vocab ${vocab}, width ${width}, ${lookups} lookups`,
          `ScatterND ${micros.scatter!.toFixed(1)} us, one-hot MatMul ${micros['one-hot']!.toFixed(1)} us (${(micros['one-hot']! / micros.scatter!).toFixed(1)}x)`,
        ]);
      }
    }
  }
  report('Embedding gradient (one session.run each, best of 10 blocks)', rows);
}

function tableStore(vocab: number, width: number): WeightStore {
  const store = new WeightStore();
  store.add('table', [vocab, width]);
  return store;
}

export async function benchTensor(batch = 2048, steps = 1000): Promise<void> {
  console.log('\nTensor layer');
  await mlpStep(batch, steps);
  await adamStep();
  await embeddingGradient();
}

// `node out/bench/tensor.js [batch] [steps]` runs it alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await benchTensor(Number(process.argv[2] ?? 2048), Number(process.argv[3] ?? 1000));
}
