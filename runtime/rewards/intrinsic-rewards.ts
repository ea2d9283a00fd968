// Intrinsic rewards of a single-turn text task: rewards from the policy itself, no verifier
// (RL without external rewards). Each is a mean over the completion's tokens of a statistic of
// the distribution the token was sampled from (lm/token-statistics.ts: computed as it is drawn,
// softmax(logits / temperature); held-out evaluation decodes greedily and reads them at
// temperature 1):
//
//   self_certainty  mean_t KL(U || p_t) = -log V - mean_v log p_t(v)   (INTUITOR, Zhao et al. 2025)
//   neg_entropy     -mean_t H(p_t)                                      (entropy minimisation:
//                                                                        Agarwal et al. 2025, Prabhudesai et al. 2025)
//   logprob         mean_t log p_t(o_t), the sampled tokens' log-probability
//
// A reward term names them like any number (`term sc = self_certainty`); the registry
// (dsl/schema/expressions.ts) documents them and the checker offers them on TextTask only.
import type { PlanExpr, PlanReward } from '../../dsl/compile/plan.js';
import type { TokenStatistics } from '../lm/token-statistics.js';

/** The reward names, and the RewardContext field each is read from. */
export const INTRINSIC_NAMES = { self_certainty: 'selfCertainty', neg_entropy: 'negEntropy', logprob: 'logprob' } as const;
export type IntrinsicName = keyof typeof INTRINSIC_NAMES;

export function isIntrinsicName(name: string): name is IntrinsicName {
  return Object.hasOwn(INTRINSIC_NAMES, name);
}

/** Whether any term of `reward` reads one of them: only then does sampling record the statistics for the reward. */
export function readsIntrinsic(reward: PlanReward | null): boolean {
  const reads = (e: PlanExpr): boolean => ('ref' in e ? isIntrinsicName(e.ref.split('.')[0]!) : 'args' in e ? e.args.some(reads) : 'list' in e ? e.list.some(reads) : false);
  return reward !== null && reward.terms.some((t) => reads(t.expr));
}

/** What a reward context holds for them. */
export interface IntrinsicFields {
  selfCertainty: number;
  negEntropy: number;
  logprob: number;
}

/** Sets the fields from a completion's mean token statistics (0 when there are none). */
export function setIntrinsic(c: IntrinsicFields, sampled: TokenStatistics | undefined): void {
  c.selfCertainty = sampled?.selfCertainty ?? 0;
  c.negEntropy = sampled ? -sampled.entropy : 0;
  c.logprob = sampled?.logProb ?? 0;
}
