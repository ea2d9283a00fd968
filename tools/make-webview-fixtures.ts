// Regenerates test/fixtures/runs/: the run directories the webview tests and screenshots load.
//   npm run build && node out/tools/make-webview-fixtures.js
//
//   node out/tools/make-webview-fixtures.js Sums Guesses   (only these experiments, the rest kept)
//
// Every run here is a real, short `rlx train` (PPO on classic control; SFT then GRPO on a
// TextTask; REINFORCE on GuessNumber dialogues), trimmed to stay small: checkpoints are
// dropped (no page reads them) and a few recorded episodes (text runs: batches) are kept. The
// broken cases (a failed run, a crash that left a half-written line, a missing rollouts
// folder) are derived from real runs by the edits a crash or a user would make
// (see test/fixtures/runs/README.md), and a run with a memory estimate from a text run by the
// figures a pretrained run logs (no pretrained model is small enough to train for a fixture).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const target = path.join(root, 'test', 'fixtures', 'runs');

/** The specs the fixtures are trained from; tiny budgets, so the whole set takes seconds. */
const SPECS: Record<string, string> = {
  'cartpole.rlx': `// CartPole with a shaped reward, so that reward terms are logged.
env Pole = CartPole { max_steps: 100 }

policy Actor = mlp { hidden: [32, 32] activation: tanh }

algorithm Tuned = PPO {
  learning_rate: linear(2.5e-3, 0)
  rollout_steps: 128
  epochs: 4
  minibatches: 4
}

reward Upright {
  term alive  = 1.0
  term centre = -0.05 * abs(obs.x)
  term tilt   = -0.1 * abs(next_obs.theta)
}

/// Seeds of one experiment: the dashboard and the seed band of the comparison.
experiment Steady {
  env: Pole
  envs: 4
  policy: Actor
  algorithm: Tuned
  reward: Upright
  budget: 8192
  seeds: [1, 2, 3]
  eval { every: 2048, episodes: 3 }
}

algorithm Small = PPO { rollout_steps: 64 epochs: 2 minibatches: 2 }

/// The base of a sweep: members differ in learning rate and entropy bonus.
experiment Quick {
  env: Pole
  envs: 2
  policy: Actor
  algorithm: Small
  budget: 2048
  seeds: [1, 2]
}

sweep LrScan over Quick {
  algorithm.learning_rate: [3e-4, 3e-3]
  seeds: [1, 2]
  strategy: grid
}
`,
  'classic.rlx': `// One short run per built-in env the rollout inspector draws.
policy Small = mlp { hidden: [32, 32] activation: tanh }
algorithm Quick = PPO { rollout_steps: 64 epochs: 2 minibatches: 2 }

env Swing = Pendulum { max_steps: 60 }
env Car = MountainCar { max_steps: 80 }
env Arm = Acrobot { max_steps: 80 }
env Rooms = GridWorld { layout: four_rooms size: 7 max_steps: 30 }

experiment SwingUp { env: Swing policy: Small algorithm: Quick budget: 1024 envs: 2 seed: 1 }
experiment Climb { env: Car policy: Small algorithm: Quick budget: 1024 envs: 2 seed: 1 }
experiment Links { env: Arm policy: Small algorithm: Quick budget: 1024 envs: 2 seed: 1 }
experiment Reach { env: Rooms policy: Small algorithm: Quick budget: 1024 envs: 2 seed: 1 }
`,
  'sums.rlx': `// A text task: an SFT warm-up, then GRPO; its recorded batches for the rollout inspector.
env Arith = TextTask { task: addition(digits: 1), max_tokens: 3 }
policy Tiny = transformer { layers: 1, width: 32, heads: 2, context: 16 }
reward Correct {
  term answer = exact(completion, target)
  term format = 0.1 * regex(completion, "^[0-9]+$")
}
algorithm G = GRPO { group_size: 4, prompts_per_update: 4 }
experiment Sums {
  env: Arith
  policy: Tiny
  reward: Correct
  stage warmup = SFT { updates: 60, batch_size: 32, learning_rate: 3e-3 }
  stage main = G { budget: 800 }
}
`,
  'guesses.rlx': `// Multi-turn dialogues: REINFORCE with a leave-one-out baseline on GuessNumber.
env Guess = GuessNumber { low: 1, high: 8, max_turns: 3 }
policy Tiny = transformer { layers: 1, width: 32, heads: 2, context: 32 }
algorithm Rl = REINFORCE { baseline: leave_one_out }
experiment Guesses {
  env: Guess
  policy: Tiny
  stage main = Rl { budget: 300 }
}
`,
};

