// A random minibatch of PPO's CartPole gradient step (4 observations, 2 actions one-hot), in the
// feed names of ppoGradientStep's graph: for comparing providers and timing gradient steps.
import type { Rng } from '../../shared/random.js';

export function ppoMinibatch(rows: number, rng: Rng) {
  const uniform = (n: number, lo: number, hi: number) => Float32Array.from({ length: n }, () => rng.uniformRange(lo, hi));
  const action = new Float32Array(rows * 2);
  for (let r = 0; r < rows; r++) action[r * 2 + rng.int(2)] = 1;
  return {
    obs: { data: uniform(rows * 4, -2, 2), dims: [rows, 4] },
    action: { data: action, dims: [rows, 2] },
    old_logprob: uniform(rows, -1.2, -0.3),
    advantages: uniform(rows, -2, 2),
    returns: uniform(rows, -1, 1),
    old_values: uniform(rows, -0.6, 0.6),
    clip_coef: new Float32Array([0.2]),
    ent_coef: new Float32Array([0.01]),
    inv_n: new Float32Array([1 / rows]),
  };
}
