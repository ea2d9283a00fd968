// REINFORCE and RLOO on a text env (TextTask, GuessNumber, a user's text module): each update
// samples `episodes_per_update` samples from one start (one prompt, or one dialogue start), so
// that a leave-one-out baseline compares samples of the same problem, as TRL's RLOOTrainer
// does with its k completions per prompt. The learner is the one GRPO uses
// (../text/policy-gradient.ts) with one pass per batch, no clip (the ratio is 1), no KL, and each
// sample's tokens summed: the gradient is the mean over samples of (return - baseline) *
// grad log pi(sample).
//
// A sample's return is its whole reward (the reward terms, or the sum of a dialogue's rewards),
// undiscounted: `discount` applies to the numeric envs' per-step rewards. With `credit: turn` a
// dialogue turn's tokens get its return-to-go less the baseline over the group's same turn
// (../text/turn-credit.ts).
import type { TextAlgorithmContext } from '../algorithm.js';
import { TextPolicyGradient } from '../text/policy-gradient.js';
import { advantagesOf } from './advantages.js';
import type { ReinforceSettings } from './settings.js';

export function reinforceOnText(context: TextAlgorithmContext, s: ReinforceSettings): Promise<TextPolicyGradient> {
  return TextPolicyGradient.create(context, {
    name: 'REINFORCE',
    groups: 1,
    groupSize: s.episodes_per_update,
    temperature: 1,
    learningRate: s.learning_rate,
    clip: 0.2,
    clipHigh: null,
    klCoef: 0,
    klEstimator: 'k3',
    klInReward: false,
    entropyCoef: s.entropy_coef,
    iterations: 1,
    maxGradNorm: s.max_grad_norm,
    weighting: 'sum',
    advantages: (returns, G, out) => {
      const group = new Float64Array(G);
      for (let start = 0; start < returns.length; start += G) {
        advantagesOf(returns.subarray(start, start + G), G, s.baseline, group);
        out.set(group, start);
      }
    },
    // Per-turn credit compares turns as the returns are: the baseline subtracted, no scale.
    ...(s.credit === 'turn' ? { turnCredit: { baseline: s.baseline, normalize: 'none' } } : {}),
    memory: { microBatch: s.micro_batch, checkpointing: s.gradient_checkpointing },
    generationBatch: s.generation_batch,
    settings: s as unknown as Record<string, unknown>,
  });
}
