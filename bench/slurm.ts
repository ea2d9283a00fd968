// npm run bench -- slurm: what the Slurm path costs per member on the single-node cluster of
// tools/slurm-local.sh, for a sweep of very short CartPole members (one PPO update each), two at a
// time. Per member: Slurm's dispatch (from the moment the task could start, at submission or when
// a slot freed, until squeue shows it running), the member's start (running until its trainer
// wrote status.json: Node.js, rlx, onnxruntime, the plan), and the recording of its end (status.json
// `ended` until the task left squeue). squeue is polled every 100 ms: figures are +-0.1 s.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const MEMBERS = 6;
const PARALLEL = 2;
const POLL_MS = 100;

function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const seconds = (xs: number[]) => `${mean(xs).toFixed(2)} s (min ${Math.min(...xs).toFixed(2)}, max ${Math.max(...xs).toFixed(2)})`;

export async function benchSlurm(): Promise<void> {
  console.log(`\n== Slurm: overhead per member (${MEMBERS} one-update CartPole members, ${PARALLEL} at a time, single-node cluster)`);
  const up = /^(idle|mixed)/m.test(spawnSync('sinfo', ['--noheader', '--format=%T'], { encoding: 'utf8' }).stdout ?? '');
  if (!up) {
    console.log('skipped: no idle Slurm node; start one with `bash tools/slurm-local.sh start` (as root)');
    return;
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-bench-slurm-'));
  try {
    fs.writeFileSync(path.join(work, 'bench.rlx'), `env Pole = CartPole { max_steps: 500 }
policy Small = mlp { hidden: [16] }
algorithm Quick = PPO { rollout_steps: 64, minibatches: 2, epochs: 1 }
experiment Short { env: Pole, policy: Small, algorithm: Quick, budget: 64 }
sweep Bench over Short {
  seeds: [${Array.from({ length: MEMBERS }, (_, i) => i + 1).join(', ')}]
  parallel: ${PARALLEL}
  backend: slurm
  slurm { cpus: 1 }
}
`);
    const bin = path.join(repoRoot(), 'bin', 'rlx.js');
    const submitted = spawnSync(process.execPath, [bin, 'sweep', 'bench.rlx'], { cwd: work, encoding: 'utf8' });
    if (submitted.status !== 0) throw new Error(`rlx sweep failed: ${submitted.stderr}`);
    const job = JSON.parse(fs.readFileSync(path.join(work, 'runs', 'Bench', 'slurm', 'job.json'), 'utf8')) as { job_id: string; submitted: string; log_dir: string };
    const submittedAt = Date.parse(job.submitted);
    const running = new Map<number, number>();
    const gone = new Map<number, number>();
    const seen = new Set<number>();
    for (;;) {
      const out = spawnSync('squeue', ['--jobs', job.job_id, '--array', '--noheader', '--format=%K %T'], { encoding: 'utf8' }).stdout ?? '';
      const now = Date.now();
      const queued = new Map(out.trim().split('\n').filter(Boolean).map((l) => l.trim().split(/\s+/) as [string, string]).map(([k, s]) => [Number(k), s]));
      for (const [k, state] of queued) {
        seen.add(k);
        if (state === 'RUNNING' && !running.has(k)) running.set(k, now);
      }
      for (const k of seen) if (!queued.has(k) && !gone.has(k)) gone.set(k, now);
      if (gone.size === MEMBERS) break;
      if (now - submittedAt > 600_000) throw new Error('the sweep did not finish in 10 minutes');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    // A task can start when it is submitted (the first PARALLEL) or when an earlier one leaves.
    const freed = [...gone.values()].sort((a, b) => a - b);
    const byStart = [...running.entries()].sort((a, b) => a[1] - b[1]);
    const dispatch: number[] = [];
    const start: number[] = [];
    const record: number[] = [];
    const training: number[] = [];
    byStart.forEach(([k, at], order) => {
      const startable = order < PARALLEL ? submittedAt : freed[order - PARALLEL];
      dispatch.push((at - startable) / 1000);
      const runDir = fs.readFileSync(path.join(job.log_dir, `member-${k}.out`), 'utf8').trim().split('\n').at(-1)!;
      const status = JSON.parse(fs.readFileSync(path.resolve(work, runDir, 'status.json'), 'utf8')) as { status: string; started: string; ended: string };
      if (status.status !== 'finished') throw new Error(`member ${k} ended ${status.status}`);
      start.push((Date.parse(status.started) - at) / 1000);
      training.push((Date.parse(status.ended) - Date.parse(status.started)) / 1000);
      record.push((gone.get(k)! - Date.parse(status.ended)) / 1000);
    });
    // The same start outside Slurm, for comparison: what any `rlx train --member` process costs.
    const local: number[] = [];
    for (let k = 0; k < PARALLEL; k++) {
      const spawned = Date.now();
      const r = spawnSync(process.execPath, [bin, 'train', 'bench.rlx', '--sweep', 'Bench', '--member', String(k), '--out', 'local', '--threads', '1'], { cwd: work, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`rlx train --member ${k} failed: ${r.stderr}`);
      const status = JSON.parse(fs.readFileSync(path.resolve(work, r.stdout.trim().split('\n')[0], 'status.json'), 'utf8')) as { started: string };
      local.push((Date.parse(status.started) - spawned) / 1000);
    }
    const wall = (Math.max(...gone.values()) - submittedAt) / 1000;
    console.log(`slurm dispatch (startable -> running):      ${seconds(dispatch)}`);
    console.log(`member start (running -> trainer started):  ${seconds(start)}`);
    console.log(`  the same start without Slurm (spawned -> trainer started, one at a time): ${seconds(local)}`);
    console.log(`training (started -> ended):                ${seconds(training)}`);
    console.log(`end recorded (ended -> left the queue):     ${seconds(record)}`);
    console.log(`wall: ${wall.toFixed(1)} s for ${MEMBERS} members, ${PARALLEL} at a time`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
