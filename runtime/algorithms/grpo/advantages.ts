// GRPO's advantages: each completion's reward relative to the other completions of its prompt
// (Shao et al. 2024, eq. 3 with outcome supervision), one number per completion that every
// token of it carries.
//
//   group_std:  A_i = (r_i - mean(group)) / (std(group) + eps)
//   batch_std:  A_i = (r_i - mean(group)) / (std(batch) + eps)    (REINFORCE++'s global scale)
//   none:       A_i =  r_i - mean(group)                          (Dr. GRPO: no length or difficulty bias from the scale)
//
// std is the sample standard deviation (n - 1), as TRL computes it; eps = 1e-4 as there. A group
// whose rewards are all equal has all-zero advantages: it teaches nothing but the KL term.
import type { Normalize } from './settings.js';

export const ADVANTAGE_EPS = 1e-4;

function std(xs: ArrayLike<number>, start: number, n: number): number {
  let mean = 0;
  for (let i = 0; i < n; i++) mean += xs[start + i]! / n;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += (xs[start + i]! - mean) ** 2;
  return Math.sqrt(sum / Math.max(1, n - 1));
}

/**
 * Writes the advantage of each of `rewards` (groups of `groupSize` consecutive completions)
 * into `out`; returns the number of groups whose rewards are all equal.
 */
export function groupAdvantages(rewards: ArrayLike<number>, groupSize: number, normalize: Normalize, out: Float32Array): number {
  const groups = rewards.length / groupSize;
  const batchScale = normalize === 'batch_std' ? std(rewards, 0, rewards.length) + ADVANTAGE_EPS : 1;
  let flat = 0;
  for (let g = 0; g < groups; g++) {
    const start = g * groupSize;
    let mean = 0;
    let same = true;
    for (let i = 0; i < groupSize; i++) {
      mean += rewards[start + i]! / groupSize;
      same &&= rewards[start + i] === rewards[start];
    }
    if (same) flat++;
    const scale = normalize === 'group_std' ? std(rewards, start, groupSize) + ADVANTAGE_EPS : batchScale;
    for (let i = 0; i < groupSize; i++) out[start + i] = same ? 0 : (rewards[start + i]! - mean) / scale;
  }
  return flat;
}
