// Small batch statistics the learners share.

/** (x - mean) / (std + 1e-8) over the first n entries, std with Bessel's correction as torch.std. */
export function normalize(x: Float32Array, n: number): void {
  if (n < 2) return;
  let mean = 0;
  for (let j = 0; j < n; j++) mean += x[j];
  mean /= n;
  let variance = 0;
  for (let j = 0; j < n; j++) variance += (x[j] - mean) * (x[j] - mean);
  const std = Math.sqrt(variance / (n - 1));
  for (let j = 0; j < n; j++) x[j] = (x[j] - mean) / (std + 1e-8);
}

/** 1 - Var(returns - values) / Var(returns); NaN when the returns do not vary. */
export function explainedVariance(values: Float32Array, returns: Float32Array): number {
  const n = values.length;
  let mean = 0;
  let meanDiff = 0;
  for (let b = 0; b < n; b++) {
    mean += returns[b];
    meanDiff += returns[b] - values[b];
  }
  mean /= n;
  meanDiff /= n;
  let varY = 0;
  let varDiff = 0;
  for (let b = 0; b < n; b++) {
    varY += (returns[b] - mean) ** 2;
    varDiff += (returns[b] - values[b] - meanDiff) ** 2;
  }
  return varY === 0 ? NaN : 1 - varDiff / varY;
}
