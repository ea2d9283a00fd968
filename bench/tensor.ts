// Micro-benchmark of a training step: one session.run for loss + all gradients of a
// small MLP, then Adam. Run: npm run bench -- tensor, or node out/bench/tensor.js [batch] [steps]
// STATIC=1 fixes the batch dim in the model instead of leaving it symbolic (made no
// measurable difference on our machines). Then Adam alone on PPO's CartPole networks, the
// WebAssembly SIMD kernel against the JS fallback.

import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GradientSession } from '../runtime/tensor/gradient-session.js';
import { Graph } from '../runtime/tensor/graph.js';
import { linearDefault, seededRandom } from '../runtime/tensor/init.js';
import * as nn from '../runtime/tensor/nn.js';
import { Adam } from '../runtime/tensor/optim.js';
import { WeightStore } from '../runtime/tensor/weights.js';
import { bestMicros } from './stats.js';

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

export async function benchTensor(batch = 2048, steps = 1000): Promise<void> {
  console.log('\nTensor layer');
  await mlpStep(batch, steps);
  await adamStep();
}

// `node out/bench/tensor.js [batch] [steps]` runs it alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await benchTensor(Number(process.argv[2] ?? 2048), Number(process.argv[3] ?? 1000));
}
