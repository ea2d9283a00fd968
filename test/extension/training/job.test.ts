// A job's life against a stand-in trainer (fake-trainer.ts): the run directory found by the
// trainer's stdout, progress from status.json, the log tailed, and how it ended.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { trainerCommand } from '../../../extension/training/command-line.js';
import { liveTrainer, TrainJob } from '../../../extension/training/job.js';

const FAKE = fileURLToPath(new URL('./fake-trainer.js', import.meta.url));

function job(mode: string, extra: { seed?: number; trainer?: string } = {}): { job: TrainJob; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-job-'));
  const j = new TrainJob({
    id: 1,
    request: { kind: 'train', file: path.join(dir, 'a.rlx'), experiment: 'Tiny', seed: extra.seed },
    trainer: trainerCommand(extra.trainer ?? FAKE, '/unused/rlx.mjs', process.execPath, dir),
    runsRoot: path.join(dir, 'runs'),
    cwd: dir,
    device: 'auto',
    logFile: path.join(dir, 'logs', 'train.log'),
    env: { ...process.env, FAKE_MODE: mode },
    pollMs: 30,
  });
  return { job: j, dir };
}

test('a finished run: its directory, progress on the way, every line', async () => {
  const { job: j, dir } = job('finish', { seed: 4 });
  const lines: string[] = [];
  const steps: number[] = [];
  j.onLine((l) => lines.push(l));
  j.onDidChange(() => j.progress && steps.push(j.progress.step));
  assert.equal(j.state, 'queued');
  const result = await j.start();
  const runDir = path.join(dir, 'runs', 'Tiny', '20261121-101010-seed4');
  assert.deepEqual(result, { state: 'finished', runDirs: [runDir], exitCode: 0 });
  assert.equal(j.state, 'finished');
  assert.ok(steps.length > 0 && steps.at(-1)! >= 500, `progress seen: ${steps.join(',')}`);
  assert.deepEqual(lines, ['rlx train: Tiny, seed 4', `rlx train: run directory ${path.join('runs', 'Tiny', '20261121-101010-seed4')}`, 'rlx train: finished at step 1000: budget reached']);
  assert.match(fs.readFileSync(path.join(dir, 'logs', 'train.log'), 'utf8'), /budget reached/);
});

test('a trainer that fails before training: no run directory, its message', async () => {
  const { job: j } = job('fail-early');
  const result = await j.start();
  assert.deepEqual(result, { state: 'failed', cause: 'refused', runDirs: [], exitCode: 2, error: "cannot read the plan 'x.json': ENOENT" });
});

test('a plan the trainer refuses: every problem it listed, and the cause "refused" (the spec, not the trainer)', async () => {
  const { job: j } = job('refuse-plan');
  const result = await j.start();
  assert.equal(result.cause, 'refused');
  assert.equal(result.error, 'the plan cannot run here:\n  - DQN does not train on continuous actions (Pendulum)\n  - envs must be a positive whole number, got 0');
});

test('a trainer that breaks before training (an internal error): the cause "crash", the trainer to check, not the spec', async () => {
  const { job: j } = job('internal-error');
  const result = await j.start();
  assert.equal(result.cause, 'crash');
  assert.equal(result.exitCode, 70);
  assert.match(result.error ?? '', /^internal error: cannot load onnxruntime_binding\.node/);
});

test('a run that fails: the error from its status.json', async () => {
  const { job: j } = job('fail-run');
  const result = await j.start();
  assert.equal(result.state, 'failed');
  assert.equal(result.error, 'the env returned NaN');
  assert.equal(result.cause, 'run');
  assert.equal(result.runDirs.length, 1);
});

test('stop() sends SIGINT (which wakes a trainer waiting on a hung user env) and the run ends stopped', async () => {
  const { job: j } = job('wait');
  void j.start();
  await new Promise<void>((resolve) => {
    const off = j.onDidChange(() => {
      if (j.progress && j.progress.step >= 30) {
        off();
        resolve();
      }
    });
  });
  j.stop();
  const result = await j.done;
  assert.equal(result.state, 'stopped');
  assert.equal(result.exitCode, 130);
});

test('stop() on a queued job cancels it without a process', async () => {
  const { job: j } = job('finish');
  j.stop();
  assert.deepEqual(await j.done, { state: 'cancelled', runDirs: [], exitCode: null });
  assert.equal(j.pid, undefined);
  assert.deepEqual(await j.start(), { state: 'cancelled', runDirs: [], exitCode: null }, 'a cancelled job does not start later');
});

