// `npm run bench -- dqn-zoo` (a few minutes a seed): examples/cartpole-dqn.rlx, rl-zoo's CartPole-v1
// DQN settings, beside SB3 2.3.2's DQN with the same settings (bench/peers/run_sb3_dqn.py), seed
// by seed, interleaved (SB3, rlx, SB3, rlx, ...), in one sitting. Each side trains the whole 50k
// steps and is scored as rl-zoo scores it: the mean return of 10 greedy episodes of the final
// model; the evaluations every 10k on the way show how much the greedy policy swings between
// them. Wall times run from the start of training to the end of the final evaluation, the
// evaluations included on both sides (rlx's also includes its set-up); the ratio is SB3's over
// ours. BENCH_DQN_ZOO_SEEDS=2 (a comma list) runs fewer seeds, for a quick check.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { planFile } from '../cli/commands/plan.js';
import { readEvents } from '../runtime/run/events.js';
import { train } from '../runtime/train.js';
import { peersMissing, sb3ZooDqnEvaluated, type Sb3DqnZooRun } from './peers.js';

const EXAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples/cartpole-dqn.rlx');
const SEEDS = (process.env.BENCH_DQN_ZOO_SEEDS ?? '1,2,3').split(',').map(Number);

interface OurRun {
  readonly evalMean: number;
  readonly evals: readonly (readonly [number, number])[];
  readonly seconds: number;
  readonly mean20: number;
}

async function ours(out: string, seed: number): Promise<OurRun> {
  const plan = planFile(EXAMPLE).at(0);
  if (!plan.eval) throw new Error('examples/cartpole-dqn.rlx has no eval block: the bench scores its final evaluation');
  const start = performance.now();
  const result = await train(plan, { out, seed, device: 'cpu' });
  const seconds = (performance.now() - start) / 1000;
  const evals = readEvents(path.join(result.runDir, 'events.jsonl')).filter((e) => e.type === 'eval');
  const last = evals.at(-1);
  if (!last || last.step !== result.step) throw new Error(`seed ${seed}: no evaluation at the end of the run (step ${result.step})`);
  return {
    evalMean: last.values['eval/mean_return']!,
    evals: evals.map((e) => [e.step, e.values['eval/mean_return']!] as const),
    seconds,
    mean20: result.metrics['train/mean_return'] ?? NaN,
  };
}

const curve = (evals: readonly (readonly [number, number])[]) => evals.map(([, m]) => m.toFixed(0)).join(' ');
const fixed = (x: number | null | undefined, digits = 1) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(digits));

export async function benchDqnZoo(): Promise<void> {
  const missing = peersMissing();
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-bench-dqn-zoo-'));
  console.log(`\nDQN, rl-zoo's CartPole-v1 settings (examples/cartpole-dqn.rlx) vs SB3 2.3.2; ${os.cpus().length} CPU(s), load ${os.loadavg()[0]!.toFixed(1)}; seeds ${SEEDS.join(', ')}`);
  if (missing) console.log(`SB3 not run: ${missing}`);
  const rows: { seed: number; sb3: Sb3DqnZooRun | null; rlx: OurRun }[] = [];
  try {
    for (const seed of SEEDS) {
      const sb3 = missing ? null : await sb3ZooDqnEvaluated(seed, 10, 10_000);
      const rlx = await ours(out, seed);
      rows.push({ seed, sb3, rlx });
      console.log(`  seed ${seed} done: SB3 ${fixed(sb3?.evalMean)} (${fixed(sb3?.wallWithEvals, 0)} s), rlx ${fixed(rlx.evalMean)} (${rlx.seconds.toFixed(0)} s)`);
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
  console.log('\n== final eval: mean return of 10 greedy episodes of the final model (500 is the most)');
  console.log('  seed | SB3 eval | rlx eval | SB3 evals 10k..50k, final | rlx evals 10k..50k | SB3 mean-20 | rlx mean-20 | SB3 s | rlx s | SB3 s / rlx s');
  for (const { seed, sb3, rlx } of rows) {
    const cells = [
      String(seed).padStart(4),
      fixed(sb3?.evalMean).padStart(8),
      fixed(rlx.evalMean).padStart(8),
      (sb3 ? `${curve(sb3.evals)}, ${sb3.evalMean.toFixed(0)}` : 'n/a').padEnd(25),
      curve(rlx.evals).padEnd(17),
      fixed(sb3?.mean20).padStart(11),
      fixed(rlx.mean20).padStart(11),
      fixed(sb3?.wallWithEvals, 0).padStart(5),
      rlx.seconds.toFixed(0).padStart(5),
      sb3 ? (sb3.wallWithEvals / rlx.seconds).toFixed(2) : 'n/a',
    ];
    console.log(`  ${cells.join(' | ')}`);
  }
  const at500 = (xs: readonly number[]) => xs.filter((x) => x >= 500).length;
  const sb3Finals = rows.flatMap((r) => (r.sb3 ? [r.sb3.evalMean] : []));
  const rlxFinals = rows.map((r) => r.rlx.evalMean);
  console.log(`  final evals at 500: SB3 ${missing ? 'n/a' : `${at500(sb3Finals)} of ${sb3Finals.length}`}, rlx ${at500(rlxFinals)} of ${rlxFinals.length}`);
  const allEvals = (evals: readonly (readonly [number, number])[][]) => evals.flat().map(([, m]) => m);
  const sb3All = allEvals(rows.flatMap((r) => (r.sb3 ? [[...r.sb3.evals, [r.sb3.stepsDone, r.sb3.evalMean] as const]] : [])));
  const rlxAll = allEvals(rows.map((r) => [...r.rlx.evals]));
  if (sb3All.length > 0) console.log(`  every evaluation at 500: SB3 ${at500(sb3All)} of ${sb3All.length}, rlx ${at500(rlxAll)} of ${rlxAll.length}`);
}
