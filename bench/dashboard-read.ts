// npm run bench -- dashboard-read: opening the dashboard of a run with a long events.jsonl
// (issue 43 item 7). A ~200 MB file like a PPO run's (an update's metrics and its episodes,
// evaluations and checkpoints now and then) is written to a temporary folder, then read the old
// way (EventTail.poll() of the whole file, then foldHistory: every event in memory, in one
// synchronous call) and the new way (RunFeed.snapshot: pieces read in the background into a
// HistoryDigest). Each runs in a fresh Node process, so its peak memory is its own: the peak
// resident size (maxRSS) is what the extension host would pay; a heap sampler could not see
// inside the old reader's single synchronous call. The longest event-loop stall is the longest
// the extension host could answer nothing (perf_hooks' event-loop delay histogram).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { report } from './stats.js';

const TARGET_BYTES = Number(process.env.RLX_BENCH_DASHBOARD_MB ?? 200) * 2 ** 20;
const EPISODES_PER_UPDATE = 8;

interface Figures {
  ms: number;
  maxRssMiB: number;
  baseRssMiB: number;
  heapHeldMiB: number;
  stallMs: number;
  metricRows: number;
  episodeRows: number;
}

/** The child's side: reads the run folder `dir` the `mode` way and prints its figures as JSON. */
const CHILD = `
const [mode, dir, out] = process.argv.slice(1);
const { monitorEventLoopDelay } = await import('node:perf_hooks');
const path = await import('node:path');
// Loaded before the clock starts: module loading is the same for both and no part of a read.
const { EventTail } = await import(out + '/runtime/run/event-tail.js');
const { foldHistory } = await import(out + '/webview/columnar.js');
const { RunFeed, feedRun } = await import(out + '/extension/panels/run-feed.js');
const baseRss = process.memoryUsage().rss;
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
await new Promise((r) => setTimeout(r, 20));
let metricRows = 0, episodeRows = 0;
const count = (m) => {
  if (m.type !== 'columns') return;
  if (m.table === 'metrics') metricRows = (m.keep ?? metricRows) + m.steps.length;
  else episodeRows = (m.keep ?? episodeRows) + m.steps.length;
};
const t0 = performance.now();
let held;
if (mode === 'old') {
  held = foldHistory('Bench/run', new EventTail(path.join(dir, 'events.jsonl')).poll());
  held.forEach(count);
} else {
  held = new RunFeed([feedRun(dir)]);
  await held.snapshot(count);
}
const ms = performance.now() - t0;
// The delay of the call that just ended is recorded at the loop's next turns.
await new Promise((r) => setTimeout(r, 20));
delay.disable();
const heapHeld = process.memoryUsage().heapUsed;
process.stdout.write(JSON.stringify({
  ms, maxRssMiB: process.resourceUsage().maxRSS / 1024, baseRssMiB: baseRss / 2 ** 20, heapHeldMiB: heapHeld / 2 ** 20,
  stallMs: delay.max / 1e6, metricRows, episodeRows, kept: held !== undefined,
}));
`;

