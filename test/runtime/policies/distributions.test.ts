// The action distributions' training ops. The categorical log-probability and entropy carry
// closed-form gradients (Graph.withGradient), so they get the finite-difference checks that
// every primitive op's rule gets (test/runtime/tensor/gradients.test.ts).
import { describe, it } from 'node:test';
import { Categorical } from '../../../runtime/policies/distributions.js';
import { checkGradients } from '../tensor/gradcheck.js';

const ONE_HOT = [0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0]; // 5 rows of 3 actions

describe('Categorical', () => {
  const dist = new Categorical(3);

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
