// The filter step of the text policy-gradient learner (policy-gradient.ts), between collecting
// the groups and their advantages. Groups whose rewards are all equal have advantages of 0: they
// teach nothing but the KL term. The learner reports their share as `charts/zero_advantage_groups`;
// with dynamic sampling (DAPO, Yu et al. 2025) collect.ts keeps only the other groups, the
// informative ones, and samples more in their place.

/** The number of groups (of `groupSize` consecutive rewards) whose rewards are all equal. */
export function flatGroups(rewards: ArrayLike<number>, groupSize: number): number {
  return Math.ceil(rewards.length / groupSize) - informativeGroups(rewards, groupSize).length;
}

/** The indices of the groups (of `groupSize` consecutive rewards) whose rewards are not all equal, in order. */
export function informativeGroups(rewards: ArrayLike<number>, groupSize: number): number[] {
  const out: number[] = [];
  for (let start = 0, g = 0; start < rewards.length; start += groupSize, g++) {
    let same = true;
    for (let i = 1; i < groupSize && same; i++) same = rewards[start + i] === rewards[start];
    if (!same) out.push(g);
  }
  return out;
}
