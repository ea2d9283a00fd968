// PPO with CleanRL's ppo.py settings (examples/cartpole.rlx: 4 envs x 128 steps, 4 epochs x 4
// minibatches) on gymnasium("CartPole-v1") in Python workers, 4 copies in 1 process and 2 in each
// of 2, beside the same PPO on rlx's built-in CartPole, against CleanRL's ppo.py on the same env
// (peers.ts), run in turn round by round (the peer, then ours), steps/s of each and the ratios.
// Budget RLX_BENCH_PPO_STEPS (default 20480) for every run: a speed comparison, not a learning one
// (bench/ppo.ts has the runs to 475). Part of `npm run bench -- python-env`.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plan } from '../dsl/compile/plan.js';
import { planFile } from '../cli/commands/plan.js';
import { MIN_CORES_FOR_THREADS } from '../runtime/tensor/index.js';
import { train } from '../runtime/train.js';
import { cleanrlPpo, peersMissing } from './peers.js';
import { spread } from './stats.js';

const EXAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples');

interface Case {
  readonly name: string;
  readonly plan: Plan;
}

/** examples/cartpole.rlx for `steps` steps, no eval and no stop, on the built-in CartPole and on gymnasium("CartPole-v1") with 4 and 2 copies a process. */
function cases(steps: number): Case[] {
  const [example] = planFile(path.join(EXAMPLES, 'cartpole.rlx'));
  const builtin: Plan = { ...example, eval: null, stop: null, stages: example.stages.map((stage) => ({ ...stage, budget: steps })) };
  const gymnasium = (copiesPerProcess: number): Plan => ({
    ...builtin,
    env: { name: 'Cart', kind: 'gymnasium', params: { id: 'CartPole-v1', max_steps: 500, imports: [], python: '', env_timeout: 30, copies_per_process: copiesPerProcess } },
  });
  return [
    { name: 'rlx, built-in CartPole', plan: builtin },
    { name: 'rlx, gymnasium("CartPole-v1"), 1 process x 4', plan: gymnasium(4) },
    { name: 'rlx, gymnasium("CartPole-v1"), 2 processes x 2', plan: gymnasium(2) },
  ];
}

/** Steps per second of one training run as `rlx train` runs it here (gradients on two threads with two cores or more). */
async function trainSps(plan: Plan, out: string, seed: number): Promise<number> {
  let sps = 0;
  await train(plan, { seed, out, device: 'cpu', compute: { threads: os.availableParallelism() >= MIN_CORES_FOR_THREADS }, onProgress: (p) => (sps = p.sps) });
  return sps;
}

const k = (x: number) => `${(x / 1000).toFixed(2)}k`;

/** `python` runs the workers with `workerEnv` (its PYTHONPATH holds the vendored Gymnasium). */
export async function benchPythonEnvPpo(python: string, workerEnv: NodeJS.ProcessEnv): Promise<void> {
  const steps = Number(process.env.RLX_BENCH_PPO_STEPS ?? 20480);
  const rounds = Math.max(1, Number(process.env.RLX_BENCH_PPO_ROUNDS ?? 2));
  const missing = peersMissing();
  console.log(`\n== python-env: PPO, CleanRL's ppo.py settings, ${k(steps)} steps a run, ${rounds} rounds in turn (CleanRL, then ours); steps/s, median (range)`);
  const runs = cases(steps);
  const figures = runs.map(() => [] as number[]);
  const cleanrl: number[] = [];
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-bench-'));
  // The trainer starts its workers with this process's environment.
  const previous = { PYTHONPATH: process.env.PYTHONPATH, RLX_PYTHON: process.env.RLX_PYTHON };
  process.env.PYTHONPATH = workerEnv.PYTHONPATH;
  process.env.RLX_PYTHON = python;
  try {
    // Untimed: the first run of the process pays for loading onnxruntime and compiling the code.
    await trainSps(cases(2048)[0]!.plan, out, 0);
    for (let round = 0; round < rounds; round++) {
      const seed = round + 1;
      if (missing === null) cleanrl.push((await cleanrlPpo(seed, steps)).sps);
      for (const [i, run] of runs.entries()) figures[i]!.push(await trainSps(run.plan, out, seed));
    }
  } finally {
    for (const [key, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    fs.rmSync(out, { recursive: true, force: true });
  }
  const width = Math.max(...runs.map((run) => run.name.length), 'CleanRL ppo.py (SyncVectorEnv, 4 envs)'.length);
  if (missing === null) console.log(`  ${'CleanRL ppo.py (SyncVectorEnv, 4 envs)'.padEnd(width)}  ${spread(cleanrl, k)}`);
  runs.forEach((run, i) => {
    // Ratios per round: each compares runs made one after the other.
    const ratio = missing === null ? `, ${spread(figures[i]!.map((sps, r) => sps / cleanrl[r]!), (x) => `${x.toFixed(1)}x`)} CleanRL's` : '';
    console.log(`  ${run.name.padEnd(width)}  ${spread(figures[i]!, k)}${ratio}`);
  });
  if (missing !== null) console.log(`  CleanRL ppo.py not run: ${missing}`);
  else console.log('  target: gymnasium("CartPole-v1") at least 5x CleanRL\'s steps/s, with 1 and 2 processes');
}
