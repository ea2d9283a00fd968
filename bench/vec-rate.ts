// How fast a vector env steps, for the env benches (module-env.ts, python-env.ts).
import type { VecEnv } from '../runtime/envs/vector.js';

/** Env steps per second (copies x vector steps) of `vec` under alternating actions, after a 200 ms warm-up. */
export function measure(vec: VecEnv, seconds: number): number {
  const actions = vec.createActionBuffer();
  vec.reset(1);
  const run = (until: number) => {
    let steps = 0;
    while (performance.now() < until) {
      for (let i = 0; i < 100; i++) {
        for (let k = 0; k < actions.length; k++) actions[k] = (steps + k) & 1;
        vec.step(actions);
        steps += vec.numEnvs;
      }
    }
    return steps;
  };
  run(performance.now() + 200);
  const start = performance.now();
  const steps = run(start + seconds * 1000);
  return steps / ((performance.now() - start) / 1000);
}
