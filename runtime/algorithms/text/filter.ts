// The filter step of the text policy-gradient learner (policy-gradient.ts), between collecting
// the groups and their advantages. Groups whose rewards are all equal have advantages of 0 under
// GRPO's baselines (advantages.ts): they teach nothing but the KL term. With dynamic sampling
// (DAPO, Yu et al. 2025) collect.ts keeps only the other groups, the informative ones, and
// samples more in their place.
//
// The learner reports the share of groups that taught nothing, `charts/zero_advantage_groups`,
// from the advantages the loss is fed, not from the rewards: with `credit: turn` a group whose
// dialogues' returns are equal may still credit its turns differently, and REINFORCE's
// `baseline: none` gives equal rewards advantages that are not 0.

/** The number of groups (of `groupSize` consecutive rows of `width` tokens) whose every token's advantage is 0. */
export function zeroAdvantageGroups(perToken: ArrayLike<number>, width: number, groupSize: number): number {
  const span = width * groupSize;
  let count = 0;
  for (let start = 0; start < perToken.length; start += span) {
    let zero = true;
    for (let i = start; i < Math.min(start + span, perToken.length) && zero; i++) zero = perToken[i] === 0;
    if (zero) count++;
  }
  return count;
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
