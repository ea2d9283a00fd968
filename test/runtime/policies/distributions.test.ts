// The action distributions' training ops. The categorical log-probability and entropy carry
// closed-form gradients (Graph.withGradient), so they get the finite-difference checks that
// every primitive op's rule gets (test/runtime/tensor/gradients.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Categorical } from '../../../runtime/policies/distributions.js';
import { Graph } from '../../../runtime/tensor/graph.js';
import { Session } from '../../../runtime/tensor/session.js';
import { checkGradients } from '../tensor/gradcheck.js';

const ONE_HOT = [0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0]; // 5 rows of 3 actions

/** softmax of one row of logits, in plain JS. */
const softmaxRow = (r: readonly number[]) => {
  const m = Math.max(...r);
  const e = r.map((v) => Math.exp(v - m));
  const s = e.reduce((a, b) => a + b);
  return e.map((v) => v / s);
};

describe('Categorical', () => {
  const dist = new Categorical(3);

  it('logProb is log softmax at the taken action, meanEntropy the mean of the rows\' entropies', async () => {
    const rows = [[1, -2, 3], [-4, 5, -6], [0, 0, 0]];
    const g = new Graph();
    const out = { head: g.input('logits', 'float64', [3, 3]) };
    const logProb = dist.logProb(g, out, g.const([1, 0, 0, 0, 1, 0, 0, 0, 1], { dtype: 'float64', shape: [3, 3] }));
    const entropy = dist.meanEntropy(g, out, g.scalar(1 / 3, 'float64'));
    const session = await Session.create(g, { logProb, entropy });
    const got = await session.runTensors({ logits: new Float64Array(rows.flat()) });
    await session.release();
    const p = rows.map(softmaxRow);
    const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} vs ${b}`);
    [...(got.logProb!.data as Float64Array)].forEach((v, i) => close(v, Math.log(p[i]![i]!)));
    const entropies = p.map((r) => -r.reduce((s, q) => s + q * Math.log(q), 0));
    close(entropies[2]!, Math.log(3)); // uniform logits
    close((got.entropy!.data as Float64Array)[0]!, entropies.reduce((a, b) => a + b) / 3);
  });

  it("logProb's gradient with respect to the logits matches finite differences", () =>
    checkGradients({
      inputs: { logits: [5, 3] },
      build: (g, { logits }) => dist.logProb(g, { head: logits! }, g.const(ONE_HOT, { dtype: 'float64', shape: [5, 3] })),
    }));

  it("meanEntropy's gradient with respect to the logits matches finite differences", () =>
    checkGradients({
      inputs: { logits: [5, 3] },
      build: (g, { logits }) => g.reshape(dist.meanEntropy(g, { head: logits! }, g.scalar(1 / 5, 'float64')), [1]),
    }));

  it('both at once (sharing one softmax) match finite differences', () =>
    checkGradients({
      inputs: { logits: [5, 3] },
      build: (g, { logits }) => {
        const out = { head: logits! };
        const logProb = dist.logProb(g, out, g.const(ONE_HOT, { dtype: 'float64', shape: [5, 3] }));
        return g.add(logProb, g.mul(dist.meanEntropy(g, out, g.scalar(0.2, 'float64')), 3));
      },
    }));
});
