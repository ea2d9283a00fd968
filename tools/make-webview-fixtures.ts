// Regenerates test/fixtures/runs/: the run directories the webview tests and screenshots load.
//   npm run build && node out/tools/make-webview-fixtures.js
//
// Every run here is a real, short `rlx train` (PPO on classic control: the only algorithm the
// trainer implements today), trimmed to stay small: checkpoints are dropped (no page reads
// them) and a few recorded episodes are kept. The broken cases (a failed run, a crash that
// left a half-written line, a missing rollouts folder) are derived from real runs by the edits
// a crash or a user would make; the text-task episode is hand-written, because the trainer
// cannot train text tasks yet (see test/fixtures/runs/README.md).
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
};

/** [spec file, experiment or sweep name] in training order. */
const TRAININGS: [string, string][] = [
  ['cartpole.rlx', 'Steady'],
  ['cartpole.rlx', 'LrScan'],
  ['classic.rlx', 'SwingUp'],
  ['classic.rlx', 'Climb'],
  ['classic.rlx', 'Links'],
  ['classic.rlx', 'Reach'],
];

/** Recorded episodes kept per run: enough to pick from, few enough to keep the fixtures small. */
const ROLLOUTS_KEPT: Record<string, number> = { Steady: 3, Quick: 1 };
const ROLLOUTS_KEPT_OTHERWISE = 2;

/**
 * A pid no process can have (Linux caps pids at 2^22), so readers see the run as crashed on
 * every machine.
 */
const DEAD_PID = 999_999_999;

