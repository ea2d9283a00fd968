// How many members a sweep may have, and how they are counted: the checker warns and refuses at
// the sweep's name with these, and the compiler counts the members it expands with the same
// function, so the number a user is told is the number that would train.

/** Members above this make the checker warn: each is a training run (times its seeds). */
export const SWEEP_MEMBERS_WARN = 10_000;
/** Members above this are an error: nobody trains that many, and a typo (a list of 1000 where 10 was meant) is likelier. */
export const SWEEP_MEMBERS_MAX = 1_000_000;

/** How many members a sweep has: every combination (grid), or `samples` distinct ones of them (random). */
export function sweepMemberCount(axisLengths: readonly number[], randomSamples: number | undefined): number {
  const total = axisLengths.reduce((n, k) => n * k, 1);
  return randomSamples === undefined ? total : Math.min(randomSamples, total);
}
