// A tiny decoder-only transformer (GPT: token and position embeddings, a pre-LayerNorm block
// with causal multi-head self-attention and a GELU MLP, a final LayerNorm and an LM head tied
// to the token embeddings), built from Graph ops alone: the gradient of its next-token loss
// with respect to every weight matches central finite differences.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GradientSession } from '../../../runtime/tensor/gradient-session.js';
import { Graph } from '../../../runtime/tensor/graph.js';
import { seededRandom } from '../../helpers/random.js';
import { Adam } from '../../../runtime/tensor/optim.js';
import type { Tensor } from '../../../runtime/tensor/tensor.js';
import { WeightStore } from '../../../runtime/tensor/weights.js';
import { type GradCase, type Sampler, awayFromZero, checkGradients, differentiatedOps } from './gradcheck.js';

const [B, T, H, D, V] = [2, 4, 2, 3, 5];
const C = H * D;

const WEIGHTS = {
  wte: [V, C],
  wpe: [T, C],
  ln1Scale: [C],
  ln1Bias: [C],
  wQkv: [C, 3 * C],
  bQkv: [3 * C],
  wOut: [C, C],
  bOut: [C],
  ln2Scale: [C],
  ln2Bias: [C],
  wUp: [C, 4 * C],
  bUp: [4 * C],
  wDown: [4 * C, C],
  bDown: [C],
  lnfScale: [C],
  lnfBias: [C],
};

const TOKENS = [1, 4, 0, 4, 2, 3, 3, 1];
const TARGETS = [4, 0, 4, 2, 3, 3, 1, 0];

/** [B, T, H*D] -> [B, H, T, D] */
const splitHeads = (g: Graph, x: Tensor) => g.transpose(g.reshape(x, [0, 0, H, D]), [0, 2, 1, 3]);
/** [B, H, T, D] -> [B, T, H*D] */
const mergeHeads = (g: Graph, x: Tensor) => g.reshape(g.transpose(x, [0, 2, 1, 3]), [0, 0, C]);

function causalSelfAttention(g: Graph, x: Tensor, w: Record<string, Tensor>): Tensor {
  const qkv = g.linear(x, w.wQkv!, w.bQkv!);
  const [q, k, v] = [0, 1, 2].map((i) => splitHeads(g, g.slice(qkv, -1, i * C, (i + 1) * C)));
  const scores = g.mul(g.matmul(q!, g.transpose(k!, [0, 1, 3, 2])), 1 / Math.sqrt(D));
  const causal = g.const(
    Array.from({ length: T * T }, (_, i) => (i % T <= Math.floor(i / T) ? 1 : 0)),
    { dtype: 'bool', shape: [T, T] },
  );
  const attention = g.softmax(g.where(causal, scores, -1e9));
  return g.linear(mergeHeads(g, g.matmul(attention, v!)), w.wOut!, w.bOut!);
}

/** The mean next-token cross-entropy of int64 tokens and targets [batch, T]. */
function nextTokenLoss(g: Graph, w: Record<string, Tensor>, tokens: Tensor, targets: Tensor): Tensor {
  const positions = g.const([...Array(T).keys()], { dtype: 'int64' });
  let x = g.add(g.gather(w.wte!, tokens), g.gather(w.wpe!, positions));
  x = g.add(x, causalSelfAttention(g, g.layerNorm(x, w.ln1Scale!, w.ln1Bias!), w));
  const mlp = g.linear(g.gelu(g.linear(g.layerNorm(x, w.ln2Scale!, w.ln2Bias!), w.wUp!, w.bUp!)), w.wDown!, w.bDown!);
  x = g.add(x, mlp);
  const logits = g.matmul(g.layerNorm(x, w.lnfScale!, w.lnfBias!), g.transpose(w.wte!));
  return g.neg(g.mean(g.gatherLast(g.logSoftmax(logits), targets)));
}

/** Weights about the size an initialiser gives; LayerNorm scales near 1. */
const weights: Sampler = (name, size, random) =>
  awayFromZero(name, size, random).map((v) => (name.endsWith('Scale') ? 1 + 0.25 * v : 0.5 * v));

const attentionBlock: GradCase = {
  inputs: WEIGHTS,
  build: (g, w) => nextTokenLoss(g, w, g.const(TOKENS, { dtype: 'int64', shape: [B, T] }), g.const(TARGETS, { dtype: 'int64', shape: [B, T] })),
  sample: weights,
  points: 2,
};

test('a tiny GPT block (B=2, T=4, H=2, D=3): every weight gradient matches finite differences', () =>
  checkGradients(attentionBlock));

test('the tiny GPT block differentiates through the transformer ops', () => {
  const ops = differentiatedOps(attentionBlock);
  for (const op of ['Gather', 'LayerNormalization', 'MatMul', 'Softmax', 'Where', 'Sigmoid', 'Transpose', 'Reshape', 'Slice', 'LogSoftmax']) {
    assert.ok(ops.has(op), `the block should use ${op}`);
  }
});

test('the block trains in float32 with a symbolic batch: one session for every batch size, the loss falls', async () => {
  const random = seededRandom(5);
  const store = new WeightStore();
  for (const [name, shape] of Object.entries(WEIGHTS)) {
    store.add(name, shape, (n) => Array.from({ length: n }, () => (name.endsWith('Scale') ? 1 : name.endsWith('Bias') ? 0 : 0.2 * (random() - 0.5))));
  }
  const g = new Graph();
  const loss = nextTokenLoss(g, store.declare(g), g.input('tokens', 'int64', ['B', T]), g.input('targets', 'int64', ['B', T]));
  const step = await GradientSession.create(g, { loss, weights: store });
  const adam = new Adam(store, { lr: 1e-2 });
  const batch = (rows: number) => ({
    tokens: { data: BigInt64Array.from({ length: rows * T }, (_, i) => BigInt(TOKENS[i % TOKENS.length]!)), dims: [rows, T] },
    targets: { data: BigInt64Array.from({ length: rows * T }, (_, i) => BigInt(TARGETS[i % TARGETS.length]!)), dims: [rows, T] },
  });
  try {
    const first = (await step.run(batch(3))).loss;
    for (let i = 0; i < 40; i++) adam.step((await step.run(batch(i % 2 ? 2 : 3))).grads);
    const last = (await step.run(batch(3))).loss;
    assert.ok(last < 0.5 * first, `loss ${first} -> ${last}`);
  } finally {
    await step.release();
  }
});
