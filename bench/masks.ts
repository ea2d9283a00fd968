// Masked against unmasked PPO on FreeSlots (examples/free-slots-masked.rlx: 8 slots, about half
// taken; a taken slot is an illegal action that ends the episode with reward -1), issue 44's
// target: "masked PPO never takes an illegal action and learns faster than unmasked". For
// seeds 1-3 and action_mask auto / off: the illegal actions taken, the share of episodes that
// ended on one, the mean return of each tenth of the budget (what the episodes that ended in it
// returned; a perfect policy returns the number of free slots, 4 on average), and the step
// at which the episodes of a window of 2k steps first had no illegal action in 1 of 20.
// Run: npm run bench -- masks
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { planFile } from '../cli/commands/plan.js';
import { Ppo } from '../runtime/algorithms/ppo/ppo.js';
import { ppoSettings } from '../runtime/algorithms/ppo/settings.js';
import { Stepper } from '../runtime/algorithms/stepper.js';
import { makeVecEnv } from '../runtime/envs/registry.js';
import { PolicyFactory, policySpaces } from '../runtime/policies/index.js';
import { Rng } from '../shared/random.js';

const EXAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples/free-slots-masked.rlx');
const SEEDS = [1, 2, 3];
const WINDOW = 2000;

interface Outcome {
  illegal: number;
  steps: number;
  episodes: number;
  /** Mean return of the episodes that ended in each tenth of the budget. */
  curve: number[];
  /** Where the first window of WINDOW steps began whose episodes ended on an illegal action less than 5% of the time; null: never. */
  cleanAt: number | null;
  seconds: number;
}

async function runSeed(mask: 'auto' | 'off', seed: number): Promise<Outcome> {
  const [plan] = planFile(EXAMPLE, 'PickFree');
  const stage = plan!.stages[0]!;
  const budget = stage.budget!;
  const vec = makeVecEnv(plan!.env.kind, plan!.env.params as Record<string, unknown>, plan!.envs);
  const outcome: Outcome = { illegal: 0, steps: 0, episodes: 0, curve: [], cleanAt: null, seconds: 0 };
  // Each illegal action ends its episode: counted here, against the mask the env gave.
  let windowIllegal = 0;
  const step = vec.step.bind(vec);
  vec.step = (actions) => {
    const masks = vec.actionMasks!;
    const n = masks.length / vec.numEnvs;
    for (let i = 0; i < vec.numEnvs; i++) {
      if (masks[i * n + actions[i]!] === 1) continue;
      outcome.illegal++;
      windowIllegal++;
    }
    outcome.steps += vec.numEnvs;
    step(actions);
  };
  const stepper = new Stepper(vec, null);
  stepper.reset(seed);
  const rng = new Rng(seed);
  const policy = new PolicyFactory(plan!.policy, policySpaces(vec.observationSpace, vec.actionSpace as { kind: 'discrete'; n: number }), rng.fork('policy'));
  const ppo = await Ppo.create({ policy, stepper, budget, rng: rng.fork('PPO'), compute: { providers: ['cpu'], threads: false } }, ppoSettings({ ...stage.algorithm.params, action_mask: mask }));
  const tenths = Array.from({ length: 10 }, () => ({ sum: 0, count: 0 }));
  let window = { start: 0, episodes: 0 };
  const start = performance.now();
  try {
    while (!ppo.done) {
      await ppo.iterate();
      for (const episode of stepper.takeEpisodes()) {
        outcome.episodes++;
        const tenth = tenths[Math.min(9, Math.floor((10 * ppo.globalStep) / budget))]!;
        tenth.sum += episode.return;
        tenth.count++;
        window.episodes++;
      }
      if (ppo.globalStep - window.start >= WINDOW) {
        if (outcome.cleanAt === null && window.episodes > 0 && windowIllegal / window.episodes < 0.05) outcome.cleanAt = window.start;
        window = { start: ppo.globalStep, episodes: 0 };
        windowIllegal = 0;
      }
    }
  } finally {
    await ppo.release();
  }
  outcome.seconds = (performance.now() - start) / 1000;
  outcome.curve = tenths.map((t) => (t.count > 0 ? t.sum / t.count : NaN));
  return outcome;
}

export async function benchMasks(): Promise<void> {
  console.log('masked vs unmasked PPO on FreeSlots (examples/free-slots-masked.rlx): illegal actions, mean return per tenth of the budget');
  for (const mask of ['auto', 'off'] as const) {
    for (const seed of SEEDS) {
      const o = await runSeed(mask, seed);
      const share = o.episodes > 0 ? ((100 * o.illegal) / o.episodes).toFixed(1) : '-';
      const clean = o.cleanAt === null ? 'never' : `${(o.cleanAt / 1000).toFixed(1)}k`;
      console.log(
        `  action_mask ${mask.padEnd(4)} seed ${seed}: ${o.illegal} illegal actions in ${o.steps} steps, ${share}% of ${o.episodes} episodes ended on one; ` +
          `under 5% from ${clean}; returns ${o.curve.map((r) => r.toFixed(2)).join(' ')} (${o.seconds.toFixed(1)} s)`,
      );
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchMasks();
