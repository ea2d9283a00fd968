// A stand-in for `rlx train` in the job tests: writes a run directory as the real trainer does
// (status.json, events.jsonl), announces it on stdout as the run starts, and prints its kind of lines. FAKE_MODE picks what
// happens: finish, fail-early (before any run directory), internal-error (the trainer breaks before training), refuse-plan (a plan the runtime cannot run), fail-run, or wait (until SIGINT or SIGTERM).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const args = process.argv.slice(2);
const mode = process.env.FAKE_MODE ?? 'finish';
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

function writeStatus(dir: string, status: string, step: number, extra: Record<string, unknown> = {}): void {
  const now = new Date().toISOString();
  const body = { status, pid: process.pid, experiment: path.basename(path.dirname(dir)), seed: Number(flag('--seed') ?? 1), started: now, updated: now, step, budget: 1000, metrics: { 'train/mean_return': 20 + step / 100 }, ...extra };
  fs.writeFileSync(path.join(dir, '.status.tmp'), JSON.stringify(body));
  fs.renameSync(path.join(dir, '.status.tmp'), path.join(dir, 'status.json'));
}

async function main(): Promise<number> {
  if (mode === 'fail-early') {
    process.stderr.write("rlx train: cannot read the plan 'x.json': ENOENT\n");
    return 2;
  }
  if (mode === 'internal-error') {
    // As cli/main.ts prints an error it did not expect (a native module that does not load).
    process.stderr.write('rlx train: internal error: cannot load onnxruntime_binding.node\nThis is a bug in rlx; run again with RLX_DEBUG=1 for details and report it.\n');
    return 70;
  }
  if (mode === 'refuse-plan') {
    // As cli/commands/train.ts prints a PlanError with several problems.
    process.stderr.write('rlx train: the plan cannot run here:\n  - DQN does not train on continuous actions (Pendulum)\n  - envs must be a positive whole number, got 0\n');
    return 2;
  }
  const resume = flag('--resume');
  const dir = resume ?? path.join(flag('--out')!, flag('--experiment')!, `20261121-101010-seed${flag('--seed') ?? 1}`);
  fs.mkdirSync(dir, { recursive: true });
  // As the real trainer: its lock, and events.jsonl held open while it trains (what Stop checks: runtime/run/trainer-process.ts).
  fs.writeFileSync(path.join(dir, 'run.lock'), JSON.stringify({ pid: process.pid, host: os.hostname(), since: new Date().toISOString() }));
  const events = fs.openSync(path.join(dir, 'events.jsonl'), 'a');
  process.on('exit', () => {
    fs.closeSync(events);
    fs.rmSync(path.join(dir, 'run.lock'), { force: true });
  });
  process.stderr.write(`rlx train: ${flag('--experiment') ?? 'resuming'}, seed ${flag('--seed') ?? 1}\n`);
  writeStatus(dir, 'running', 0);
  // As rlx train: the run directory on stdout once it exists.
  process.stdout.write(`${path.relative(process.cwd(), dir)}\n`);
  if (mode === 'fail-run') {
    await new Promise((r) => setTimeout(r, 300));
    writeStatus(dir, 'failed', 100, { error: 'the env returned NaN' });
    process.stderr.write(`rlx train: training failed: the env returned NaN\nthe run directory ${dir} is marked failed\n`);
    return 2;
  }
  if (mode === 'wait') {
    let stop = false;
    let signal = 'SIGTERM' as NodeJS.Signals;
    const onSignal = (s: NodeJS.Signals) => {
      stop = true;
      signal = s;
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    let step = 0;
    while (!stop) {
      step += 10;
      writeStatus(dir, 'running', step);
      await new Promise((r) => setTimeout(r, 50));
    }
    writeStatus(dir, 'stopped', step, { reason: 'stopped by a signal' });
    process.stderr.write(`rlx train: stopped at step ${step}: stopped by a signal\n`);
    return signal === 'SIGINT' ? 130 : 143;
  }
  for (const step of [250, 500, 1000]) {
    await new Promise((r) => setTimeout(r, 100));
    writeStatus(dir, 'running', step);
  }
  writeStatus(dir, 'finished', 1000, { reason: 'budget reached' });
  process.stderr.write('rlx train: finished at step 1000: budget reached\n');
  return 0;
}

process.exitCode = await main();
