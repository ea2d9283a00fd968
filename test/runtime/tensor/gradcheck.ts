// Compares analytic gradients (our rules, run by onnxruntime) with central finite
// differences, both in float64; or in float32 for ops onnxruntime's CPU only runs in float32
// (Conv, ConvTranspose), which are linear in each input: with a step of 1 their central
// differences are exact but for float32 rounding, so a looser tolerance still pins the rule.

import assert from 'node:assert/strict';
import { grad } from '../../../runtime/tensor/grad.js';
import { Graph } from '../../../runtime/tensor/graph.js';
import { seededRandom } from '../../helpers/random.js';
import { Session } from '../../../runtime/tensor/session.js';
import type { Tensor } from '../../../runtime/tensor/tensor.js';
import { isStatic, numel } from '../../../runtime/tensor/types.js';

export type Sampler = (name: string, size: number, random: () => number) => Float64Array;

export interface GradCase {
  /** Shapes of the float64 inputs to differentiate. */
  readonly inputs: Readonly<Record<string, readonly number[]>>;
  /** Builds the op under test; its output may have any static shape. */
  readonly build: (g: Graph, x: Record<string, Tensor>) => Tensor;
  /** Input values at each point; by default uniform in ±[0.2, 2], away from kinks at 0. */
  readonly sample?: Sampler;
  readonly points?: number;
  /** The finite-difference step; default 1e-5 (1 in float32). */
  readonly step?: number;
  /** float32 for an op onnxruntime has no float64 kernel for; it must be linear in each input (see above). */
  readonly dtype?: 'float64' | 'float32';
}

const DEFAULT_STEP = 1e-5;
const TOLERANCE = { float64: { rtol: 1e-6, atol: 1e-8 }, float32: { rtol: 1e-4, atol: 1e-4 } } as const;

export const awayFromZero: Sampler = (_name, size, random) =>
  Float64Array.from({ length: size }, () => (random() < 0.5 ? -1 : 1) * (0.2 + 1.8 * random()));

export const positive: Sampler = (_name, size, random) => Float64Array.from({ length: size }, () => 0.5 + 1.5 * random());

/** Distinct values at least 0.1 apart (no ties for max/min), in random order. */
export const distinct: Sampler = (_name, size, random) => {
  const values = Float64Array.from({ length: size }, (_, i) => -2 + (4 * (i + 0.5 * random())) / size);
  for (let i = size - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [values[i], values[j]] = [values[j]!, values[i]!];
  }
  return values;
};

function buildCase(c: GradCase): { g: Graph; names: string[]; x: Record<string, Tensor>; y: Tensor } {
  const g = new Graph();
  const names = Object.keys(c.inputs);
  const x: Record<string, Tensor> = {};
  for (const n of names) x[n] = g.input(n, c.dtype ?? 'float64', c.inputs[n]!);
  return { g, names, x, y: c.build(g, x) };
}

/**
 * The ops whose gradient rules a case exercises: those on a path from one of its inputs to
 * its output. The coverage test reads them from the table of cases, so a rule counts as
 * tested exactly when some case differentiates through it.
 */
export function differentiatedOps(c: GradCase): Set<string> {
  const { g, x, y } = buildCase(c);
  const fromInputs = new Set<Tensor>(Object.values(x));
  for (const t of g.nodes) if (t.inputs.some((i) => fromInputs.has(i))) fromInputs.add(t);
  const ops = new Set<string>();
  const toOutput = new Set<Tensor>([y]);
  for (let i = g.nodes.length - 1; i >= 0; i--) {
    const t = g.nodes[i]!;
    if (!toOutput.has(t)) continue;
    for (const input of t.inputs) toOutput.add(input);
    if (fromInputs.has(t) && !t.isLeaf) ops.add(t.op);
  }
  return ops;
}

export async function checkGradients(c: GradCase, seed = 1234): Promise<void> {
  const random = seededRandom(seed);
  const { g, names, x, y } = buildCase(c);
  const dtype = c.dtype ?? 'float64';
  const H = c.step ?? (dtype === 'float32' ? 1 : DEFAULT_STEP);
  const { rtol, atol } = TOLERANCE[dtype];
  assert.equal(y.dtype, dtype, `the op under test must give ${dtype}`);
  assert.ok(isStatic(y.shape), `output shape must be static, got [${y.shape.join(', ')}]`);
  // Random weights make every output element count in the loss.
  const weightValues = Float64Array.from({ length: numel(y.shape as number[]) }, () => 0.5 + random());
  const weights = g.const(dtype === 'float32' ? Float32Array.from(weightValues) : weightValues, {
    shape: y.shape as number[],
  });
  const loss = g.reduceSum(g.mul(y, weights));
  const grads = grad(loss, names.map((n) => x[n]!));
  const outputs: Record<string, Tensor> = { loss };
  names.forEach((n, i) => {
    assert.deepEqual(grads[i]!.shape, x[n]!.shape, `gradient of '${n}' has the shape of '${n}'`);
    outputs[`d_${n}`] = grads[i]!;
  });
  const session = await Session.create(g, outputs);
  try {
    const sample = c.sample ?? awayFromZero;
    for (let p = 0; p < (c.points ?? 3); p++) {
      const values: Record<string, Float64Array | Float32Array> = {};
      for (const n of names) {
        const drawn = sample(n, numel(c.inputs[n]!), random);
        values[n] = dtype === 'float32' ? Float32Array.from(drawn) : drawn;
      }
      const feeds = () => Object.fromEntries(names.map((n) => [n, { data: values[n]!, dims: c.inputs[n]! }]));
      const analytic = await session.runTensors(feeds());
      const lossAt = async () => (await session.runTensors(feeds())).loss!.data[0] as number;
      for (const n of names) {
        const v = values[n]!;
        const got = analytic[`d_${n}`]!.data as Float64Array | Float32Array;
        assert.deepEqual([...analytic[`d_${n}`]!.dims], [...c.inputs[n]!]);
        for (let i = 0; i < v.length; i++) {
          const x0 = v[i]!;
          v[i] = x0 + H;
          const up = await lossAt();
          v[i] = x0 - H;
          const down = await lossAt();
          v[i] = x0;
          const numeric = (up - down) / (2 * H);
          const tol = rtol * Math.max(Math.abs(numeric), Math.abs(got[i]!)) + atol;
          assert.ok(
            Math.abs(got[i]! - numeric) <= tol,
            `d loss / d ${n}[${i}] at point ${p}: analytic ${got[i]}, numeric ${numeric} (diff ${Math.abs(got[i]! - numeric)})`,
          );
        }
      }
    }
  } finally {
    await session.release();
  }
}
