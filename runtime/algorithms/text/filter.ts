// The filter step of the text policy-gradient learner (policy-gradient.ts), between collecting
// the groups and their advantages. Today it keeps every group and counts those whose rewards are
// all equal (their advantages are 0: they teach nothing but the KL term), which the learner
// reports as `charts/zero_advantage_groups`; it is where dropping such groups (DAPO's dynamic
// sampling) belongs.

/** The number of groups (of `groupSize` consecutive rewards) whose rewards are all equal. */
export function flatGroups(rewards: ArrayLike<number>, groupSize: number): number {
  let flat = 0;
  for (let start = 0; start < rewards.length; start += groupSize) {
    let same = true;
    for (let i = 1; i < groupSize && same; i++) same = rewards[start + i] === rewards[start];
    if (same) flat++;
  }
  return flat;
}
