// The `rlx/learner` surface (runtime/learner/, docs/learners.md#the-rlxlearner-surface): the
// package export resolves, it lists exactly what version 1 documents, and a module's tensors
// are handles that keep rlx's own Tensor and Graph out of reach.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Graph } from '../../../runtime/tensor/index.js';
import { LossGraph, LossTensor } from '../../../runtime/learner/loss-graph.js';

test('rlx/learner resolves as a package export and exports exactly the documented names', async () => {
  const api = await import('rlx/learner' as string) as Record<string, unknown>;
  assert.deepEqual(Object.keys(api).sort(), ['LEARNER_API_VERSION', 'LossGraph', 'LossTensor', 'METRIC_NAME', 'groupMean', 'maskedMean', 'sequenceMean']);
  assert.equal(api.LEARNER_API_VERSION, 1);
});

test('a LossTensor shows its shape and type, not the graph behind it; ops refuse what is not theirs', () => {
  const g = new Graph();
  const lg = new LossGraph(g);
  const x = LossGraph.wrap(lg, g.input('x', 'float32', ['B', 4]));
  const y = lg.mean(lg.mul(x, 2), { axes: [1] });
  assert.ok(y instanceof LossTensor);
  assert.deepEqual([y.shape, y.dtype, y.rank], [['B'], 'float32', 1]);
  assert.deepEqual(Object.keys(y), [], 'no own properties: the Tensor is kept apart');
  assert.equal((y as unknown as Record<string, unknown>).graph, undefined);
  const other = new LossGraph(new Graph());
  assert.throws(() => other.exp(y), /exp's operand is a tensor of another loss graph/);
  assert.throws(() => lg.exp({ shape: [1] } as unknown as LossTensor), /exp's operand is an object \(Object\), not a tensor of the loss graph/);
});
