// The advantages step of the text policy-gradient learner (policy-gradient.ts): each sample's
// reward relative to the other samples of its group (Shao et al. 2024, eq. 3 with outcome
// supervision), one number per sample that every token of it carries. A baseline is subtracted,
// then the difference is scaled:
//
//   baseline mean:           b_i = mean(group)
//   baseline leave_one_out:  b_i = mean of the group's other rewards        (RLOO, Kool et al. 2019)
//
//   normalize group_std:  A_i = (r_i - b_i) / (std(group) + eps)
//   normalize batch_std:  A_i = (r_i - b_i) / (std(batch) + eps)           (REINFORCE++'s global scale)
//   normalize none:       A_i =  r_i - b_i                                 (Dr. GRPO: no length or difficulty bias from the scale)
//   normalize max_abs:    A_i = (r_i - b_i) / max_j |r_j - b_j| over the group   (in [-1, 1])
//
// std is the sample standard deviation (n - 1), as TRL computes it; eps = 1e-4 as there. A group
// whose rewards are all equal has all-zero advantages whatever the settings: it teaches nothing
// but the KL term (filter.ts counts such groups).

export const ADVANTAGE_EPS = 1e-4;

export const BASELINES = ['mean', 'leave_one_out'] as const;
export type Baseline = (typeof BASELINES)[number];
export const NORMALIZE = ['group_std', 'batch_std', 'none', 'max_abs'] as const;
export type Normalize = (typeof NORMALIZE)[number];

export interface AdvantageOptions {
  readonly baseline: Baseline;
  readonly normalize: Normalize;
}

function std(xs: ArrayLike<number>, start: number, n: number): number {
  let mean = 0;
  for (let i = 0; i < n; i++) mean += xs[start + i]! / n;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += (xs[start + i]! - mean) ** 2;
  return Math.sqrt(sum / Math.max(1, n - 1));
}

/** Writes the advantage of each of `rewards` (groups of `groupSize` consecutive samples) into `out`. */
export function groupAdvantages(rewards: ArrayLike<number>, groupSize: number, options: AdvantageOptions, out: Float32Array): void {
  const groups = rewards.length / groupSize;
  const batchScale = options.normalize === 'batch_std' ? std(rewards, 0, rewards.length) + ADVANTAGE_EPS : 1;
  const centred = new Float64Array(groupSize);
  for (let g = 0; g < groups; g++) {
    const start = g * groupSize;
    // The mean as a running sum of r / G, as before leave_one_out existed: plain GRPO's advantages stay bit for bit.
    let mean = 0;
    let sum = 0;
    let same = true;
    for (let i = 0; i < groupSize; i++) {
      mean += rewards[start + i]! / groupSize;
      sum += rewards[start + i]!;
      same &&= rewards[start + i] === rewards[start];
    }
    if (same) {
      out.fill(0, start, start + groupSize);
      continue;
    }
    let largest = 0;
    for (let i = 0; i < groupSize; i++) {
      const r = rewards[start + i]!;
      const baseline = options.baseline === 'leave_one_out' ? (sum - r) / (groupSize - 1) : mean;
      centred[i] = r - baseline;
      largest = Math.max(largest, Math.abs(centred[i]!));
    }
    const scale = options.normalize === 'group_std' ? std(rewards, start, groupSize) + ADVANTAGE_EPS
      : options.normalize === 'max_abs' ? largest
        : batchScale;
    for (let i = 0; i < groupSize; i++) out[start + i] = centred[i]! / scale;
  }
}

