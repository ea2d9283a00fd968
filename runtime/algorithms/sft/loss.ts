// The token-level pieces of the text learners' losses. A batch is token rows in the layout of
// policies/transformer/layout.ts: `tokens` [B, T] the model reads, `targets` [B, T] each
// position's next token, `mask` [B, T] 1 where that next token belongs to the completion.
//
// SFT's loss is the cross-entropy of the completion tokens only (the prompt is given, not
// learned), averaged over those tokens:
//
//   loss = -(1 / sum mask) sum_{b,t} mask_bt log pi(target_bt | tokens_b,<=t)
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

/** log pi(target) at every position [B, T] (scaled logits: divided by `temperature` first, when given), and the log-softmax [B, T, V]. */
export function tokenLogProbs(g: Graph, model: LanguageModel, batch: TokenBatch, invTemperature?: Tensor): { logProb: Tensor; logSoftmax: Tensor } {
  let logits = model.sequenceLogits(g, batch.tokens);
  if (invTemperature) logits = g.mul(logits, invTemperature);
  const logSoftmax = g.logSoftmax(logits);
  return { logProb: g.gatherLast(logSoftmax, batch.targets), logSoftmax };
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

export interface SftLoss {
  readonly graph: Graph;
  readonly loss: Tensor;
  readonly metrics: { readonly token_accuracy: Tensor };
}

/** The loss on rows of width T; feeds: tokens, targets, mask, and `inv_tokens` = 1 / sum(mask). */
export function buildSftLoss(model: LanguageModel, T: Dim): SftLoss {
  const g = new Graph();
  const batch = tokenBatchInputs(g, T);
  const invTokens = g.input('inv_tokens', 'float32', []);
  const { logProb, logSoftmax } = tokenLogProbs(g, model, batch);
  const loss = g.neg(g.mul(g.reduceSum(g.mul(logProb, batch.mask)), invTokens));
  return { graph: g, loss, metrics: { token_accuracy: tokenAccuracy(g, logProb, logSoftmax, batch, invTokens) } };
}
