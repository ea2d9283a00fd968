// `rlx sweep` with `backend: slurm` against a real Slurm: a single-node cluster on this machine
// (tools/slurm-local.sh: munge, slurmctld, slurmd). A sweep of six short CartPole runs finishes
// every member; a member that fails is reported failed by --status; --cancel ends a long sweep's
// running tasks (stopped, resumable) and its pending ones. Without Slurm the tests are skipped
// with the command that installs it; in CI (CI set) they fail instead.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { repoRoot } from '../helpers/repo.js';
import { scratch } from './scratch.js';

const START = 'bash tools/slurm-local.sh start';

/** Why the cluster cannot be used ('' when it can), after starting the local one if it is ours to start. */
function clusterProblem(): { problem: string; startedHere: boolean } {
  const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
  if (!has('sbatch')) return { problem: `Slurm's sbatch is not on PATH; install and start a single-node cluster with \`${START}\` (as root)`, startedHere: false };
  const idle = () => /^(idle|mixed|allocated)/m.test(spawnSync('sinfo', ['--noheader', '--format=%T'], { encoding: 'utf8' }).stdout ?? '');
  if (idle()) return { problem: '', startedHere: false };
  // Installed but not running: start the local cluster (its script refuses to touch a real cluster's config).
  if (process.getuid?.() === 0) {
    const r = spawnSync('bash', [path.join(repoRoot(), 'tools', 'slurm-local.sh'), 'start'], { encoding: 'utf8', timeout: 120_000 });
    if (r.status === 0 && idle()) return { problem: '', startedHere: true };
    return { problem: `the local Slurm did not start:\n${r.stdout}${r.stderr}`, startedHere: false };
  }
  return { problem: `Slurm is installed but no node is up; start one with \`${START}\` (as root)`, startedHere: false };
}

const cluster = clusterProblem();
if (cluster.problem && process.env.CI) {
  test('Slurm is available in CI', () => assert.fail(`${cluster.problem} (.ci/run starts it)`));
}
const skip = cluster.problem ? `${cluster.problem}` : false;

// A space in the folder: every path reaches sbatch and the tasks quoted.
const { work, rlx, write } = scratch('rlx slurm e2e ');

write('walk.mjs', `// A corridor whose length must not be negative: the Broken env's member fails.
export default class Walk {
  observationSpace = { kind: 'box', shape: [1], low: [0], high: [1] };
  actionSpace = { kind: 'discrete', n: 2 };
  obsFields = ['position'];
  constructor(params) {
    if (params.length < 0) throw new Error('length ' + params.length + ' is negative');
    this.length = params.length;
    this.position = 0;
  }
  reset() { this.position = 0; return { obs: [0], info: {} }; }
  step(action) {
    this.position = Math.min(this.length, Math.max(0, this.position + (action === 1 ? 1 : -1)));
    const done = this.position === this.length;
    return { obs: [this.position / this.length], reward: done ? 1 : -0.01, terminated: done, truncated: false, info: {} };
  }
}
`);
const FILE = write('sweeps.rlx', `env Pole = CartPole { max_steps: 500 }
env Walk = module("./walk.mjs") { length: 3 }
env Broken = module("./walk.mjs") { length: -1 }
policy Small = mlp { hidden: [16] }
algorithm Quick = PPO { rollout_steps: 64, minibatches: 2, epochs: 1 }
experiment Balance { env: Pole, policy: Small, algorithm: Quick, budget: 256 }
experiment Corridor { env: Walk, policy: Small, algorithm: Quick, budget: 256 }
experiment Endless { env: Pole, policy: Small, algorithm: Quick, budget: 100M }

sweep Six over Balance {
  seeds: [1, 2, 3, 4, 5, 6]
  parallel: 2
  backend: slurm
  slurm { cpus: 1, time: "00:10:00" }
}

sweep Mixed over Corridor {
  env: [Walk, Broken]
  backend: slurm
  parallel: 2
  slurm { cpus: 1 }
}

sweep Long over Endless {
  seeds: [1, 2, 3]
  parallel: 2
  backend: slurm
  slurm { cpus: 1 }
}
`);

interface Job { job_id: string; log_dir: string; members: number }
const jobOf = (sweep: string): Job => JSON.parse(fs.readFileSync(path.join(work, 'runs', sweep, 'slurm', 'job.json'), 'utf8')) as Job;

