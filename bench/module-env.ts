// What running a user env module in its worker thread costs per step: the same module (a
// CartPole in plain JavaScript) stepped through VecEnv on the trainer's thread, as before
// the worker, and through the worker (module-host.ts), for 1 copy and for 8 (which VecEnv
// steps together: one round trip for all of them).
// Run: npx tsc -p . && node out/bench/module-env.js [seconds per case, default 2]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { envMaker } from '../runtime/envs/module-env.js';
import { loadEnvModule } from '../runtime/envs/user-module.js';
import { VecEnv } from '../runtime/envs/vector.js';
import { measure } from './vec-rate.js';

const secondsPerCase = Number(process.argv[2] ?? 2);

const MODULE = `
export default class Pole {
  observationSpace = { kind: 'box', shape: [4], low: [-4.8, -Infinity, -0.42, -Infinity], high: [4.8, Infinity, 0.42, Infinity] };
  actionSpace = { kind: 'discrete', n: 2 };
  maxSteps = 500;
  s = [0, 0, 0, 0];
  reset() { this.s = [0, 0, 0.01, 0]; return { obs: this.s.slice(), info: {} }; }
  step(a) {
    let [x, xd, t, td] = this.s;
    const f = a === 1 ? 10 : -10, c = Math.cos(t), s = Math.sin(t);
    const tmp = (f + 0.05 * td * td * s) / 1.1;
    const ta = (9.8 * s - c * tmp) / (0.5 * (4 / 3 - (0.1 * c * c) / 1.1));
    const xa = tmp - (0.05 * ta * c) / 1.1;
    x += 0.02 * xd; xd += 0.02 * xa; t += 0.02 * td; td += 0.02 * ta;
    this.s = [x, xd, t, td];
    const done = Math.abs(x) > 2.4 || Math.abs(t) > 0.2095;
    return { obs: this.s.slice(), reward: 1, terminated: done, truncated: false, info: {} };
  }
}
`;


const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-bench-module-'));
try {
  const file = path.join(dir, 'pole.mjs');
  fs.writeFileSync(file, MODULE);
  const inThread = envMaker((await import(pathToFileURL(file).href)) as Record<string, unknown>, file);
  const worker = await loadEnvModule(file, {}, { name: 'Pole' });
  for (const copies of [1, 8]) {
    const before = measure(VecEnv.create(() => inThread({}), copies), secondsPerCase);
    const after = measure(VecEnv.create(() => worker.create({}), copies), secondsPerCase);
    const overhead = 1e6 / after - 1e6 / before;
    console.log(
      `module env, ${copies} cop${copies === 1 ? 'y' : 'ies'}: trainer's thread ${(before / 1e3).toFixed(0)}k steps/s, worker ${(after / 1e3).toFixed(0)}k steps/s (+${overhead.toFixed(1)} us per env step)`,
    );
  }
  worker.close();
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
