// The Stepper's own cost per vectorised step (8 CartPole copies), with and without reward
// terms: what the algorithms pay for reward shaping, episode bookkeeping and the checks for
// NaN and infinities on every new observation, reward and term.
// Run: npx tsc -p . && node out/bench/stepper.js [seconds per case, default 2]
import { Stepper } from '../runtime/algorithms/stepper.js';
import { makeVecEnv } from '../runtime/envs/registry.js';
import { compileReward } from '../runtime/rewards/index.js';
import { Rng } from '../shared/random.js';

const secondsPerCase = Number(process.argv[2] ?? 2);
const copies = 8;

function measure(withReward: boolean): number {
  const vec = makeVecEnv('CartPole', {}, copies);
  const reward = withReward
    ? compileReward(
      {
        name: 'Upright',
        replace_env_reward: true,
        terms: [
          { name: 'alive', expr: { const: 1 } },
          { name: 'tilt', expr: { op: '*', args: [{ const: -0.1 }, { call: 'abs', args: [{ ref: 'next_obs.theta' }] }] } },
        ],
      },
      { kind: vec.kind, obsFields: vec.obsFields, actionSpace: vec.actionSpace },
    )
    : null;
  const stepper = new Stepper(vec, reward);
  stepper.reset(1);
  const rng = new Rng(2);
  const table = Int32Array.from({ length: 1 << 16 }, () => rng.int(2));
  const actions = new Int32Array(copies);
  let cursor = 0;
  const run = (until: number) => {
    let steps = 0;
    while (performance.now() < until) {
      for (let i = 0; i < 1000; i++) {
        for (let k = 0; k < copies; k++) actions[k] = table[(cursor + k) & 0xffff];
        cursor = (cursor + copies) & 0xffff;
        stepper.step(actions);
      }
      stepper.takeEpisodes();
      steps += 1000 * copies;
    }
    return steps;
  };
  run(performance.now() + 300);
  const start = performance.now();
  const steps = run(start + secondsPerCase * 1000);
  return steps / ((performance.now() - start) / 1000);
}

for (const withReward of [false, true]) {
  const rate = measure(withReward);
  console.log(`Stepper, ${copies} CartPole copies${withReward ? ', 2 reward terms' : ''}: ${(rate / 1e6).toFixed(2)} M env steps/s (${(1e9 / rate).toFixed(1)} ns per env step)`);
}
