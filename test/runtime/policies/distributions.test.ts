// The action distributions' training ops. The categorical and Bernoulli log-probabilities and
// entropies carry closed-form gradients (Graph.withGradient), so they get the finite-difference
// checks that every primitive op's rule gets (test/runtime/tensor/gradients.test.ts); the
// Bernoulli's acting side (sampling, the most likely bits) is checked against sigmoid(logit).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Bernoulli, Categorical } from '../../../runtime/policies/distributions.js';
import { Rng } from '../../../shared/random.js';
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

describe('Bernoulli (MultiBinary actions: one logit per bit)', () => {
  const dist = new Bernoulli(3);
  const BITS = [1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0]; // 5 rows of 3 bits
  const sigmoid = (l: number) => 1 / (1 + Math.exp(-l));

  it('logProb is the sum over bits of log p(bit), meanEntropy the mean over rows of the bits\' entropies', async () => {
    const rows = [[1, -2, 3], [-4, 5, -30], [0, 0, 0]];
    const bits = [1, 1, 0, 0, 1, 1, 1, 0, 1];
    const g = new Graph();
    // float32, as training runs it: onnxruntime fuses l * sigmoid(l) into a float-only kernel.
    const out = { head: g.input('logits', 'float32', [3, 3]) };
    const logProb = dist.logProb(g, out, g.const(bits, { dtype: 'float32', shape: [3, 3] }));
    const entropy = dist.meanEntropy(g, out, g.scalar(1 / 3, 'float32'));
    const session = await Session.create(g, { logProb, entropy });
    const got = await session.runTensors({ logits: new Float32Array(rows.flat()) });
    await session.release();
    const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-5 * Math.max(1, Math.abs(b)), `${a} vs ${b}`);
    rows.forEach((row, i) => {
      const expected = row.reduce((sum, l, k) => sum + Math.log(bits[i * 3 + k] ? sigmoid(l) : 1 - sigmoid(l)), 0);
      close((got.logProb!.data as Float32Array)[i]!, expected);
    });
    const bitEntropy = (l: number) => (p => (p === 0 || p === 1 ? 0 : -p * Math.log(p) - (1 - p) * Math.log(1 - p)))(sigmoid(l));
    const entropies = rows.map((row) => row.reduce((sum, l) => sum + bitEntropy(l), 0));
    close(entropies[2]!, 3 * Math.log(2)); // logits 0: fair coins
    close((got.entropy!.data as Float32Array)[0]!, entropies.reduce((a, b) => a + b) / 3);
  });

  it("logProb's gradient with respect to the logits matches finite differences", () =>
    checkGradients({
      inputs: { logits: [5, 3] },
      build: (g, { logits }) => dist.logProb(g, { head: logits! }, g.const(BITS, { dtype: 'float64', shape: [5, 3] })),
    }));

  it("meanEntropy's gradient with respect to the logits matches finite differences", () =>
    checkGradients({
      inputs: { logits: [5, 3] },
      build: (g, { logits }) => g.reshape(dist.meanEntropy(g, { head: logits! }, g.scalar(1 / 5, 'float64')), [1]),
    }));

  it('samples each bit on with probability sigmoid(logit), and returns the log-probability logProb gives', () => {
    const logits = new Float32Array([-2, 0, 1.5, 40]);
    const wide = new Bernoulli(4);
    const rng = new Rng(7);
    const draws = 20_000;
    const on = [0, 0, 0, 0];
    const env = new Int32Array(4);
    const encoded = new Float32Array(4);
    for (let t = 0; t < draws; t++) {
      const logProb = wide.sample(logits, 0, rng, env, 0, encoded, 0);
      const expected = [...logits].reduce((sum, l, k) => sum + Math.log(env[k] ? sigmoid(l) : 1 - sigmoid(l)), 0);
      if (t < 100) assert.ok(Math.abs(logProb - expected) < 1e-9, `log-probability ${logProb} vs ${expected}`);
      for (let k = 0; k < 4; k++) {
        assert.equal(encoded[k], env[k], 'the encoded action is the bits as sent');
        on[k]! += env[k]!;
      }
    }
    logits.forEach((l, k) => {
      const p = sigmoid(l);
      // Within 4 standard errors of the binomial frequency.
      const tolerance = 4 * Math.sqrt((p * (1 - p)) / draws) + 1e-9;
      assert.ok(Math.abs(on[k]! / draws - p) <= tolerance, `bit ${k}: frequency ${on[k]! / draws}, sigmoid(${l}) = ${p}`);
    });
  });

  it('the most likely action turns on the bits whose logit is above 0', () => {
    const env = new Int32Array(6).fill(7);
    new Bernoulli(3).mode(new Float32Array([9, 9, 9, 0.5, -0.5, 0]), 3, env, 3);
    assert.deepEqual([...env], [7, 7, 7, 1, 0, 0]);
  });
});