function main(): void {
  fs.mkdirSync(path.join(root, '.tmp'), { recursive: true });
  const work = fs.mkdtempSync(path.join(root, '.tmp', 'webview-fixtures-'));
  try {
    for (const [name, text] of Object.entries(SPECS)) fs.writeFileSync(path.join(work, name), text);
    for (const [spec, experiment] of TRAININGS) {
      // The trainer writes paths relative to the run directory; running from the work folder
      // with a relative --out keeps even its console output free of this machine's paths.
      execFileSync(process.execPath, [path.join(root, 'bin', 'rlx.js'), 'train', spec, '--experiment', experiment, '--out', 'runs', '--device', 'cpu'], {
        cwd: work,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    }
    for (const entry of fs.readdirSync(target, { withFileTypes: true })) {
      if (entry.isDirectory()) fs.rmSync(path.join(target, entry.name), { recursive: true });
    }
    const runs = path.join(work, 'runs');
    for (const experiment of fs.readdirSync(runs)) {
      for (const id of fs.readdirSync(path.join(runs, experiment))) {
        copyTrimmed(path.join(runs, experiment, id), path.join(target, experiment, id), ROLLOUTS_KEPT[experiment] ?? ROLLOUTS_KEPT_OTHERWISE);
      }
    }
    makeBrokenVariants();
    makeTextTask();
    checkNoMachinePaths(target, [work, root, os.homedir(), os.tmpdir()]);
    console.log(`${path.relative(root, target)}: ${(sizeOf(target) / 1024).toFixed(0)} KiB`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Copies a run directory without checkpoints and with at most `keep` recorded episodes. */
function copyTrimmed(from: string, to: string, keep: number): void {
  fs.mkdirSync(to, { recursive: true });
  for (const name of ['plan.json', 'events.jsonl', 'status.json']) fs.copyFileSync(path.join(from, name), path.join(to, name));
  fs.cpSync(path.join(from, 'source'), path.join(to, 'source'), { recursive: true });
  const episodes = fs
    .readdirSync(path.join(from, 'rollouts'))
    .filter((f) => /^episode-\d+\.jsonl$/.test(f))
    .sort((a, b) => stepOf(a) - stepOf(b));
  // The first, the last, then one from the middle: early and later behaviour.
  const kept = new Set([episodes[0], episodes[episodes.length - 1], episodes[Math.floor(episodes.length / 2)]].filter(Boolean).slice(0, keep));
  fs.mkdirSync(path.join(to, 'rollouts'));
  for (const file of kept) fs.copyFileSync(path.join(from, 'rollouts', file), path.join(to, 'rollouts', file));
}

const stepOf = (file: string): number => Number(/\d+/.exec(file)![0]);

function firstRun(experiment: string): string {
  const dir = path.join(target, experiment);
  return path.join(dir, fs.readdirSync(dir).sort()[0]);
}

/** Copies a real Steady run under another experiment name, status.json agreeing with the folder. */
function variantOf(experiment: string): { dir: string; events: string[]; status: Record<string, unknown> } {
  const source = firstRun('Steady');
  const dir = path.join(target, experiment, path.basename(source));
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

function writeStatus(dir: string, status: Record<string, unknown>): void {
  fs.writeFileSync(path.join(dir, 'status.json'), JSON.stringify(status, null, 2));
}

/** Keeps only the first recorded episode (written early, so before the run broke off), for size. */
function keepFirstRollout(dir: string): void {
  for (const file of fs.readdirSync(path.join(dir, 'rollouts'))) if (stepOf(file) > 0) fs.rmSync(path.join(dir, 'rollouts', file));
}

/**
 * A text task's recorded episode, by hand: the trainer does not train text tasks yet, so the
 * step lines carry the fields webview/protocol.ts proposes for them (`text`: prompt,
 * completion, target) beside the usual ones; its terms are the verifiers' verdicts.
 */
function makeTextTask(): void {
  const dir = path.join(target, 'Sums', '20261121-120000-seed1');
  fs.mkdirSync(path.join(dir, 'rollouts'), { recursive: true });
  const started = Date.UTC(2026, 10, 21, 12, 0, 0) / 1000;
  const plan = {
    rlx_plan: 1,
    language_version: '1',
    experiment: 'Sums',
    source: { entry: 'addition-grpo.rlx', files: ['addition-grpo.rlx'], hash: 'sha256:0' },
    env: { name: 'Arith', kind: 'TextTask', params: { task: { call: 'addition', args: { digits: 2 } }, max_tokens: 6 } },
    policy: { name: 'Tiny', kind: 'transformer', params: { layers: 2, width: 64, heads: 4, context: 32 } },
    stages: [{ name: 'main', algorithm: { name: 'Grpo', kind: 'GRPO', params: { group_size: 8, kl_coef: 0.04, clip: 0.2 } }, budget: 50000 }],
    reward: { name: 'Correct', replace_env_reward: true, terms: [{ name: 'answer', expr: { const: 0 } }, { name: 'format', expr: { const: 0 } }] },
    envs: 1,
    seeds: [1],
    device: 'cpu',
    eval: null,
    stop: null,
    curriculum: null,
    sweep: null,
  };
  fs.writeFileSync(path.join(dir, 'plan.json'), JSON.stringify(plan, null, 2));
  const header = { type: 'header', env: 'TextTask', obs_fields: [], action: { kind: 'tokens', max_tokens: 6 }, terms: ['answer', 'format'], step: 0 };
  const steps = [
    { prompt: '37+45=', completion: '82', target: '82', answer: 1, format: 0.1 },
    { prompt: '19+64=', completion: '73', target: '83', answer: 0, format: 0.1 },
    { prompt: '58+27=', completion: '8 5', target: '85', answer: 0, format: 0 },
  ].map((s, t) => ({
    type: 'step',
    t,
    obs: [],
    action: [],
    reward: s.answer + s.format,
    env_reward: 0,
    terms: { answer: s.answer, format: s.format },
    terminated: t === 2,
    truncated: false,
    text: { prompt: s.prompt, completion: s.completion, target: s.target },
  }));
  fs.writeFileSync(path.join(dir, 'rollouts', 'episode-0.jsonl'), [header, ...steps].map((l) => JSON.stringify(l)).join('\n') + '\n');
  const events = [
    { type: 'status', step: 0, time: started, status: 'finished', reason: 'hand-written fixture: text tasks are not trainable yet' },
    { type: 'rollout', step: 3, time: started, file: 'rollouts/episode-0.jsonl', return: 1.2, length: 3 },
  ];
  fs.writeFileSync(path.join(dir, 'events.jsonl'), events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  const iso = new Date(started * 1000).toISOString();
  writeStatus(dir, { status: 'finished', pid: DEAD_PID, experiment: 'Sums', seed: 1, started: iso, updated: iso, ended: iso, step: 3, budget: 50000, reason: 'hand-written fixture', metrics: {} });
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
