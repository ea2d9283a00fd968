// SFT's loss: the cross-entropy of the completion tokens only (the prompt is given, not
// learned), averaged over those tokens:
//
//   loss = -(1 / sum mask) sum_{b,t} mask_bt log pi(target_bt | tokens_b,<=t)
//
// The token batch and its log-probabilities are the text learners' shared pieces (../text/tokens.ts).
import type { LanguageModel } from '../../policies/index.js';
import { Graph, type Dim, type Tensor } from '../../tensor/index.js';
import { tokenAccuracy, tokenBatchInputs, tokenLogProbs } from '../text/tokens.js';

/** The per-token feeds whose non-zero entries are the only tokens the loss reads (lm/segmented-step.ts). */
export const SFT_LOSS_TOKENS = ['mask'] as const;

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
