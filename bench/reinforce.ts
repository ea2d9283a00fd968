// REINFORCE on CartPole, end to end through train(), against issue 15's target: "RLOO on
// CartPole reaches a mean-20 return >= 475 within 500k steps". For examples/cartpole-rloo.rlx
// (stop: train.mean_return >= 475) and seeds 1-3: the step and the wall time at which the mean
// of the last 20 training returns first reached 475, capped at the 500k budget; then the same
// plan with the other baselines, for comparison. With Adam and a fixed group size, `mean` and
// `leave_one_out` differ only by the factor n / (n - 1) on the gradient, which Adam's
// normalisation (and clipping to max_grad_norm) takes out: expect (nearly) the same figures.
// Run: npm run bench -- reinforce   (or node out/bench/reinforce.js)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { planFile } from '../cli/commands/plan.js';
import type { Plan } from '../dsl/compile/plan.js';
import { train } from '../runtime/train.js';
import { report } from './stats.js';

const EXAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples/cartpole-rloo.rlx');
const SEEDS = [1, 2, 3];
const TARGET_STEPS = 500_000;

const k = (n: number) => `${(n / 1000).toFixed(1)}k`;

/** One seed's run: where it reached 475, or the step it ended at without. */
async function runSeed(plan: Plan, out: string, seed: number): Promise<string> {
  const start = performance.now();
  let sps = 0;
  const result = await train(plan, { seed, out, device: 'cpu', onProgress: (p) => (sps = p.sps) });
  const seconds = (performance.now() - start) / 1000;
  const reached = result.reason.startsWith('stop condition');
  const verdict = reached && result.step <= TARGET_STEPS ? 'within target' : 'MISSES the target';
  const outcome = reached ? `475 at ${k(result.step)} steps, ${seconds.toFixed(2)} s` : `not reached within ${k(result.step)} steps (mean-20 ${result.metrics['train/mean_return']?.toFixed(1)}), ${seconds.toFixed(2)} s`;
  return `${outcome} (${k(sps)} steps/s; ${verdict})`;
}

export async function benchReinforce(): Promise<void> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-bench-'));
  try {
    const [plan] = planFile(EXAMPLE);
    const stage = plan.stages[0]!;
    console.log(`\nREINFORCE on CartPole, ${os.cpus().length} CPU(s) (${os.cpus()[0]?.model ?? 'unknown'}), seeds ${SEEDS.join(', ')}; figures vary with other load on the machine`);
    for (const baseline of ['leave_one_out', 'mean', 'none'] as const) {
      const withBaseline: Plan = { ...plan, stages: [{ ...stage, algorithm: { ...stage.algorithm, params: { ...stage.algorithm.params, baseline } } }] };
      const rows: [string, string][] = [];
      for (const seed of SEEDS) rows.push([`seed ${seed}`, await runSeed(withBaseline, out, seed)]);
      const title = baseline === 'leave_one_out' ? 'RLOO (examples/cartpole-rloo.rlx), target: 475 within 500k steps' : `baseline: ${baseline} (otherwise the example)`;
      report(title, rows);
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

// `node out/bench/reinforce.js` runs it alone.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await benchReinforce();
