// npm run bench -- gpu: gradient steps per second of PPO's CartPole MLP (hidden [64, 64]) at
// minibatch 128, 2048 and 16k rows on the webgpu provider and on the cpu in the same run, and
// the nodes onnxruntime leaves to the CPU on webgpu (with the copies they cost per step).
// Each size runs for about BENCH_GPU_SECONDS seconds per provider (default 2). On a software
// adapter (Mesa's llvmpipe) the figures say nothing about speed: it checks that the bench runs.
import { spawnSync } from 'node:child_process';
import { buildPpoLoss, ppoGradientStep, ppoSettings } from '../runtime/algorithms/index.js';
import { probeProvider } from '../runtime/device.js';
import { makeActorCritic } from '../runtime/policies/index.js';
import { Rng } from '../runtime/random.js';
import type { ExecutionProvider } from '../runtime/tensor/session.js';
import { parsePlacements, summarize } from '../runtime/tensor/placement.js';
import { ppoMinibatch } from '../test/helpers/ppo-minibatch.js';

const ROWS = (process.env.BENCH_GPU_ROWS ?? '128,2048,16384').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_GPU_SECONDS ?? 2);

const policyFor = () => makeActorCritic({ kind: 'mlp', name: 'p', params: { hidden: [64, 64] } }, { obsDim: 4, actionSpace: { kind: 'discrete', n: 2 } }, new Rng(1));

/** Gradient steps per second of one provider at `rows`, after a few warm-up steps. */
async function stepsPerSecond(provider: ExecutionProvider, rows: number): Promise<number> {
  const policy = policyFor();
  const step = await ppoGradientStep(buildPpoLoss(policy, ppoSettings({})), policy, { compute: { providers: [provider], threads: false }, maxRows: rows });
  const feeds = ppoMinibatch(rows, new Rng(2));
  try {
    for (let i = 0; i < 3; i++) await step.run(feeds);
    let n = 0;
    const start = performance.now();
    while (performance.now() - start < SECONDS * 1000 || n < 3) {
      await step.run(feeds);
      n++;
    }
    return (n * 1000) / (performance.now() - start);
  } finally {
    await step.release();
  }
}

/** The PPO step's placement on webgpu, from onnxruntime's verbose log in a child process. */
function placementReport(): string[] {
  const module = (file: string) => JSON.stringify(new URL(file, import.meta.url).href);
  const script = `
    const { buildPpoLoss, ppoGradientStep, ppoSettings } = await import(${module('../runtime/algorithms/index.js')});
    const { makeActorCritic } = await import(${module('../runtime/policies/index.js')});
    const { Rng } = await import(${module('../runtime/random.js')});
    const policy = makeActorCritic({ kind: 'mlp', name: 'p', params: { hidden: [64, 64] } }, { obsDim: 4, actionSpace: { kind: 'discrete', n: 2 } }, new Rng(1));
    const step = await ppoGradientStep(buildPpoLoss(policy, ppoSettings({})), policy, { compute: { providers: ['webgpu'], threads: false }, maxRows: 128 });
    await step.release();`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20, env: { ...process.env, RLX_ORT_PLACEMENT: '1' } });
  if (run.status !== 0) return [`  placement: the child process failed: ${run.stderr.split('\n').slice(-3).join(' ')}`];
  return parsePlacements(run.stderr).map((placement, i) => {
    const s = summarize(placement);
    const fallbacks = s.fallbacks.length ? s.fallbacks.map((n) => n.op).join(', ') : 'none';
    return `  session ${i}: ${s.onDevice} nodes on the GPU; CPU fallbacks: ${fallbacks}; shape nodes on the CPU: ${s.shapeNodes.length}; host<->GPU copies per step: ${s.copies}`;
  });
}

export async function benchGpu(): Promise<void> {
  console.log('\n== gpu: PPO MLP gradient steps/s, webgpu vs cpu (same run)');
  const probe = await probeProvider('webgpu');
  if (!probe.ok) {
    console.log(`  webgpu does not start (${probe.reason.split('\n')[0]}); cpu only`);
  } else if (probe.hardwareGpu === false) {
    console.log('  webgpu runs on a software adapter (no GPU found): its figures check that it runs, not its speed');
  }
  console.log('  rows     cpu steps/s   webgpu steps/s   webgpu/cpu');
  for (const rows of ROWS) {
    const cpu = await stepsPerSecond('cpu', rows);
    const gpu = probe.ok ? await stepsPerSecond('webgpu', rows) : NaN;
    const cell = (x: number, width: number) => (Number.isNaN(x) ? '-' : x.toFixed(1)).padStart(width);
    console.log(`  ${String(rows).padEnd(6)} ${cell(cpu, 12)} ${cell(gpu, 16)} ${cell(gpu / cpu, 12)}`);
  }
  if (probe.ok) {
    console.log('  node placement of the PPO step on webgpu:');
    for (const line of placementReport()) console.log(line);
  }
}
