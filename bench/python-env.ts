// What the Python env bridge (runtime/envs/python/) costs: steps/s of gymnasium("CartPole-v1")
// stepped through rlx's VecEnv at 1, 8 and 64 copies (one worker process), against Gymnasium's
// SyncVectorEnv stepping the same copies in-process in Python (bench/python-env/sync_vector_env.py),
// beside rlx's built-in CartPole. Uses the Gymnasium the project vendors (bench/peers/vendor).
// Run: npm run bench -- python-env   (RLX_BENCH_SECONDS per case, default 2)
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PythonEnvs } from '../runtime/envs/python/python-env.js';
import { pythonCommand } from '../runtime/envs/python/python-env-plan.js';
import { makeVecEnv } from '../runtime/envs/registry.js';
import { VecEnv } from '../runtime/envs/vector.js';
import { measure } from './vec-rate.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COPIES = [1, 8, 64];

function pythonEnv(): NodeJS.ProcessEnv {
  const paths = [path.join(ROOT, 'bench/peers/vendor'), path.join(ROOT, 'bench/peers/shims')];
  return { ...process.env, PYTHONPATH: paths.join(path.delimiter) };
}


function syncVectorEnv(python: string, copies: number, seconds: number): number | string {
  const script = path.join(ROOT, 'bench/python-env/sync_vector_env.py');
  const out = spawnSync(python, [script, 'CartPole-v1', String(copies), String(seconds)], { env: pythonEnv(), encoding: 'utf8', timeout: (seconds + 60) * 1000 });
  if (out.status !== 0) return `failed: ${(out.stderr || String(out.error)).trim().split('\n').pop()}`;
  return Number(out.stdout.trim());
}

const fmt = (x: number) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : `${(x / 1e3).toFixed(1)}k`);

export async function benchPythonEnv(): Promise<void> {
  const seconds = Number(process.env.RLX_BENCH_SECONDS ?? 2);
  const python = pythonCommand('');
  const probe = spawnSync(python, ['-c', 'import numpy, gymnasium'], { env: pythonEnv(), encoding: 'utf8' });
  console.log(`\n== python-env: gymnasium("CartPole-v1") through the bridge vs SyncVectorEnv in Python (${python}) ==`);
  if (probe.status !== 0) {
    console.log(`skipped: ${python} cannot import numpy and the vendored gymnasium (${(probe.stderr || String(probe.error)).trim().split('\n').pop()})`);
    return;
  }
  console.log('copies  bridge steps/s  SyncVectorEnv steps/s  bridge/SyncVectorEnv time  built-in CartPole steps/s');
  for (const copies of COPIES) {
    const envs = new PythonEnvs({ name: 'Cart', id: 'CartPole-v1', kwargs: {}, imports: [], maxSteps: 0, python, timeoutSeconds: 30, copiesPerProcess: copies, processEnv: pythonEnv() });
    let bridge: number;
    try {
      bridge = measure(VecEnv.create(() => envs.create(), copies), seconds);
    } finally {
      envs.close();
    }
    const sync = syncVectorEnv(python, copies, seconds);
    const builtin = measure(makeVecEnv('CartPole', {}, copies), seconds);
    const ratio = typeof sync === 'number' ? `${(sync / bridge).toFixed(2)}x` : '-';
    console.log(`${String(copies).padStart(6)}  ${fmt(bridge).padStart(14)}  ${(typeof sync === 'number' ? fmt(sync) : sync).padStart(21)}  ${ratio.padStart(25)}  ${fmt(builtin).padStart(25)}`);
  }
}