test('a trainer that is not there fails with a message that names it', async () => {
  const { job: j } = job('finish', { trainer: '/no/such/dir/rlx' });
  const result = await j.start();
  assert.equal(result.state, 'failed');
  assert.equal(result.error, "the trainer '/no/such/dir/rlx' was not found");
  assert.equal(result.cause, 'start');
});

test('after a window reload: a job follows a trainer it did not start (progress, Stop by pid, its end)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-attach-'));
  const { spawn } = await import('node:child_process');
  // A trainer an earlier window started.
  const child = spawn(process.execPath, [FAKE, 'train', 'a.rlx', '--experiment', 'Tiny', '--out', 'runs'], { cwd: dir, env: { ...process.env, FAKE_MODE: 'wait' }, stdio: 'ignore' });
  const runDir = path.join(dir, 'runs', 'Tiny', '20261121-101010-seed1');
  const deadline = Date.now() + 20_000;
  while (liveTrainer(runDir) === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 30));
  assert.equal(liveTrainer(runDir), child.pid, 'status.json running with a live pid');
  const j = TrainJob.attach(
    { id: 7, request: { kind: 'resume', runDir }, trainer: trainerCommand(FAKE, '/unused', process.execPath, dir), runsRoot: path.join(dir, 'runs'), cwd: dir, device: 'auto', logFile: path.join(dir, 'x.log'), pollMs: 30 },
    child.pid!,
  );
  assert.equal(j.state, 'running');
  assert.equal(j.label, 'Tiny/20261121-101010-seed1');
  while ((j.progress?.step ?? 0) < 30 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 30));
  assert.ok(j.progress && j.progress.runDir === runDir && j.progress.step >= 30);
  j.stop();
  const result = await j.done;
  assert.equal(result.state, 'stopped');
  assert.deepEqual(result.runDirs, [runDir]);
  assert.equal(liveTrainer(runDir), undefined, 'no live trainer once it stopped');
});

/** A live process of the user that is not a trainer: it writes `got` when it gets SIGINT, then exits. */
async function bystander(dir: string): Promise<{ pid: number; got: string; end: () => void }> {
  const { spawn } = await import('node:child_process');
  const got = path.join(dir, 'got-sigint');
  const child = spawn(process.execPath, ['-e', `process.on('SIGINT', () => { require('fs').writeFileSync(${JSON.stringify(got)}, 'x'); process.exit(0); }); setInterval(() => {}, 1000);`], { stdio: 'ignore' });
  await new Promise((r) => child.once('spawn', r));
  await new Promise((r) => setTimeout(r, 200)); // its SIGINT listener in place
  return { pid: child.pid!, got, end: () => child.kill('SIGKILL') };
}

/** A cloned run folder: status.json `running` and a run.lock, naming `pid` on `host`. */
function clonedRun(pid: number, host = os.hostname()): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-cloned-'));
  const now = new Date().toISOString();
  fs.writeFileSync(path.join(dir, 'status.json'), JSON.stringify({ status: 'running', pid, experiment: 'X', seed: 1, started: now, updated: now, step: 0, budget: 1, metrics: {} }));
  fs.writeFileSync(path.join(dir, 'events.jsonl'), '');
  fs.writeFileSync(path.join(dir, 'run.lock'), JSON.stringify({ pid, host, since: now }));
  return dir;
}

test('a run locked on another host is not followed: its pid means nothing here', async () => {
  const other = await bystander(fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-host-')));
  try {
    assert.equal(liveTrainer(clonedRun(other.pid, `not-${os.hostname()}`)), undefined);
  } finally {
    other.end();
  }
});

test("Stop never signals a live process a cloned run folder names that is not the run's trainer (issue 43)", async () => {
  const scratchDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rlx-stop-'));
  const other = await bystander(scratchDir);
  try {
    // status.json and run.lock agree, on this host, on a live pid: still not this run's trainer.
    // (The bystander stands for pid 1 or any other process: the test must not signal those.)
    const cloned = clonedRun(other.pid);
    assert.equal(liveTrainer(cloned), undefined, 'not taken for the trainer, so not followed');
    // What Stop does for a job that was following that pid.
    const j = TrainJob.attach({ id: 9, request: { kind: 'resume', runDir: cloned }, trainer: trainerCommand(FAKE, '/unused', process.execPath, scratchDir), runsRoot: scratchDir, cwd: scratchDir, device: 'auto', logFile: path.join(scratchDir, 'x.log'), pollMs: 30 }, other.pid);
    j.stop();
    j.detach();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(fs.existsSync(other.got), false, 'the bystander got no SIGINT');
  } finally {
    other.end();
  }
});
