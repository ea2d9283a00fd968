// The token-level pieces every text learner's loss is built from (SFT's cross-entropy, the
// policy-gradient objective of GRPO and REINFORCE/RLOO on text). A batch is token rows in the
// layout of policies/transformer/layout.ts: `tokens` [B, T] the model reads, `targets` [B, T]
// each position's next token, `mask` [B, T] 1 where that next token belongs to the completion.
import type { LanguageModel } from '../../policies/index.js';
import { Graph, type Dim, type Tensor } from '../../tensor/index.js';

/** The batch inputs of a token-level loss over rows of fixed width T. */
export interface TokenBatch {
  readonly tokens: Tensor;
  readonly targets: Tensor;
  readonly mask: Tensor;
}

/** Rows of width T: a number, or symbolic where each batch has its own (a pretrained model's tokens). */
export function tokenBatchInputs(g: Graph, T: Dim): TokenBatch {
  return {
    tokens: g.input('tokens', 'int64', ['B', T]),
    targets: g.input('targets', 'int64', ['B', T]),
    mask: g.input('mask', 'float32', ['B', T]),
  };
}

/** log pi(target) at every position [B, T] (scaled logits: divided by `temperature` first, when given), the log-softmax [B, T, V], and the model's unscaled logits. */
export function tokenLogProbs(g: Graph, model: LanguageModel, batch: TokenBatch, invTemperature?: Tensor): { logProb: Tensor; logSoftmax: Tensor; logits: Tensor } {
  const modelLogits = model.sequenceLogits(g, batch.tokens);
  const logits = invTemperature ? g.mul(modelLogits, invTemperature) : modelLogits;
  const logSoftmax = g.logSoftmax(logits);
  return { logProb: g.gatherLast(logSoftmax, batch.targets), logSoftmax, logits: modelLogits };
}

/**
 * The fraction of masked positions where the model's most likely token is the target: where the
 * target's log-probability is the row's largest. Compared as floats, not as an int64 ArgMax
 * against the targets: onnxruntime's WebGPU provider has no int64 Equal and ran it on the CPU.
 * (A target tied with another token for the largest counts as a hit.)
 */
export function tokenAccuracy(g: Graph, logProb: Tensor, logSoftmax: Tensor, batch: TokenBatch, invTokens: Tensor): Tensor {
  const hits = g.cast(g.greaterOrEqual(logProb, g.reduceMax(logSoftmax, { axes: [-1] })), 'float32');
  return g.mul(g.reduceSum(g.mul(hits, batch.mask)), invTokens);
}

/** The log-probabilities of the targets alone (no loss): for pi_old and pi_ref. */
export function buildLogProbs(model: LanguageModel, T: Dim): { graph: Graph; logProb: Tensor } {
  const g = new Graph();
  const batch = { tokens: g.input('tokens', 'int64', ['B', T]), targets: g.input('targets', 'int64', ['B', T]) } as TokenBatch;
  const { logProb } = tokenLogProbs(g, model, batch, g.input('inv_temperature', 'float32', []));
  return { graph: g, logProb };
}
