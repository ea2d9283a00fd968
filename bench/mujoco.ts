// npm run bench -- mujoco: env steps per second of each built-in MuJoCo env (MuJoCo's
// WebAssembly build, one model per copy, all in this thread), one copy and 8 copies stepped by
// a VecEnv with random actions, and the mj_step rate that makes. Figures only; on a shared
// machine read the per-CPU-second figures.
import { Rng } from '../shared/random.js';
import { MUJOCO_ENVS } from '../dsl/schema/mujoco-envs.js';
import { makeVecEnv, prepareEnvKind } from '../runtime/envs/registry.js';
import { loadMujocoEngine, mujocoVersion } from '../runtime/envs/mujoco/engine.js';

const SECONDS = Number(process.env.RLX_BENCH_SECONDS ?? 1.5);

/** Env steps per second of wall time, and per second of this process's CPU time (the figure that survives a loaded machine). */
function envRate(kind: string, copies: number): { wall: number; cpu: number } {
  const vec = makeVecEnv(kind, {}, copies);
  const rng = new Rng(1);
  const actions = new Float32Array(copies * vec.actionDim);
  vec.reset(1);
  let steps = 0;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  while (performance.now() - start < SECONDS * 1000) {
    for (let r = 0; r < 50; r++) {
      for (let k = 0; k < actions.length; k++) actions[k] = rng.uniformRange(-1, 1);
      vec.step(actions);
      steps += copies;
    }
  }
  const cpu = process.cpuUsage(cpu0);
  return { wall: steps / ((performance.now() - start) / 1000), cpu: steps / ((cpu.user + cpu.system) / 1e6) };
}

export async function benchMujoco(): Promise<void> {
  const t0 = performance.now();
  await loadMujocoEngine();
  console.log(`mujoco: MuJoCo ${mujocoVersion()} (WebAssembly), loaded in ${(performance.now() - t0).toFixed(0)} ms`);
  for (const spec of MUJOCO_ENVS) {
    await prepareEnvKind(spec.name);
    const one = envRate(spec.name, 1);
    const eight = envRate(spec.name, 8);
    const frameSkip = spec.params.find((p) => p.name === 'frame_skip')!.default as number;
    const rate = (r: { wall: number; cpu: number }) => `${r.wall.toFixed(0).padStart(7)} steps/s (${r.cpu.toFixed(0)} per CPU s)`;
    console.log(`  ${spec.name.padEnd(24)} ${rate(one)} 1 copy  ${rate(eight)} 8 copies  = ${(eight.cpu * frameSkip).toFixed(0)} mj_step per CPU s (frame_skip ${frameSkip})`);
  }
}

if (process.argv[1]?.endsWith('bench/mujoco.js')) await benchMujoco();