/** A PPO-like run's events.jsonl of about `bytes`; returns its updates and lines. */
function writeRun(dir: string, bytes: number): { updates: number; lines: number; bytes: number } {
  fs.mkdirSync(dir, { recursive: true });
  const fd = fs.openSync(path.join(dir, 'events.jsonl'), 'w');
  let size = 0;
  let lines = 0;
  const batch: string[] = [];
  const put = (event: unknown) => {
    const line = JSON.stringify(event);
    batch.push(line);
    size += line.length + 1;
    lines++;
  };
  const t0 = 1_795_000_000;
  put({ type: 'status', step: 0, time: t0, status: 'running', pid: 1 });
  put({ type: 'hparams', step: 0, time: t0, algorithm: 'PPO', values: { budget: 1e9, seed: 1, device: 'cpu' } });
  let updates = 0;
  let r = 1;
  const rand = () => ((r = (r * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  while (size < bytes) {
    const u = ++updates;
    const step = u * 2048;
    const time = t0 + u * 0.16;
    const progress = Math.min(1, u / 50_000);
    const ret = 20 + 480 * progress + 30 * rand();
    for (let e = 0; e < EPISODES_PER_UPDATE; e++) {
      const length = Math.round(ret * (0.8 + 0.4 * rand()));
      put({ type: 'episode', step, time, env: e, return: length, length, training_return: length * 1.98, terms: { alive: length, centre: -0.02 * rand(), tilt: -0.12 * rand() } });
    }
    put({
      type: 'metrics',
      step,
      time,
      values: {
        'charts/episodes': EPISODES_PER_UPDATE,
        'charts/episodic_return': ret,
        'charts/episodic_length': ret,
        'rewards/total': ret * 1.98,
        'rewards/alive': ret,
        'rewards/centre': -0.06 * rand(),
        'rewards/tilt': -0.16 * rand(),
        'train/mean_return': ret,
        'train/mean_length': ret,
        'charts/learning_rate': 0.0025 * (1 - progress),
        'charts/clip': 0.2,
        'charts/entropy_coef': 0.01,
        'losses/grad_norm': 7 * rand() + (u % 9973 === 0 ? 500 : 0),
        'losses/gradient_steps': 16,
        'losses/policy_loss': -0.002 * rand(),
        'losses/value_loss': 170 * rand(),
        'losses/entropy': 0.69 * (1 - progress / 2),
        'losses/old_approx_kl': -0.0013 * rand(),
        'losses/approx_kl': 0.0014 * rand(),
        'losses/clipfrac': 0.004 * rand(),
        'losses/explained_variance': rand(),
        'charts/sps': 12_000 + 1000 * rand(),
      },
    });
    if (u % 50 === 0) put({ type: 'eval', step, time, values: { 'eval/mean_return': ret, 'eval/std_return': 3, 'eval/mean_length': ret }, returns: [ret, ret, ret], lengths: [ret, ret, ret], deterministic: true });
    if (u % 100 === 0) put({ type: 'checkpoint', step, time, policy: `checkpoints/policy-${step}.onnx`, state: `checkpoints/state-${step}.json` });
    if (batch.length >= 20_000) fs.writeSync(fd, batch.splice(0).join('\n') + '\n');
  }
  if (batch.length > 0) fs.writeSync(fd, batch.join('\n') + '\n');
  fs.closeSync(fd);
  fs.writeFileSync(path.join(dir, 'status.json'), JSON.stringify({ status: 'finished', pid: 1, experiment: 'Bench', seed: 1, step: updates * 2048, budget: 1e9, metrics: {} }));
  return { updates, lines, bytes: size };
}

function measure(mode: 'old' | 'new', dir: string, out: string): Figures {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, mode, dir, out], { encoding: 'utf8', maxBuffer: 2 ** 20 });
  if (r.status !== 0) throw new Error(`the ${mode} reader's process failed (${r.status ?? r.signal}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Figures;
}

export async function benchDashboardRead(): Promise<void> {
  const out = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-bench-dashboard-'));
  try {
    const dir = path.join(root, 'Bench', '20261121-000000-seed1');
    const t0 = performance.now();
    const run = writeRun(dir, TARGET_BYTES);
    const writeMs = performance.now() - t0;
    const mib = (x: number) => `${x.toFixed(0)} MiB`;
    const s = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
    console.log(`\nevents.jsonl: ${(run.bytes / 2 ** 20).toFixed(0)} MiB, ${run.lines.toLocaleString('en-US')} lines, ${run.updates.toLocaleString('en-US')} updates (written in ${s(writeMs)})`);
    const old = measure('old', dir, out);
    const now = measure('new', dir, out);
    const row = (f: Figures): string =>
      `${s(f.ms)}, peak RSS ${mib(f.maxRssMiB)} (${mib(f.maxRssMiB - f.baseRssMiB)} over the process at rest), heap held after ${mib(f.heapHeldMiB)}, longest event-loop stall ${s(f.stallMs)}; rows for the page: ${f.metricRows.toLocaleString('en-US')} metrics, ${f.episodeRows.toLocaleString('en-US')} episodes`;
    report(`opening a dashboard on a ${(run.bytes / 2 ** 20).toFixed(0)} MiB events.jsonl (each reader in a fresh process)`, [
      ['old: EventTail.poll() + foldHistory', row(old)],
      ['new: RunFeed.snapshot (background, decimated)', row(now)],
      [
        'ratio new/old',
        `time ${(now.ms / old.ms).toFixed(2)}x, peak RSS over rest ${((now.maxRssMiB - now.baseRssMiB) / (old.maxRssMiB - old.baseRssMiB)).toFixed(3)}x, longest stall ${(now.stallMs / old.stallMs).toFixed(4)}x (${s(old.stallMs)} -> ${s(now.stallMs)})`,
      ],
    ]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