/** [spec file, experiment or sweep name] in training order. */
const TRAININGS: [string, string][] = [
  ['cartpole.rlx', 'Steady'],
  ['cartpole.rlx', 'LrScan'],
  ['classic.rlx', 'SwingUp'],
  ['classic.rlx', 'Climb'],
  ['classic.rlx', 'Links'],
  ['classic.rlx', 'Reach'],
  ['sums.rlx', 'Sums'],
  ['guesses.rlx', 'Guesses'],
];

/** Recorded episodes kept per run: enough to pick from, few enough to keep the fixtures small. */
const ROLLOUTS_KEPT: Record<string, number> = { Steady: 3, Quick: 1, Sums: 3 };
const ROLLOUTS_KEPT_OTHERWISE = 2;

/**
 * A pid no process can have (Linux caps pids at 2^22), so readers see the run as crashed on
 * every machine.
 */
const DEAD_PID = 999_999_999;

function main(): void {
  // Names on the command line retrain only those experiments; the other fixtures stay as they are.
  const only = process.argv.slice(2);
  // Measured is edited from the Sums fixture, no training of its own: remade alone by its name.
  if (only.length > 0 && only.every((name) => name === 'Measured')) {
    makeMeasuredVariant();
    checkNoMachinePaths(target, [root, os.homedir(), os.tmpdir()]);
    return;
  }
  const unknown = only.filter((name) => !TRAININGS.some(([, experiment]) => experiment === name));
  if (unknown.length > 0) throw new Error(`unknown experiment ${unknown.join(', ')}; one of ${TRAININGS.map(([, e]) => e).join(', ')}`);
  // Failing, Crashed and NoRollouts are copies of a Steady run: they are remade with all of them.
  if (only.includes('Steady')) throw new Error('Steady is retrained with every fixture (the broken variants copy it): run without names');
  const trainings = only.length > 0 ? TRAININGS.filter(([, experiment]) => only.includes(experiment)) : TRAININGS;
  fs.mkdirSync(path.join(root, '.tmp'), { recursive: true });
  const work = fs.mkdtempSync(path.join(root, '.tmp', 'webview-fixtures-'));
  try {
    for (const [name, text] of Object.entries(SPECS)) fs.writeFileSync(path.join(work, name), text);
    for (const [spec, experiment] of trainings) {
      // The trainer writes paths relative to the run directory; running from the work folder
      // with a relative --out keeps even its console output free of this machine's paths.
      execFileSync(process.execPath, [path.join(root, 'bin', 'rlx.js'), 'train', spec, '--experiment', experiment, '--out', 'runs', '--device', 'cpu'], {
        cwd: work,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    }
    const runs = path.join(work, 'runs');
    for (const entry of fs.readdirSync(target, { withFileTypes: true })) {
      const retrained = only.length === 0 || fs.existsSync(path.join(runs, entry.name));
      if (entry.isDirectory() && retrained) fs.rmSync(path.join(target, entry.name), { recursive: true });
    }
    for (const experiment of fs.readdirSync(runs)) {
      for (const id of fs.readdirSync(path.join(runs, experiment))) {
        copyTrimmed(path.join(runs, experiment, id), path.join(target, experiment, id), ROLLOUTS_KEPT[experiment] ?? ROLLOUTS_KEPT_OTHERWISE);
      }
    }
    if (only.length === 0) makeBrokenVariants();
    if (only.length === 0 || only.includes('Sums')) makeMeasuredVariant();
    checkNoMachinePaths(target, [work, root, os.homedir(), os.tmpdir()]);
    console.log(`${path.relative(root, target)}: ${(sizeOf(target) / 1024).toFixed(0)} KiB`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Copies a run directory without checkpoints and with at most `keep` recorded episodes. */
function copyTrimmed(from: string, to: string, keep: number): void {
  fs.mkdirSync(to, { recursive: true });
  for (const name of ['plan.json', 'events.jsonl']) fs.copyFileSync(path.join(from, name), path.join(to, name));
  // status.json's run_dir is this machine's absolute path (optional: runs of earlier versions lack it).
  const status = JSON.parse(fs.readFileSync(path.join(from, 'status.json'), 'utf8')) as Record<string, unknown>;
  writeStatus(to, { ...status, run_dir: undefined });
  fs.cpSync(path.join(from, 'source'), path.join(to, 'source'), { recursive: true });
  const episodes = fs
    .readdirSync(path.join(from, 'rollouts'))
    .filter((f) => /^episode-\d+\.jsonl$/.test(f))
    .sort((a, b) => stepOf(a) - stepOf(b));
  // The first, the last, then one from the middle: early and later behaviour.
  const kept = new Set([episodes[0], episodes[episodes.length - 1], episodes[Math.floor(episodes.length / 2)]].filter(Boolean).slice(0, keep));
  // A text run's final held-out answers too: the inspector opens them first.
  for (const file of fs.readdirSync(path.join(from, 'rollouts'))) {
    if (/^episode-\d+-final\.jsonl$/.test(file) && fs.readFileSync(path.join(from, 'rollouts', file), 'utf8').startsWith('{"type":"header","kind":"text"')) kept.add(file);
  }
  fs.mkdirSync(path.join(to, 'rollouts'));
  for (const file of kept) fs.copyFileSync(path.join(from, 'rollouts', file), path.join(to, 'rollouts', file));
}

const stepOf = (file: string): number => Number(/\d+/.exec(file)![0]);

function firstRun(experiment: string): string {
  const dir = path.join(target, experiment);
  return path.join(dir, fs.readdirSync(dir).sort()[0]);
}

/** Copies a real run (of Steady) under another experiment name, status.json agreeing with the folder. */
function variantOf(experiment: string, from = 'Steady'): { dir: string; events: string[]; status: Record<string, unknown> } {
  const source = firstRun(from);
  const dir = path.join(target, experiment, path.basename(source));
  fs.rmSync(path.join(target, experiment), { recursive: true, force: true });
  fs.cpSync(source, dir, { recursive: true });
  const status = JSON.parse(fs.readFileSync(path.join(dir, 'status.json'), 'utf8')) as Record<string, unknown>;
  status.experiment = experiment;
  const events = fs.readFileSync(path.join(dir, 'events.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
  return { dir, events, status };
}

/** The events up to and including the `updates`-th metrics event (and the episodes it closed). */
function eventsThroughUpdate(events: string[], updates: number): string[] {
  let seen = 0;
  const end = events.findIndex((line) => line.includes('"type":"metrics"') && ++seen === updates);
  return events.slice(0, end + 1);
}

function lastStep(lines: string[]): number {
  return (JSON.parse(lines[lines.length - 1]) as { step: number }).step;
}

function makeBrokenVariants(): void {
  // A run that failed mid-training: the trainer logs the error, then a failed status event,
  // and marks status.json failed (runtime/train.ts). The error is a disk filling up.
  const failed = variantOf('Failing');
  const kept = eventsThroughUpdate(failed.events, 6);
  const step = lastStep(kept);
  const time = (JSON.parse(kept[kept.length - 1]) as { time: number }).time + 0.05;
  const error = 'ENOSPC: no space left on device, write';
  kept.push(JSON.stringify({ type: 'log', step, time, level: 'error', message: error }));
  kept.push(JSON.stringify({ type: 'status', step, time, status: 'failed', error }));
  fs.writeFileSync(path.join(failed.dir, 'events.jsonl'), kept.join('\n') + '\n');
  const iso = new Date(time * 1000).toISOString();
  writeStatus(failed.dir, { ...failed.status, status: 'failed', step, updated: iso, ended: iso, error, reason: undefined });
  keepFirstRollout(failed.dir);

  // A trainer killed inside a write: status.json still says running (with a pid that is gone)
  // and the last line of events.jsonl is cut in half.
  const crashed = variantOf('Crashed');
  const before = eventsThroughUpdate(crashed.events, 9);
  const next = crashed.events[before.length];
  const crashStep = lastStep(before);
  fs.writeFileSync(path.join(crashed.dir, 'events.jsonl'), before.join('\n') + '\n' + next.slice(0, Math.floor(next.length / 2)));
  writeStatus(crashed.dir, { ...crashed.status, status: 'running', pid: DEAD_PID, step: crashStep, ended: undefined, reason: undefined });
  keepFirstRollout(crashed.dir);

  // A finished run whose rollouts folder is gone (deleted to save space, or copied without it).
  const bare = variantOf('NoRollouts');
  fs.rmSync(path.join(bare.dir, 'rollouts'), { recursive: true });
}

const GiB = 2 ** 30;
/** The estimate Measured was checked against (`rlx check --memory`'s total), and its last measured peak. */
const MEASURED_ESTIMATE = 5.5 * GiB;
const MEASURED_PEAK = 6.3 * GiB;

/**
 * The Sums run with the memory figures of a pretrained one: each stage's hparams carry
 * `memory_estimate_bytes`, each update the peak resident memory so far, rising (loading, then
 * sampling's caches) to 1.15 times the estimate. Sizes in whole KiB, as getrusage reports them.
 */
function makeMeasuredVariant(): void {
  const measured = variantOf('Measured', 'Sums');
  const updates = measured.events.filter((line) => line.includes('"type":"metrics"')).length;
  const kib = (bytes: number) => Math.round(bytes / 1024) * 1024;
  const rise = (i: number) => (1 - Math.exp(-i / 20)) / (1 - Math.exp(-(updates - 1) / 20));
  let update = 0;
  let peak = 0;
  const events = measured.events.map((line) => {
    const event = JSON.parse(line) as { type: string; values?: Record<string, unknown> };
    if (event.type === 'hparams') event.values = { ...event.values, memory_estimate_bytes: MEASURED_ESTIMATE };
    else if (event.type === 'metrics') {
      peak = kib(4.6 * GiB + (MEASURED_PEAK - 4.6 * GiB) * rise(update++));
      event.values = { ...event.values, 'memory/peak_rss_bytes': peak };
    } else return line;
    return JSON.stringify(event);
  });
  fs.writeFileSync(path.join(measured.dir, 'events.jsonl'), events.join('\n') + '\n');
  const metrics = measured.status.metrics as Record<string, unknown>;
  writeStatus(measured.dir, { ...measured.status, metrics: { ...metrics, 'memory/peak_rss_bytes': peak } });
}

function writeStatus(dir: string, status: Record<string, unknown>): void {
  fs.writeFileSync(path.join(dir, 'status.json'), JSON.stringify(status, null, 2));
}

/** Keeps only the first recorded episode (written early, so before the run broke off), for size. */
function keepFirstRollout(dir: string): void {
  for (const file of fs.readdirSync(path.join(dir, 'rollouts'))) if (stepOf(file) > 0) fs.rmSync(path.join(dir, 'rollouts', file));
}

/** Fails when any fixture file names a folder of this machine (the fixtures are committed). */
function checkNoMachinePaths(dir: string, forbidden: string[]): void {
  const needles = forbidden.filter((p) => p.length > 1);
  for (const rel of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]) {
    const file = path.join(dir, rel);
    if (!fs.statSync(file).isFile()) continue;
    const text = fs.readFileSync(file, 'utf8');
    const found = needles.find((needle) => text.includes(needle));
    if (found) throw new Error(`${path.relative(root, file)} contains the machine path ${found}`);
  }
}

function sizeOf(dir: string): number {
  return (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[])
    .map((rel) => fs.statSync(path.join(dir, rel)))
    .filter((s) => s.isFile())
    .reduce((sum, s) => sum + s.size, 0);
}

main();
