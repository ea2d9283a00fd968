// What the Python env bridge (runtime/envs/python/) costs, in one run, side by side:
// - steps/s of gymnasium("CartPole-v1") stepped through rlx's VecEnv at 1, 8 and 64 copies (one
//   worker process), against Gymnasium's SyncVectorEnv stepping the same copies in-process in
//   Python (bench/python-env/sync_vector_env.py), beside rlx's built-in CartPole; the three
//   cases measured in turn, RLX_BENCH_REPEATS rounds (default 3), so that each round's ratio
//   compares runs that saw the same machine; the median and the range are printed;
// - PPO with CleanRL's settings on gymnasium("CartPole-v1") against CleanRL's ppo.py
//   (python-env-ppo.ts).
// Uses the Gymnasium the project vendors (bench/peers/vendor).
// Run: npm run bench -- python-env   (RLX_BENCH_SECONDS per case, default 2)
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PythonEnvs } from '../runtime/envs/python/python-env.js';
import { pythonCommand } from '../runtime/envs/python/python-env-plan.js';
import { makeVecEnv } from '../runtime/envs/registry.js';
import { VecEnv } from '../runtime/envs/vector.js';
import { benchPythonEnvPpo } from './python-env-ppo.js';
import { spread } from './stats.js';
import { measure } from './vec-rate.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COPIES = [1, 8, 64];

/** The environment the workers and the SyncVectorEnv script run in: the vendored Gymnasium on PYTHONPATH. */
export function pythonEnv(): NodeJS.ProcessEnv {
  const paths = [path.join(ROOT, 'bench/peers/vendor'), path.join(ROOT, 'bench/peers/shims')];
  return { ...process.env, PYTHONPATH: paths.join(path.delimiter) };
}

function syncVectorEnv(python: string, copies: number, seconds: number): number | string {
  const script = path.join(ROOT, 'bench/python-env/sync_vector_env.py');
  const out = spawnSync(python, [script, 'CartPole-v1', String(copies), String(seconds)], { env: pythonEnv(), encoding: 'utf8', timeout: (seconds + 60) * 1000 });
  if (out.status !== 0) return `failed: ${(out.stderr || String(out.error)).trim().split('\n').pop()}`;
  return Number(out.stdout.trim());
}

function bridge(python: string, copies: number, seconds: number): number {
  const envs = new PythonEnvs({ name: 'Cart', id: 'CartPole-v1', kwargs: {}, imports: [], maxSteps: 0, python, timeoutSeconds: 30, copiesPerProcess: copies, processEnv: pythonEnv() });
  try {
    return measure(VecEnv.create(() => envs.create(), copies), seconds);
  } finally {
    envs.close();
  }
}

const fmt = (x: number) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : `${(x / 1e3).toFixed(1)}k`);

export async function benchPythonEnv(): Promise<void> {
  const seconds = Number(process.env.RLX_BENCH_SECONDS ?? 2);
  const rounds = Math.max(1, Number(process.env.RLX_BENCH_REPEATS ?? 3));
  const python = pythonCommand('');
  const probe = spawnSync(python, ['-c', 'import numpy, gymnasium'], { env: pythonEnv(), encoding: 'utf8' });
  console.log(`\n== python-env: gymnasium("CartPole-v1") through the bridge vs SyncVectorEnv in Python (${python}); median (range) of ${rounds} rounds of ${seconds} s a case`);
  if (probe.status !== 0) {
    console.log(`skipped: ${python} cannot import numpy and the vendored gymnasium (${(probe.stderr || String(probe.error)).trim().split('\n').pop()})`);
    return;
  }
  const figures = COPIES.map(() => ({ bridge: [] as number[], sync: [] as number[], ratio: [] as number[], builtin: [] as number[], failed: '' }));
  for (let round = 0; round < rounds; round++) {
    COPIES.forEach((copies, i) => {
      const row = figures[i]!;
      const ours = bridge(python, copies, seconds);
      const sync = syncVectorEnv(python, copies, seconds);
      row.builtin.push(measure(makeVecEnv('CartPole', {}, copies), seconds));
      row.bridge.push(ours);
      if (typeof sync === 'number') {
        row.sync.push(sync);
        row.ratio.push(sync / ours);
      } else {
        row.failed = sync;
      }
    });
  }
  console.log('copies  bridge steps/s          SyncVectorEnv steps/s   bridge/SyncVectorEnv time  built-in CartPole steps/s');
  COPIES.forEach((copies, i) => {
    const row = figures[i]!;
    const sync = row.sync.length > 0 ? spread(row.sync, fmt) : row.failed;
    const ratio = row.ratio.length > 0 ? spread(row.ratio, (x) => `${x.toFixed(2)}x`) : '-';
    console.log(`${String(copies).padStart(6)}  ${spread(row.bridge, fmt).padEnd(22)}  ${sync.padEnd(22)}  ${ratio.padEnd(25)}  ${spread(row.builtin, fmt)}`);
  });
  console.log('target: bridge/SyncVectorEnv time within 1.5x at every size');
  await benchPythonEnvPpo(python, pythonEnv());
}
