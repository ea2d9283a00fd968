// Exponential moving average as TensorBoard draws it: debiased, so the first points are not
// pulled towards zero, and missing values (NaN) skipped without resetting the average.

export interface EmaState {
  /** The running average before bias correction. */
  last: number;
  /** weight^n after n finite values: the bias correction is 1 - decay. */
  decay: number;
}

export const emptyEma = (): EmaState => ({ last: 0, decay: 1 });

/**
 * Smooths ys[from .. to) into out[from .. to), continuing `state` (which it updates), so a
 * growing series is smoothed in O(new points). `weight` 0 copies, 0.99 smooths heavily.
 * A NaN input gives NaN out.
 */
export function emaInto(ys: ArrayLike<number>, out: Float64Array, from: number, to: number, weight: number, state: EmaState): void {
  for (let i = from; i < to; i++) {
    const y = ys[i];
    if (!Number.isFinite(y)) {
      out[i] = NaN;
      continue;
    }
    if (weight === 0) {
      out[i] = y;
      continue;
    }
    state.last = state.last * weight + (1 - weight) * y;
    // Kept as a running product: Math.pow per point is most of the cost on long series.
    state.decay *= weight;
    out[i] = state.last / (1 - state.decay);
  }
}

/** The EMA of a whole series, as a new array (tests, small series). */
export function ema(ys: ArrayLike<number>, weight: number): Float64Array {
  const out = new Float64Array(ys.length);
  emaInto(ys, out, 0, ys.length, weight, emptyEma());
  return out;
}
