// Monte-Carlo returns and the baselines subtracted from them (the registry's `baseline`).
// A sample is one episode here (one completion for a text policy): its return is the
// discounted sum of its rewards, and every step of it shares its advantage.
import type { Baseline } from './settings.js';

/** An episode's Monte-Carlo return, sum_t gamma^t r_t, over its first `length` rewards; no bootstrap. */
export function discountedReturn(rewards: ArrayLike<number>, length: number, gamma: number): number {
  let g = 0;
  for (let t = length - 1; t >= 0; t--) g = rewards[t] + gamma * g;
  return g;
}

/**
 * Each sample's return minus its baseline, written to `out`:
 * - `none`: the return itself;
 * - `mean`: minus the mean return of the group (the sample's own included);
 * - `leave_one_out`: minus the mean return of the group's OTHER samples (RLOO, Kool et al.
 *   2019): the baseline does not depend on the sample's own actions, so the estimate stays
 *   unbiased, which `mean` is not (it shrinks the gradient by (n - 1) / n).
 */
export function advantagesOf(returns: ArrayLike<number>, n: number, baseline: Baseline, out: Float64Array): Float64Array {
  if (baseline === 'leave_one_out' && n < 2) throw new Error(`a leave-one-out baseline needs at least 2 samples in a group, got ${n}`);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += returns[i];
  for (let i = 0; i < n; i++) {
    const g = returns[i];
    // The sum of the others is taken from the total: exact in float64 for any realistic returns.
    const b = baseline === 'none' ? 0 : baseline === 'mean' ? sum / n : (sum - g) / (n - 1);
    out[i] = g - b;
  }
  return out;
}
