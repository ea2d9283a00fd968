// W-REINFORCE (Zhu et al. 2025, "The Surprising Effectiveness of Negative Reinforcement in LLM
// Reasoning"), as a learner module: REINFORCE on verifiable rewards with the correct samples'
// push up weighted by a small lambda and the wrong samples' push down kept whole. The paper
// finds that the negative half alone keeps the model's diversity (pass@k) and the small
// positive weight recovers pass@1. None of GRPO's declared settings gives it: the weight
// depends on whether each sample is right, which the module decides in the graph.
//
//   s_i = lambda   if reward_i > threshold      (a correct sample)
//         -1       otherwise                    (a wrong one)
//   loss = -sum_i sum_t s_i mask_it log pi(o_it) / (completion tokens in the batch)
//
// examples/learners/addition-w-reinforce.rlx trains it on two-digit addition after an SFT warm-up.
import type { LearnerLoss, LearnerSettings, LossGraph, TextBatch } from 'rlx/learner';

export const spec = {
  api: 1,
  kind: 'text',
  doc: 'W-REINFORCE (Zhu et al. 2025): correct samples pushed up with weight positive_weight, wrong ones pushed down with weight 1.',
  settings: {
    positive_weight: { type: 'number', default: 0.1, min: 0, max: 10, doc: 'lambda: the weight of a correct sample\'s push up (a wrong one\'s push down weighs 1).' },
    threshold: { type: 'number', default: 0.5, doc: 'A sample whose reward is above this is correct.' },
  },
};

export function buildLoss(g: LossGraph, batch: TextBatch, settings: LearnerSettings): LearnerLoss {
  const lambda = settings.positive_weight as number;
  const correct = g.toFloat(g.greater(batch.rewards, settings.threshold as number)); // [B]
  const sign = g.sub(g.mul(correct, lambda + 1), 1); // lambda where correct, -1 where wrong
  const perToken = g.mul(g.mul(batch.logProb, batch.mask), g.unsqueeze(sign, [1])); // [B, T]
  const loss = g.neg(g.mul(g.sum(perToken), batch.invTokens));
  return { loss, metrics: { correct_fraction: g.mean(correct) } };
}
