// Parameter initialisers with a seeded generator, so runs are reproducible.

/** Standard normal samples (Box-Muller). */
export function normal(random: () => number, size: number, std = 1): Float32Array {
  const out = new Float32Array(size);
  for (let i = 0; i < size; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - random()));
    const theta = 2 * Math.PI * random();
    out[i] = std * r * Math.cos(theta);
    if (i + 1 < size) out[i + 1] = std * r * Math.sin(theta);
  }
  return out;
}

export function uniform(random: () => number, size: number, low: number, high: number): Float32Array {
  const out = new Float32Array(size);
  for (let i = 0; i < size; i++) out[i] = low + (high - low) * random();
  return out;
}

/** PyTorch's nn.Linear default: U(-1/sqrt(fanIn), 1/sqrt(fanIn)) for weights and biases alike. */
export function linearDefault(random: () => number, size: number, fanIn: number): Float32Array {
  const bound = 1 / Math.sqrt(fanIn);
  return uniform(random, size, -bound, bound);
}

/**
 * A [rows, cols] matrix with orthonormal rows or columns (whichever are fewer), times
 * `gain`: the initialisation CleanRL uses (gain sqrt(2) for hidden layers, 0.01 for the
 * policy head, 1 for the value head). Gram-Schmidt on a Gaussian matrix, which equals QR
 * with a positive-diagonal R, as torch.nn.init.orthogonal_ does.
 */
export function orthogonal(random: () => number, rows: number, cols: number, gain = 1): Float32Array {
  const tall = rows >= cols;
  const n = tall ? rows : cols; // vector length
  const k = tall ? cols : rows; // number of orthonormal vectors
  const g = normal(random, n * k);
  // The k vectors one after another in one array, with indexed loops: this runs once per
  // layer, mostly before the code is optimised, where iterators and many small arrays cost.
  const q = new Float64Array(n * k);
  for (let j = 0; j < k; j++) {
    const v = j * n;
    for (let i = 0; i < n; i++) q[v + i] = g[v + i]!;
    for (let u = 0; u < v; u += n) {
      let dot = 0;
      for (let i = 0; i < n; i++) dot += q[u + i]! * q[v + i]!;
      for (let i = 0; i < n; i++) q[v + i] -= dot * q[u + i]!;
    }
    let norm = 0;
    for (let i = 0; i < n; i++) norm += q[v + i]! * q[v + i]!;
    norm = Math.sqrt(norm);
    for (let i = 0; i < n; i++) q[v + i] /= norm;
  }
  const out = new Float32Array(rows * cols);
  for (let j = 0; j < k; j++) {
    for (let i = 0; i < n; i++) {
      // Tall: vector j is column j; wide: vector j is row j.
      out[tall ? i * cols + j : j * cols + i] = gain * q[j * n + i]!;
    }
  }
  return out;
}
