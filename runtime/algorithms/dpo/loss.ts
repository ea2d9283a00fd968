// The graph DPO's gradient step runs: sum_{b,t} weight_bt log pi(target_bt), where weight is a
// row's d loss / d (its answer's summed log-probability), written on that answer's tokens and 0
// elsewhere (preference-loss.ts computes the derivatives from a forward pass just before). Its
// gradient is the preference loss's; its value is not the loss, which the learner logs instead.
import type { LanguageModel } from '../../policies/index.js';
import { Graph, type Dim, type Tensor } from '../../tensor/index.js';
import { tokenLogProbs } from '../text/tokens.js';

/** The per-token feed whose non-zero entries are the only tokens the loss reads (lm/segmented-step.ts). */
export const DPO_LOSS_TOKENS = ['weight'] as const;

export interface DpoStepLoss {
  readonly graph: Graph;
  readonly loss: Tensor;
  readonly metrics: Record<string, Tensor>;
}

/** The weighted log-probability sum on rows of width T; feeds: tokens, targets, weight. */
export function buildDpoStepLoss(model: LanguageModel, T: Dim): DpoStepLoss {
  const g = new Graph();
  const tokens = g.input('tokens', 'int64', ['B', T]);
  const targets = g.input('targets', 'int64', ['B', T]);
  const weight = g.input('weight', 'float32', ['B', T]);
  const { logProb } = tokenLogProbs(g, model, { tokens, targets, mask: weight });
  return { graph: g, loss: g.reduceSum(g.mul(logProb, weight)), metrics: {} };
}
