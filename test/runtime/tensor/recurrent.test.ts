// The recurrent cells (runtime/tensor/recurrent.ts) are composites of primitives: their
// gradients, one step and unrolled over time with episode starts inside the sequence, match
// central finite differences for every input and weight; and a start really forgets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Graph } from '../../../runtime/tensor/graph.js';
import { cellStep, recurrentSequence, stateWidth, CELL_GATES, type CellKind } from '../../../runtime/tensor/recurrent.js';
import { Session } from '../../../runtime/tensor/session.js';
import { awayFromZero, checkGradients, type Sampler } from './gradcheck.js';

const [N, IN, H, T] = [2, 3, 2, 3];

/** Weights small enough that the gates are not saturated; `starts` as 0/1 with one start inside the sequence. */
const sampler: Sampler = (name, size, random) => {
  if (name === 'starts') return Float64Array.from({ length: size }, (_, i) => ([0, 0, 1, 0, 0, 0][i % 6] ?? 0));
  const v = awayFromZero(name, size, random);
  return name.startsWith('w') || name.startsWith('b') ? v.map((x) => 0.5 * x) : v;
};

function weightShapes(kind: CellKind): Record<string, number[]> {
  const G = CELL_GATES[kind] * H;
  return { wx: [IN, G], bx: [G], wh: [H, G], bh: [G] };
}

for (const kind of ['gru', 'lstm'] as const) {
  test(`gradient of one ${kind} step matches finite differences`, () =>
    checkGradients({
      inputs: { gx: [N, CELL_GATES[kind] * H], state: [N, stateWidth(kind, H)], wh: [H, CELL_GATES[kind] * H], bh: [CELL_GATES[kind] * H] },
      build: (g, x) => cellStep(g, kind, H, x.gx!, x.state!, { wh: x.wh!, bh: x.bh! }),
      sample: sampler,
    }));

  test(`gradient of a ${kind} unrolled over ${T} steps with an episode start inside matches finite differences`, () =>
    checkGradients({
      inputs: { x: [T, N, IN], state0: [N, stateWidth(kind, H)], starts: [T, N], ...weightShapes(kind) },
      build: (g, x) => {
        const { outputs, last } = recurrentSequence(g, kind, H, T, x.x!, x.starts!, x.state0!, { wx: x.wx!, bx: x.bx!, wh: x.wh!, bh: x.bh! });
        return g.concat([g.reshape(outputs, [-1]), g.reshape(last, [-1])], 0);
      },
      sample: sampler,
      points: 2,
    }));

  test(`a ${kind} forgets its state where an episode starts`, async () => {
    // Row 0 starts an episode at step 1: its outputs from step 1 on are those of a fresh sequence
    // over steps 1.., whatever state0 and step 0 held.
    const g = new Graph();
    const shapes = weightShapes(kind);
    const w = Object.fromEntries(Object.entries(shapes).map(([k, s]) => [k, g.input(k, 'float32', s)]));
    const x = g.input('x', 'float32', [T, 1, IN]);
    const starts = g.input('starts', 'float32', [T, 1]);
    const state0 = g.input('state0', 'float32', [1, stateWidth(kind, H)]);
    const cell = { wx: w.wx!, bx: w.bx!, wh: w.wh!, bh: w.bh! };
    const { outputs } = recurrentSequence(g, kind, H, T, x, starts, state0, cell);
    const session = await Session.create(g, { outputs });
    const random = (() => { let s = 7; return () => ((s = (s * 16807) % 2147483647) / 2147483647) - 0.5; })();
    const feeds: Record<string, { data: Float32Array; dims: number[] }> = {};
    for (const [k, s] of Object.entries(shapes)) feeds[k] = { data: Float32Array.from({ length: s.reduce((a, b) => a * b, 1) }, random), dims: s };
    feeds.x = { data: Float32Array.from({ length: T * IN }, random), dims: [T, 1, IN] };
    const run = async (state: number, startAt1: boolean, shiftedX?: Float32Array) => {
      const f: Record<string, { data: Float32Array; dims: number[] }> = { ...feeds, state0: { data: new Float32Array(stateWidth(kind, H)).fill(state), dims: [1, stateWidth(kind, H)] }, starts: { data: Float32Array.from([0, startAt1 ? 1 : 0, 0]), dims: [T, 1] } };
      if (shiftedX) f.x = { data: shiftedX, dims: [T, 1, IN] };
      return (await session.run(f)).outputs!;
    };
    const reset = await run(0.9, true);
    const fresh = await run(0, false, Float32Array.from([...feeds.x!.data.subarray(IN), ...new Float32Array(IN)]));
    const kept = await run(0.9, false);
    for (let k = 0; k < 2 * H; k++) assert.ok(Math.abs(reset[H + k]! - fresh[k]!) < 1e-6, `step ${1 + Math.floor(k / H)} after the start matches a fresh sequence`);
    assert.ok(Math.abs(kept[H]! - reset[H]!) > 1e-4, 'without the start the state carries over');
    await session.release();
  });
}