/** Polls until `done` holds (a generous limit: the tasks share the machine with everything else). */
async function until(what: string, done: () => boolean, limitMs = 240_000): Promise<void> {
  const start = Date.now();
  while (!done()) {
    if (Date.now() - start > limitMs) assert.fail(`gave up waiting ${limitMs / 1000} s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

const queued = (jobId: string) => (spawnSync('squeue', ['--jobs', jobId, '--array', '--noheader', '--format=%K %T'], { encoding: 'utf8' }).stdout ?? '').trim();

/** `rlx sweep --status` as { member: [state, rest of the line] }, and its summary line. */
function status(sweep: string): { members: Map<number, string>; lines: string[]; summary: string } {
  const r = rlx('sweep', FILE, '--sweep', sweep, '--status');
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  const members = new Map<number, string>();
  for (const line of lines) {
    const m = /^\s*(\d+)\s+(\w+)/.exec(line);
    if (m) members.set(Number(m[1]), m[2]);
  }
  return { members, lines, summary: lines.at(-1) ?? '' };
}

describe('rlx sweep on a single-node Slurm', { skip }, () => {
  before(() => assert.ok(fs.existsSync(path.join(work, 'sweeps.rlx'))));
  after(() => {
    if (cluster.startedHere) spawnSync('bash', [path.join(repoRoot(), 'tools', 'slurm-local.sh'), 'stop']);
  });

  test('six members of a short CartPole sweep: one job array, every member finished', { timeout: 300_000 }, async () => {
    const r = rlx('sweep', FILE, '--sweep', 'Six');
    assert.equal(r.code, 0, r.stderr);
    const job = jobOf('Six');
    assert.match(r.stdout + r.stderr, new RegExp(`Slurm job ${job.job_id}`));
    assert.match(r.stdout + r.stderr, /--status/);
    const script = fs.readFileSync(path.join(job.log_dir, 'array.sbatch'), 'utf8');
    assert.match(script, /^#SBATCH --array=0-5%2$/m);
    await until('the array to leave the queue', () => queued(job.job_id) === '');
    const { members, summary } = status('Six');
    assert.equal(summary, '6 members: 6 finished', [...members].join('\n'));
    // Each member trained into its own run directory under the shared runs folder.
    const runs = fs.readdirSync(path.join(work, 'runs', 'Balance'));
    assert.equal(runs.length, 6, runs.join(', '));
    const seeds = runs.map((run) => {
      const s = JSON.parse(fs.readFileSync(path.join(work, 'runs', 'Balance', run, 'status.json'), 'utf8')) as { status: string; seed: number };
      assert.equal(s.status, 'finished', run);
      return s.seed;
    });
    assert.deepEqual(seeds.sort(), [1, 2, 3, 4, 5, 6]);
  });

  test('a member that fails is reported failed, with its error, and the other finishes', { timeout: 300_000 }, async () => {
    const r = rlx('sweep', FILE, '--sweep', 'Mixed');
    assert.equal(r.code, 0, r.stderr);
    const job = jobOf('Mixed');
    await until('the array to leave the queue', () => queued(job.job_id) === '');
    const { members, lines } = status('Mixed');
    assert.equal(members.get(0), 'finished', lines.join('\n'));
    assert.equal(members.get(1), 'failed', lines.join('\n'));
    assert.match(lines.find((l) => /^\s*1\s+failed/.test(l))!, /length -1 is negative/);
  });

  test('--cancel ends the running tasks cleanly (stopped, resumable) and the pending one never starts', { timeout: 300_000 }, async () => {
    const r = rlx('sweep', FILE, '--sweep', 'Long');
    assert.equal(r.code, 0, r.stderr);
    const job = jobOf('Long');
    // Two tasks training (their trainers have taken over SIGTERM by then), the third waiting its turn.
    await until('two members to be training', () => [...status('Long').members.values()].filter((s) => s === 'running').length === 2
      && fs.readdirSync(path.join(work, 'runs')).includes('Endless')
      && fs.readdirSync(path.join(work, 'runs', 'Endless')).filter((run) => {
        const file = path.join(work, 'runs', 'Endless', run, 'status.json');
        return fs.existsSync(file) && (JSON.parse(fs.readFileSync(file, 'utf8')) as { step: number }).step > 0;
      }).length === 2);
    const cancel = rlx('sweep', FILE, '--sweep', 'Long', '--cancel');
    assert.equal(cancel.code, 0, cancel.stderr);
    await until('the cancelled array to leave the queue', () => queued(job.job_id) === '');
    const { members, summary, lines } = status('Long');
    assert.equal(summary, '3 members: 2 stopped, 1 cancelled', lines.join('\n'));
    assert.equal(members.get(2), 'cancelled');
  });
});
